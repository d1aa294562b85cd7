#!/usr/bin/env python3
"""Side-by-side speed of two heed builds on one model: `heed bench --json` of each binary, run
alternately in the same script (order flipped every repetition), medians and the ratio new/base.

    bench/compare_builds.py --base OLD/heed --new build/host/tools/heed -m model.heed
    bench/compare_builds.py ... --scenario "batch 1 greedy=-b 1" --scenario "b16 beam4=-b 16 --beam 4"

A refactoring that must not change speed is checked with this: both builds see the same machine
state, so the ratio is meaningful even on a noisy machine; the spread (min..max of the ratio per
repetition) says how noisy it was. Prints a Markdown table with the CPU model.
"""
import argparse
import json
import platform
import shlex
import statistics
import subprocess
import sys

DEFAULT_SCENARIOS = [
    ("batch 1, greedy", "--batch 1 --sentences 16"),
    ("batch 16, beam 4", "--batch 16 --beam 4 --sentences 16"),
]


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def bench_once(binary, model, extra, repeat):
    cmd = [binary, "bench", "-m", model, "--json", "-r", str(repeat)] + shlex.split(extra)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tokens_per_s"]


def run_scenario(args, extra):
    base, new, ratios = [], [], []
    for rep in range(args.repetitions):
        order = [("base", args.base), ("new", args.new)]
        if rep % 2:
            order.reverse()
        got = {name: bench_once(binary, args.model, extra, args.repeat) for name, binary in order}
        base.append(got["base"])
        new.append(got["new"])
        ratios.append(got["new"] / got["base"])
    return base, new, ratios


def parse_scenarios(items):
    if not items:
        return DEFAULT_SCENARIOS
    scenarios = []
    for item in items:
        if "=" not in item:
            sys.exit(f"compare_builds: --scenario wants NAME=OPTIONS, got {item!r}")
        name, extra = item.split("=", 1)
        scenarios.append((name.strip(), extra))
    return scenarios


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="the heed binary to compare against")
    p.add_argument("--new", required=True, help="the heed binary under test")
    p.add_argument("-m", "--model", required=True, help="the .heed model both binaries run")
    p.add_argument("--scenario", action="append", help="NAME=heed bench options (repeatable)")
    p.add_argument("--repetitions", type=int, default=7, help="alternating runs per binary (default 7)")
    p.add_argument("--repeat", type=int, default=5, help="timed passes inside each heed bench run (default 5)")
    args = p.parse_args()

    print(f"CPU: {cpu_model()}; model {args.model}; {args.repetitions} alternating runs per build, "
          f"medians of heed bench's tokens/s")
    print()
    print("| scenario | base tokens/s | new tokens/s | new / base | ratio min..max |")
    print("|---|---|---|---|---|")
    for name, extra in parse_scenarios(args.scenario):
        base, new, ratios = run_scenario(args, extra)
        print(f"| {name} (`{extra}`) | {statistics.median(base):.1f} | {statistics.median(new):.1f} | "
              f"{statistics.median(ratios):.3f} | {min(ratios):.3f}..{max(ratios):.3f} |", flush=True)


if __name__ == "__main__":
    main()
