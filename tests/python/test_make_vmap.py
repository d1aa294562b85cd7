"""scripts/make_vmap.py on a corpus small enough to count by hand."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_vmap(tmp_path, *options):
    (tmp_path / "src").write_text("a b\na c\nb c\n", encoding="utf-8")
    (tmp_path / "tgt").write_text("x y\nx z\ny z\n", encoding="utf-8")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/make_vmap.py"), str(tmp_path / "src"),
                        str(tmp_path / "tgt")] + list(options), capture_output=True, text=True, check=True)
    return p.stdout.splitlines()


def test_each_source_token_gets_its_strongest_targets(tmp_path):
    # a, b, c and x, y, z are in 2 sentences each; a-x, b-y and c-z share 2 (Dice 1.0), every other
    # pair 1 (Dice 0.5), below the default --min-count 2.
    assert make_vmap(tmp_path, "--frequent", "2") == ["\tx y", "a\tx", "b\ty", "c\tz"]


def test_top_and_min_count(tmp_path):
    # With pairs seen once allowed: the Dice 1.0 target first, then the 0.5 ones by token.
    assert make_vmap(tmp_path, "--frequent", "0", "--min-count", "1", "--top", "2") == ["a\tx y", "b\ty x", "c\tz x"]
