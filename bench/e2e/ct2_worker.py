#!/usr/bin/env python3
"""CTranslate2 side of the benchmark: translates stdin (space-separated tokens, one sentence per
line) to stdout, one translation per line, the way `heed translate --tokens` does.

Each batch's translations are written and flushed as soon as the batch is done, so the harness that
reads stdout sees the same events for both engines. The number of target tokens is fixed by
min_decoding_length = max_decoding_length, so every sentence costs the same on both sides.
"""
import argparse
import sys
import time

T0 = time.perf_counter()
import ctranslate2  # noqa: E402  (imported after T0: the import is part of the start-up cost)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("model")
    p.add_argument("--compute-type", default="int8")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--length", type=int, default=32, help="target tokens per sentence (min = max)")
    a = p.parse_args()

    translator = ctranslate2.Translator(a.model, device="cpu", compute_type=a.compute_type,
                                        intra_threads=a.threads, inter_threads=1)
    loaded = time.perf_counter()
    sources = [line.split() for line in sys.stdin.read().splitlines()]
    for start in range(0, len(sources), a.batch):
        chunk = sources[start:start + a.batch]
        results = translator.translate_batch(
            chunk, beam_size=a.beam, max_batch_size=a.batch, num_hypotheses=1,
            max_decoding_length=a.length, min_decoding_length=a.length,
            return_end_token=False)
        sys.stdout.write("".join(" ".join(r.hypotheses[0]) + "\n" for r in results))
        sys.stdout.flush()
    # Load time seen from inside the process, for the report (the harness measures from spawn).
    sys.stderr.write("ct2_worker: import+load %.1f ms\n" % ((loaded - T0) * 1000))


if __name__ == "__main__":
    main()
