#!/usr/bin/env python3
"""Peak anonymous memory of one command (heap, arenas, stacks: RssAnon in /proc/PID/status, polled
every millisecond; the mapped model file is not anonymous and not counted), as a person sees it on
a small device.

  bench/peak_anon.py [--runs N] [--stdin FILE] -- build/host/tools/heed translate -m M.heed --beam 1 --batch 1

Prints the peak in MiB of each run and their maximum. Linux only."""
import argparse
import subprocess
import sys
import time


def rss_anon_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def peak_of(cmd, stdin_path):
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, rss_anon_kib(proc.pid))
        time.sleep(0.001)
    if proc.returncode != 0:
        sys.exit(f"peak_anon: the command failed with status {proc.returncode}")
    return peak / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stdin", help="file fed to the command's standard input")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("no command given (put it after --)")
    peaks = [peak_of(cmd, args.stdin) for _ in range(args.runs)]
    print("peak RssAnon per run (MiB):", " ".join(f"{p:.1f}" for p in peaks))
    print(f"max {max(peaks):.1f} MiB")


if __name__ == "__main__":
    main()
