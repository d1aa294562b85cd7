"""Translates the demo's validation set with CTranslate2 itself (greedy) and reports the exact
match, proving that an exported model directory means to CTranslate2 what it meant in training.

  python check_ct2.py demo/numbers-en-de [--quantization int8]

Exits 1 when the exact match is below --min-accuracy (default 1.0).
"""

import argparse
import sys

import ctranslate2

import number_words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--quantization", default="float32",
                        help="CTranslate2 compute type: float32, int8, ...")
    parser.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    parser.add_argument("--min-accuracy", type=float, default=1.0)
    args = parser.parse_args()

    translator = ctranslate2.Translator(args.model_dir, device="cpu",
                                        compute_type=args.quantization, inter_threads=1,
                                        intra_threads=1)
    _, valid = number_words.make_splits()
    sources = [number_words.english(n).split() for n in valid]
    references = [number_words.german(n) for n in valid]
    results = translator.translate_batch(sources, beam_size=args.beam, max_batch_size=256)
    misses = [(" ".join(s), r, " ".join(res.hypotheses[0]))
              for s, r, res in zip(sources, references, results)
              if " ".join(res.hypotheses[0]) != r]
    accuracy = 1.0 - len(misses) / len(sources)
    print(f"ctranslate2 {ctranslate2.__version__} ({args.quantization}, beam {args.beam}): "
          f"validation exact match {accuracy:.2%} ({len(sources) - len(misses)}/{len(sources)})")
    for source, ref, hyp in misses[:5]:
        print(f"  miss: {source!r} -> {hyp!r}, expected {ref!r}")
    return 0 if accuracy >= args.min_accuracy else 1


if __name__ == "__main__":
    sys.exit(main())
