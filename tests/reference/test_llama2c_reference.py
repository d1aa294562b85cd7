"""The committed llama2.c fixture is what llama2c_reference.py computes today, and the reference
itself reproduces the model authors' expected story."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(REPO, "tests/fixtures/llama2c/stories260k_reference.json")
STORY = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park."


class Llama2cReferenceTest(unittest.TestCase):
    def test_fixture_is_up_to_date(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "fixture.json")
            subprocess.run([sys.executable, os.path.join(HERE, "llama2c_reference.py"), "--out", out], check=True,
                           stdout=subprocess.DEVNULL)
            with open(out) as f:
                fresh = json.load(f)
        with open(FIXTURE) as f:
            committed = json.load(f)
        self.assertEqual(fresh, committed)

    def test_reference_tells_the_authors_story(self):
        with open(FIXTURE) as f:
            self.assertTrue(json.load(f)["greedy_text"].startswith(STORY))


if __name__ == "__main__":
    unittest.main()
