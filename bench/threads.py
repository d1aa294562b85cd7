#!/usr/bin/env python3
"""Thread scaling of a translation model, on an idle machine and on a busy one, side by side.

    bench/threads.py HEED MODEL.heed [--repeat N] [--threads 1,2] [--batch 1] [--beam 1]

Runs `heed bench --json` on MODEL for each thread count, alternating them within each of REPEAT
rounds, in two conditions: idle, and with another process spinning on one core (a busy loop, as
another program on a phone or a Raspberry Pi would be). Prints a Markdown table of the median
target tokens/s per (condition, threads) and its ratio to one thread in the same condition, with
the CPU's name. Extra heed bench options after `--` (e.g. `-- --spin-us 0`). Standard library only.
"""
import argparse
import json
import multiprocessing
import statistics
import subprocess
import sys

from compare_builds import cpu_model  # the CPU's name, as every bench/ script reports it


def spin(stop):
    while not stop.is_set():
        pass


def bench(heed, model, threads, args, extra):
    cmd = [heed, "bench", "-m", model, "--json", "--threads", str(threads), "--batch", str(args.batch),
           "--beam", str(args.beam), "--repeat", str(args.passes)] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    return json.loads(p.stdout)["tokens_per_s"]


def measure(args, extra, busy):
    stop, spinner = None, None
    if busy:
        stop = multiprocessing.Event()
        spinner = multiprocessing.Process(target=spin, args=(stop,))
        spinner.start()
    try:
        speeds = {t: [] for t in args.threads}
        for r in range(args.repeat):
            order = args.threads if r % 2 == 0 else list(reversed(args.threads))
            for t in order:
                speeds[t].append(bench(args.heed, args.model, t, args, extra))
        return {t: statistics.median(v) for t, v in speeds.items()}
    finally:
        if spinner is not None:
            stop.set()
            spinner.join()


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("heed")
    ap.add_argument("model")
    ap.add_argument("--repeat", type=int, default=5, help="rounds (each runs every thread count once)")
    ap.add_argument("--passes", type=int, default=3, help="timed passes inside each heed bench run")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (the first is the base)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--beam", type=int, default=1)
    args = ap.parse_args(argv)
    args.threads = [int(t) for t in args.threads.split(",")]
    print("CPU: %s; %s, batch %d, beam %d, %d rounds of %d passes%s" %
          (cpu_model(), args.model, args.batch, args.beam, args.repeat, args.passes,
           (", heed bench " + " ".join(extra)) if extra else ""))
    print()
    print("| machine | threads | target tokens/s (median) | vs 1 thread |")
    print("|---|---|---|---|")
    for busy in (False, True):
        speeds = measure(args, extra, busy)
        base = speeds[args.threads[0]]
        for t in args.threads:
            print("| %s | %d | %.1f | %.2fx |" % ("one core busy" if busy else "idle", t, speeds[t], speeds[t] / base))


if __name__ == "__main__":
    main()
