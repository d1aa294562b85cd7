#!/usr/bin/python3
"""Checks the NumPy reference against the aren models' published expected outputs.

    /usr/bin/python3 tests/reference/check_known_outputs.py [--shared DIR] [--variants]

Exits non-zero when the reference (default semantics) does not reproduce
    آ ت ز م و ن  ->  a t z m o n
    آ ز ا        ->  a z z a
with greedy search and beam search (beam 4), for the fp32 and int8 models, in the
float and int8-activation modes.

With --variants it also tries the position-encoding variants (start index 0/1,
concatenated/interleaved sin-cos, timescale denominator d/2-1 or d/2) and
layer-norm epsilons and prints which of them reproduce the outputs, with the
average log-prob of the expected tokens under score().
"""

import argparse
import itertools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ct2_model  # noqa: E402
import ct2_transformer  # noqa: E402

KNOWN = [
    ("آ ت ز م و ن", "a t z m o n"),
    ("آ ز ا", "a z z a"),
]

MODELS = ["aren-transliteration", "aren-transliteration-i8"]


def default_shared_dir():
    return os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))


def load(shared, name):
    directory = os.path.join(shared, "models", "ct2", name)
    model = ct2_model.load_model(directory)
    source = ct2_model.load_vocabulary_object(os.path.join(directory, "source_vocabulary.txt"))
    target = ct2_model.load_vocabulary_object(os.path.join(directory, "target_vocabulary.txt"))
    return model, source, target


def run_checks(transformer, source_vocab, target_vocab, label):
    ok = True
    for source_text, expected_text in KNOWN:
        source_ids = source_vocab.to_ids(source_text.split())
        greedy_ids, _, _ = transformer.greedy(source_ids)
        beam_ids = transformer.beam_search(source_ids, beam_size=4)[0][0]
        for mode, ids in (("greedy", greedy_ids), ("beam4", beam_ids)):
            got = " ".join(target_vocab.to_tokens(ids))
            status = "ok" if got == expected_text else "MISMATCH"
            if got != expected_text:
                ok = False
            print("%-40s %-6s %-14s -> %-14s %s" % (label, mode, source_text, got, status))
    return ok


def mean_expected_log_prob(transformer, source_vocab, target_vocab):
    values = []
    for source_text, expected_text in KNOWN:
        lps = transformer.score(source_vocab.to_ids(source_text.split()),
                                target_vocab.to_ids(expected_text.split()))
        values.extend(lps)
    return sum(values) / len(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--shared", default=default_shared_dir())
    parser.add_argument("--variants", action="store_true")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.shared, "models", "ct2")):
        print("error: %s/models/ct2 not found (pass --shared)" % args.shared, file=sys.stderr)
        return 2

    all_ok = True
    for name in MODELS:
        model, source_vocab, target_vocab = load(args.shared, name)
        modes = [False, True] if name.endswith("-i8") else [False]
        for int8_activations in modes:
            transformer = ct2_transformer.Transformer(model, int8_activations=int8_activations)
            label = "%s%s" % (name, " (int8 activations)" if int8_activations else "")
            all_ok &= run_checks(transformer, source_vocab, target_vocab, label)

    if args.variants:
        model, source_vocab, target_vocab = load(args.shared, MODELS[0])
        print("\nvariants on %s (greedy+beam4 reproduce? / mean log-prob of expected):"
              % MODELS[0])
        for start, layout, denominator, epsilon in itertools.product(
                (0, 1), ("concat", "interleave"), ("half_minus_one", "half"), (1e-5, 1e-6)):
            transformer = ct2_transformer.Transformer(
                model, epsilon=epsilon, pe_start=start, pe_layout=layout,
                pe_denominator=denominator)
            reproduced = True
            for source_text, expected_text in KNOWN:
                source_ids = source_vocab.to_ids(source_text.split())
                greedy_ids = transformer.greedy(source_ids)[0]
                beam_ids = transformer.beam_search(source_ids, beam_size=4)[0][0]
                expected_ids = target_vocab.to_ids(expected_text.split())
                reproduced &= greedy_ids == expected_ids and beam_ids == expected_ids
            print("start=%d layout=%-10s denom=%-14s eps=%g: %-5s %.6f"
                  % (start, layout, denominator, epsilon, reproduced,
                     mean_expected_log_prob(transformer, source_vocab, target_vocab)))

    print("ALL OK" if all_ok else "FAILED")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
