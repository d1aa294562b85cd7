"""heed_translate_attention (attention_c.c) against the independent NumPy reference's
cross-attention (tests/fixtures/aren/aren_cross_attention.json): for each of its sentences, the
C API's matrix must equal the reference's last decoder layer averaged over its heads, one row per
target token, within 1e-4.

    python3 attention_test.py "EMULATOR" ATTENTION_C MODEL.heed FIXTURE.json
"""
import json
import shlex
import subprocess
import sys


def main():
    emulator, program, model, fixture = sys.argv[1:5]
    with open(fixture, encoding="utf-8") as f:
        sentences = json.load(f)["sentences"]
    texts = [" ".join(s["source"]) for s in sentences]
    run = subprocess.run(shlex.split(emulator) + [program, model] + texts, capture_output=True, text=True, timeout=600)
    lines = run.stdout.splitlines()
    failures = [line for line in lines if line.startswith("FAIL")]
    if run.returncode != 0 and not failures:
        failures.append("attention_c exited %d: %s" % (run.returncode, run.stderr.strip()))
    at = 0
    for s in sentences:
        rows, cols = (int(v) for v in lines[at].split())
        got = [[float(v) for v in line.split()] for line in lines[at + 1:at + 1 + rows]]
        at += 1 + rows
        last = s["attention"][-1]  # [head][target step][source]
        heads = len(last)
        if rows != len(s["target"]) or cols != len(s["source"]):
            failures.append("%s: %dx%d, expected %dx%d" % (s["source"], rows, cols, len(s["target"]), len(s["source"])))
            continue
        for t in range(rows):
            for c in range(cols):
                want = sum(last[h][t][c] for h in range(heads)) / heads
                if abs(got[t][c] - want) > 1e-4:
                    failures.append("%s: [%d][%d] %.6f, reference %.6f" % (" ".join(s["source"]), t, c, got[t][c], want))
    for f in failures:
        print(f)
    print("attention_test: %d sentences, %s" % (len(sentences), "FAILED" if failures else "all equal the reference"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
