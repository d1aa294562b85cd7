"""heed convert's self-check of a decoder LM (the summary's last line, and heed.convert's
check_* fields): besides the calibration lines' NLL, on how many lines the converted model's
16-token greedy continuation is the float32 model's. The figures are checked against what
`heed generate` gives on the two files written (the int8 default and a float32 conversion of the
same real model, stories260K), so they describe the files the user gets."""
import os
import re

import heed
import pytest

TOKENS = 16
LINES = [
    "Once upon a time, there was a little dog.",
    "Lily went to the park with her mom.",
    "Tom had a big red ball.",
    "The sun was hot and the sky was blue.",
    "One day, a bird flew into the garden.",
    "Sam was sad because he lost his toy.",
    "The cat liked to sleep in the sun.",
    "Mom said, \"Let's go home now.\"",
    "They played all day and were very happy.",
    "Ben wanted to help his friend.",
    "There was a big tree near the house.",
    "The little girl saw a pretty flower.",
    "He ran fast to catch the bus.",
    "Anna found a shiny stone by the river.",
    "The bear was hungry and looked for honey.",
    "At night, the stars were bright.",
]
SELF_CHECK = re.compile(r"self-check on (\d+) calibration lines: ([0-9.]+) nats/token \(float32 model: ([0-9.]+), "
                        r"[-+0-9.]+ %\); greedy continuation of (\d+) tokens equal to the float32 model's on "
                        r"(\d+)/(\d+) lines \(its first (\d+) % on average\)")


def _continuations(run, model):
    """heed generate's 16-token greedy continuation of each line; the end token (which --ids does
    not print) appended when the model stopped before the budget, as the self-check counts it."""
    out = run("generate", "-m", model, "--ids", "--max-len", str(TOKENS), stdin="\n".join(LINES) + "\n")
    rows = [[int(i) for i in line.split()] for line in out.splitlines()]
    assert len(rows) == len(LINES), out
    return [row + ["end"] if len(row) < TOKENS else row for row in rows]


def _agreement(converted, reference):
    same = sum(a == b for a, b in zip(converted, reference))
    shares = []
    for a, b in zip(converted, reference):
        kept = 0
        while kept < min(len(a), len(b)) and a[kept] == b[kept]:
            kept += 1
        shares.append(kept / len(b))
    return same, 100.0 * sum(shares) / len(shares)


@pytest.fixture(scope="module")
def stories(shared):
    return os.path.join(shared, "models/llama2c/stories260k")


def test_self_check_counts_the_continuations_heed_generate_gives(tmp_path, run, stories):
    calibration = tmp_path / "lines.txt"
    calibration.write_text("\n".join(LINES) + "\n")
    int8, float32 = str(tmp_path / "int8.heed"), str(tmp_path / "float32.heed")
    out = run("convert", stories, "-o", int8, "--calibration", str(calibration))
    found = SELF_CHECK.search(out)
    assert found, out
    lines, nll, nll_float, tokens, same, total, share = found.groups()
    assert int(lines) == int(total) == len(LINES) and int(tokens) == TOKENS
    run("convert", stories, "-o", float32, "--quantize", "float32")
    expected_same, expected_share = _agreement(_continuations(run, int8), _continuations(run, float32))
    assert int(same) == expected_same and abs(int(share) - expected_share) <= 0.5, (out, expected_same, expected_share)
    # heed.convert reports the same figures (the same pipeline).
    summary = heed.convert(stories, str(tmp_path / "py.heed"), calibration=str(calibration))
    assert summary["check_continuation_tokens"] == TOKENS
    assert summary["check_same_continuations"] == expected_same
    assert abs(100.0 * summary["check_matched_prefix"] - expected_share) < 1e-9
    assert summary["check_nll_converted"] == pytest.approx(float(nll), abs=1e-4)
    assert summary["check_nll_float"] == pytest.approx(float(nll_float), abs=1e-4)
