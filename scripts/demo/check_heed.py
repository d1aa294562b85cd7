"""Translates the demo's validation set with heed and reports the exact match, the same
measurement check_ct2.py makes with CTranslate2. Needs only Python 3 and a built `heed`.

  python3 scripts/demo/check_heed.py --heed build/host/tools/heed -m build/demo/numbers-en-de.heed

Exits 1 when the exact match is below --min-accuracy (default 1.0), 2 when heed fails.
"""

import argparse
import subprocess
import sys

import number_words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heed", required=True, help="the heed executable")
    parser.add_argument("-m", "--model", required=True, help="a .heed file of the demo model")
    parser.add_argument("--min-accuracy", type=float, default=1.0)
    parser.add_argument("extra", nargs="*", help="more `heed translate` options, after --")
    args = parser.parse_args()

    _, valid = number_words.make_splits()
    sources = [number_words.english(n) for n in valid]
    references = [number_words.german(n) for n in valid]
    run = subprocess.run([args.heed, "translate", "-m", args.model, "--tokens", *args.extra],
                         input="\n".join(sources) + "\n", capture_output=True, text=True,
                         check=False)
    if run.returncode != 0:
        print(f"check_heed: heed translate failed ({run.returncode}): {run.stderr.strip()}",
              file=sys.stderr)
        return 2
    outputs = run.stdout.splitlines()
    if len(outputs) != len(sources):
        print(f"check_heed: {len(outputs)} output lines for {len(sources)} inputs",
              file=sys.stderr)
        return 2
    misses = [(s, r, h) for s, r, h in zip(sources, references, outputs) if h.strip() != r]
    accuracy = 1.0 - len(misses) / len(sources)
    print(f"heed ({args.model}): validation exact match {accuracy:.2%} "
          f"({len(sources) - len(misses)}/{len(sources)})")
    for source, ref, hyp in misses[:5]:
        print(f"  miss: {source!r} -> {hyp!r}, expected {ref!r}")
    return 0 if accuracy >= args.min_accuracy else 1


if __name__ == "__main__":
    sys.exit(main())
