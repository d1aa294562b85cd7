#!/usr/bin/env python3
"""Self-tests of the benchmark harness (bench/e2e/run.py), with fake engines instead of heed and
CTranslate2, so they run in a second with any python3:  python3 bench/e2e/test_run.py
"""
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

# A fake engine: sleeps START seconds, then per batch of B input lines sleeps PER_BATCH seconds and
# prints, per line, TOKENS copies of the line's first token; exits with CODE.
FAKE = r"""
import sys, time
start, per_batch, batch, tokens, code = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
lines = sys.stdin.read().splitlines()
ballast = bytearray(int(sys.argv[6]) if len(sys.argv) > 6 else 0)
for i in range(len(ballast) // 4096): ballast[i * 4096] = 1  # touch every page: resident
time.sleep(start)
for b in range(0, len(lines), batch):
    time.sleep(per_batch)
    for line in lines[b:b + batch]:
        sys.stdout.write(" ".join([line.split()[0]] * tokens) + "\n")
    sys.stdout.flush()
sys.exit(code)
"""


def fake(start, per_batch, batch, tokens, code=0, ballast=0):
    return [sys.executable, "-c", FAKE, str(start), str(per_batch), str(batch), str(tokens), str(code), str(ballast)]


class RunOnceTest(unittest.TestCase):
    inputs = ["a b c", "d e", "f", "g h i j"]

    def test_steady_rate_excludes_start_up(self):
        # 4 lines, batch 2: the steady window is the second batch only (2 lines x 8 tokens / 0.3 s).
        r = run.run_once(fake(0.5, 0.3, 2, 8), self.inputs, batch=2, length=8)
        self.assertEqual(r["tokens"], 32)
        self.assertEqual(r["wrong_length_lines"], 0)
        self.assertAlmostEqual(r["tokens_per_s"], 16 / 0.3, delta=16 / 0.3 * 0.35)
        self.assertGreaterEqual(r["first_ms"], 800)  # start + first batch
        self.assertLess(r["e2e_tokens_per_s"], r["tokens_per_s"])  # start-up counted there
        self.assertEqual(r["outputs"][1], "d " * 7 + "d")

    def test_wrong_length_is_counted(self):
        r = run.run_once(fake(0, 0, 1, 5), self.inputs, batch=1, length=6)
        self.assertEqual(r["wrong_length_lines"], 4)

    def test_peak_rss_is_the_child_s(self):
        small = run.run_once(fake(0, 0, 4, 1), self.inputs, batch=4, length=1)["peak_rss_mib"]
        big = run.run_once(fake(0, 0, 4, 1, ballast=64 << 20), self.inputs, batch=4, length=1)["peak_rss_mib"]
        self.assertGreater(big - small, 56)

    def test_failing_engine_is_an_error(self):
        with self.assertRaisesRegex(RuntimeError, "exited with 3"):
            run.run_once(fake(0, 0, 1, 2, code=3), self.inputs, batch=1, length=2)

    def test_missing_lines_are_an_error(self):
        argv = [sys.executable, "-c", "import sys; sys.stdin.read(); print('x')"]
        with self.assertRaisesRegex(RuntimeError, "wrote 1 lines for 4 inputs"):
            run.run_once(argv, self.inputs, batch=1, length=1)


class ReportTest(unittest.TestCase):
    def test_agreement(self):
        self.assertEqual(run.agreement(["a", "b", "c", "d"], ["a", "x", "c", "y"]), 0.5)

    def test_update_doc_replaces_only_the_block(self):
        begin = "<!-- e2e-table:begin (bench/e2e/run.py writes this block) -->"
        end = "<!-- e2e-table:end -->"
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "b.md")
            with open(path, "w") as f:
                f.write("# kernels\nkeep\n%s\nold\n%s\nafter\n" % (begin, end))
            run.update_doc(path, "NEW")
            with open(path) as f:
                self.assertEqual(f.read(), "# kernels\nkeep\n%s\nNEW\n%s\nafter\n" % (begin, end))
            with open(path, "w") as f:
                f.write("no markers\n")
            with self.assertRaisesRegex(RuntimeError, "no .* block"):
                run.update_doc(path, "NEW")

    def test_wait_for_quiet_gives_up(self):
        t = time.time()
        run.wait_for_quiet(max_load=1e-9, patience_s=0.01)  # load is never below 1e-9
        self.assertLess(time.time() - t, 6)


if __name__ == "__main__":
    unittest.main()
