#!/usr/bin/python3
"""`heed translate --attention FILE.svg --attention-json FILE` end to end.

    attention_cli_test.py "EMULATOR" HEED SOURCE_DIR SHARED_DIR WORK_DIR   (EMULATOR may be empty)

RNN (the luong_general zoo model, fp32): the JSON matrices of six morph validation words equal
PyTorch's attention weights (tests/fixtures/rnn/luong_general/attention.json) and are
near-diagonal; Transformer (aren, fp32): every layer and head equals the NumPy reference
(tests/fixtures/aren/aren_cross_attention.json). For both the SVG parses as XML, holds one block
per non-empty input line, one panel per shown head (Transformer: the last layer's heads and their
mean) with one cell per (target, source) whose tooltip value is the JSON's, and labels that are
the tokens (XML special characters included). Standard library only.
"""
import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        print("command failed:", " ".join(cmd), p.stderr, file=sys.stderr)
        sys.exit(1)
    return p.stdout


def svg_blocks(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    check(root.tag == SVG + "svg", "root element is <svg>")
    return [g for g in root.iter(SVG + "g") if g.get("class") == "sentence"]


def panels_of(block):
    out = []
    for g in block.iter(SVG + "g"):
        if g.get("class") != "panel":
            continue
        texts = {c: [t.text or "" for t in g.iter(SVG + "text") if t.get("class") == c] for c in ("source", "target")}
        cells = [r for r in g.iter(SVG + "rect") if r.get("class") == "cell"]
        values = [float(r.find(SVG + "title").text.rsplit(": ", 1)[1]) for r in cells]
        out.append((texts["source"], texts["target"], values))
    return out


def close(a, b, tol):
    return abs(a - b) <= tol


def main():
    emu, heed, source_dir, shared, work = sys.argv[1:6]
    heed_cmd = shlex.split(emu) + [heed]
    os.makedirs(work, exist_ok=True)

    # --- RNN seq2seq: luong_general on morph validation words, greedy.
    fixture = os.path.join(source_dir, "tests/fixtures/rnn/luong_general")
    model = os.path.join(work, "luong_general.heed")
    run(heed_cmd + ["convert", "--from", "torch-seq2seq", fixture, "-o", model, "--quantize", "float32", "--quiet"])
    with open(os.path.join(fixture, "attention.json"), encoding="utf-8") as f:
        ref = [s for s in json.load(f)["sentences"] if not s["hard"]]
    # An empty line (no block) and a line of tokens that need XML escaping (unknown: <unk> ids).
    lines = [" ".join(s["source_tokens"]) for s in ref[:3]] + ["", "< & \" '"] + [" ".join(s["source_tokens"]) for s in ref[3:]]
    svg, js = os.path.join(work, "rnn.svg"), os.path.join(work, "rnn.jsonl")
    out = run(heed_cmd + ["translate", "-m", model, "--tokens", "--beam", "1", "--attention", svg,
                          "--attention-json", js], "\n".join(lines) + "\n")
    check(len(out.splitlines()) == len(lines), "one output line per input line")
    with open(js, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    check([r["line"] for r in records] == [0, 1, 2, 4, 5, 6, 7], "JSON lines for the non-empty lines: %s" % [r["line"] for r in records])
    check(records[3]["source"] == ["<", "&", "\"", "'"], "escaped tokens kept in JSON: %s" % records[3]["source"])
    by_line = {r["line"]: r for r in records}
    for k, s in enumerate(ref):
        line = k if k < 3 else k + 2
        r = by_line[line]
        check(r["layers"] == 1 and r["heads"] == 1 and len(r["panels"]) == 1, "RNN: one panel")
        w = r["panels"][0]["weights"]
        check(r["source"] == s["source_tokens"], "RNN line %d: source labels" % line)
        check(len(w) == len(s["ids"]) and r["target"][-1] == "</s>", "RNN line %d: one row per token, </s> last" % line)
        for t, (row, ref_row) in enumerate(zip(w, s["attention"])):
            check(all(close(a, b, 1e-4) for a, b in zip(row, ref_row)) and len(row) == len(ref_row),
                  "RNN line %d step %d: equals PyTorch" % (line, t))
            check(close(sum(row), 1.0, 1e-4), "RNN line %d step %d: row sums to 1" % (line, t))
        argmax = [max(range(len(row)), key=row.__getitem__) for row in w]
        check(sum(b >= a for a, b in zip(argmax, argmax[1:])) >= len(argmax) - 2,
              "RNN line %d: near-diagonal (argmax %s)" % (line, argmax))
    blocks = svg_blocks(svg)
    check([int(b.get("data-line")) for b in blocks] == [r["line"] for r in records], "SVG: one block per JSON line")
    for b, r in zip(blocks, records):
        panels = panels_of(b)
        check(len(panels) == 1, "RNN SVG: one panel")
        src, tgt, values = panels[0]
        check(src == r["source"] and tgt == r["target"], "RNN SVG line %d: labels are the tokens" % r["line"])
        flat = [v for row in r["panels"][0]["weights"] for v in row]
        check(len(values) == len(r["source"]) * len(r["target"]), "RNN SVG line %d: one cell per (target, source)" % r["line"])
        check(all(close(a, b, 1e-5 + 1e-5 * abs(b)) for a, b in zip(values, flat)), "RNN SVG line %d: cell values" % r["line"])

    # --- Transformer: aren, beam 1 and beam 4 give the same greedy-reference matrices here.
    aren = os.path.join(work, "aren.heed")
    run(heed_cmd + ["convert", os.path.join(shared, "models/ct2/aren-transliteration"), "-o", aren,
                    "--quantize", "float32", "--quiet"])
    with open(os.path.join(source_dir, "tests/fixtures/aren/aren_cross_attention.json"), encoding="utf-8") as f:
        aref = json.load(f)["sentences"]
    svg, js = os.path.join(work, "aren.svg"), os.path.join(work, "aren.jsonl")
    run(heed_cmd + ["translate", "-m", aren, "--tokens", "--beam", "1", "--attention", svg, "--attention-json", js],
        "\n".join(" ".join(s["source"]) for s in aref) + "\n")
    with open(js, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    check(len(records) == len(aref), "aren: one JSON line per sentence")
    for r, s in zip(records, aref):
        layers, heads = len(s["attention"]), len(s["attention"][0])
        check(r["layers"] == layers and r["heads"] == heads and len(r["panels"]) == layers * heads,
              "aren: %d layers x %d heads" % (layers, heads))
        check(r["target"] == s["target"] + ["</s>"], "aren: target labels %s" % r["target"])
        for p in r["panels"]:
            ref_m = s["attention"][p["layer"]][p["head"]]
            ok = len(p["weights"]) == len(ref_m) and all(
                close(a, b, 1e-4) for row, rrow in zip(p["weights"], ref_m) for a, b in zip(row, rrow))
            check(ok, "aren line %d layer %d head %d: equals the NumPy reference" % (r["line"], p["layer"], p["head"]))
    blocks = svg_blocks(svg)
    check(len(blocks) == len(records), "aren SVG: one block per sentence")
    for b, r in zip(blocks, records):
        panels = panels_of(b)
        check(len(panels) == r["heads"] + 1, "aren SVG: the last layer's heads and their mean")
        last = [p for p in r["panels"] if p["layer"] == r["layers"] - 1]
        for (src, tgt, values), p in zip(panels, last):
            check(src == r["source"] and tgt == r["target"], "aren SVG: labels")
            flat = [v for row in p["weights"] for v in row]
            check(len(values) == len(flat) and all(close(a, b, 1e-5 + 1e-5 * abs(b)) for a, b in zip(values, flat)),
                  "aren SVG head %d: one cell per (target, source) with the JSON's value" % p["head"])
        mean = [sum(vals) / len(last) for vals in zip(*[[v for row in p["weights"] for v in row] for p in last])]
        check(all(close(a, b, 1e-4) for a, b in zip(panels[-1][2], mean)), "aren SVG: mean of the heads")

    # --- Errors: an unwritable path is one clear line, exit 1, and no partial file.
    bad = os.path.join(work, "missing-dir", "x.svg")
    p = subprocess.run(heed_cmd + ["translate", "-m", model, "--tokens", "--attention", bad], input="a b\n",
                       capture_output=True, text=True)
    check(p.returncode == 1 and p.stderr.startswith("heed translate: ") and len(p.stderr.splitlines()) == 1,
          "unwritable --attention path: exit %d, %r" % (p.returncode, p.stderr))
    check(not os.path.exists(bad), "no file at an unwritable path")

    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
