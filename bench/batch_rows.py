#!/usr/bin/env python3
"""How much decoder work a batch wastes on finished sentences, from a parallel corpus's lengths.

`heed translate` reads --read-ahead x --batch lines, sorts them by source length and translates
them --batch at a time; a batch runs until its longest output is done. Taking each reference
translation's token count (+1 for the end token) as the output length, this prints the decoder
rows that still decode (what a batch that drops its finished sentences runs) over the rows a
batch that keeps every row until the longest sentence ends would run. The second figure is
what compaction saves at most; the time saved is smaller (the encoder, and a step over fewer
rows costs more per row).

    python3 bench/batch_rows.py SRC TGT [--batch 16] [--read-ahead 8] [--lines 4096]
"""
import argparse


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", help="source sentences, one a line (whitespace tokens)")
    ap.add_argument("tgt", help="reference translations, one a line (whitespace tokens)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--read-ahead", type=int, default=8)
    ap.add_argument("--lines", type=int, default=4096, help="first N pairs (default 4096)")
    a = ap.parse_args()
    with open(a.src, encoding="utf-8") as f:
        src = [len(line.split()) for line, _ in zip(f, range(a.lines))]
    with open(a.tgt, encoding="utf-8") as f:
        tgt = [len(line.split()) + 1 for line, _ in zip(f, range(a.lines))]
    if len(src) != len(tgt) or not src:
        raise SystemExit("batch_rows.py: the two files need the same, non-zero number of lines")
    needed = kept = 0
    window = a.batch * a.read_ahead
    for w in range(0, len(src), window):
        order = sorted(range(w, min(w + window, len(src))), key=lambda i: src[i])
        for b in range(0, len(order), a.batch):
            lengths = [tgt[i] for i in order[b:b + a.batch]]
            needed += sum(lengths)
            kept += max(lengths) * len(lengths)
    print(f"{len(src)} pairs, batch {a.batch}, read-ahead {a.read_ahead}: decoder rows needed {needed}, "
          f"run when finished rows stay {kept}: {needed / kept:.3f} (at most {kept / needed:.2f}x fewer rows)")


if __name__ == "__main__":
    main()
