#!/usr/bin/env python3
"""Turns heed_bench_kernels' Google Benchmark JSON into an SVG plot of int8 GEMM throughput.

One panel per weight shape (attn, ffn1, ffn2, vocab): GOPS against M (rows of A) for every
variant and weight layout in the file (gemm_i8 = row-major, gemm_i8_packed = the 16x4 layout),
plus one panel with the 1 GiB GEMV's weight bandwidth against the measured read bandwidth.
Standard library only: the SVG is written directly (no matplotlib needed).

  build/host/bench/heed_bench_kernels --benchmark_filter='gemm_i8|memory|peak' \\
      --benchmark_out=gemm.json --benchmark_out_format=json
  python3 bench/plot_gemm.py gemm.json docs/img/gemm_i8.svg
"""
import json
import math
import re
import sys
from collections import defaultdict

SHAPES = ["attn", "ffn1", "ffn2", "vocab"]
DIMS = {"attn": "attn N 512 x K 512", "ffn1": "ffn1 N 2048 x K 512", "ffn2": "ffn2 N 512 x K 2048",
        "vocab": "vocab N 32000 x K 512"}
COLORS = {"avx512vnni": "#1f77b4", "avx2": "#d62728", "dotprod": "#2ca02c", "neon": "#9467bd",
          "i8mm": "#8c564b", "armv7": "#e377c2", "scalar": "#7f7f7f"}
NAME = re.compile(r"^(gemm_i8(?:_packed)?)/([^/]+)/([^/]+)/m(\d+)_n(\d+)_k(\d+)")


def load(path):
    """(kernel, isa, shape) -> {m: GOPS}, gemv_large (kernel, isa) -> GB/s, and bandwidth GB/s."""
    with open(path) as f:
        data = json.load(f)
    series = defaultdict(dict)
    gemv = {}
    bandwidth = None
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b["name"]
        if name.startswith("memory/") and "GBps" in b:
            bandwidth = b["GBps"]
            if bandwidth > 1e6:  # a rate counter: the JSON holds bytes per second
                bandwidth *= 1e-9
        m = NAME.match(name)
        if not m:
            continue
        kernel, isa, shape, rows = m.group(1), m.group(2), m.group(3), int(m.group(4))
        if shape == "gemv_large":
            gemv[(kernel, isa)] = b["GBps"]
        elif shape in SHAPES:
            series[(kernel, isa, shape)][rows] = b["GOPS"]
    if bandwidth is None and gemv:  # derive it from any pct_bw counter
        for b in data["benchmarks"]:
            if "gemv_large" in b["name"] and b.get("pct_bw"):
                bandwidth = b["GBps"] * 100.0 / b["pct_bw"]
                break
    return series, gemv, bandwidth


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;")


def plot(series, gemv, bandwidth, title):
    pw, ph, ml, mt, mb, gap = 250, 230, 55, 50, 45, 20
    panels = len(SHAPES) + (1 if gemv else 0)
    width = ml + panels * (pw + gap) + 10
    height = mt + ph + mb + 25 * (1 + len({(k, i) for k, i, _ in series}) // 4)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">{esc(title)}</text>']
    ymax = max((v for s in series.values() for v in s.values()), default=1.0)
    top = 10 ** math.ceil(math.log10(ymax)) if ymax > 0 else 1.0
    for step in (0.2, 0.25, 0.4, 0.5, 0.6, 0.8, 1.0):
        if ymax <= top * step:
            top *= step
            break
    rows = sorted({m for s in series.values() for m in s})
    keys = sorted({(k, i) for k, i, _ in series}, key=lambda t: (t[1], t[0]))

    def xpos(x0, m):
        if len(rows) < 2:
            return x0 + pw / 2
        lo, hi = math.log2(rows[0]), math.log2(rows[-1])
        return x0 + 10 + (pw - 20) * (math.log2(m) - lo) / (hi - lo)

    for p, shape in enumerate(SHAPES):
        x0 = ml + p * (pw + gap)
        out.append(f'<rect x="{x0}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        out.append(f'<text x="{x0 + pw / 2}" y="{mt - 8}" text-anchor="middle">{DIMS[shape]}</text>')
        for t in range(6):
            v = top * t / 5
            y = mt + ph - ph * t / 5
            out.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + pw}" y2="{y}" stroke="#eee"/>')
            if p == 0:
                out.append(f'<text x="{x0 - 4}" y="{y + 4}" text-anchor="end">{v:g}</text>')
        for m in rows:
            out.append(f'<text x="{xpos(x0, m)}" y="{mt + ph + 14}" text-anchor="middle">{m}</text>')
        out.append(f'<text x="{x0 + pw / 2}" y="{mt + ph + 30}" text-anchor="middle">M (rows of A)</text>')
        for kernel, isa in keys:
            pts = series.get((kernel, isa, shape), {})
            if not pts:
                continue
            color = COLORS.get(isa, "black")
            dash = "" if kernel == "gemm_i8_packed" else ' stroke-dasharray="5,3"'
            xy = [(xpos(x0, m), mt + ph - ph * min(v, top) / top) for m, v in sorted(pts.items())]
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="' +
                       " ".join(f"{x:.1f},{y:.1f}" for x, y in xy) + '"/>')
            for x, y in xy:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{color}"/>')
    out.append(f'<text transform="translate(14,{mt + ph / 2}) rotate(-90)" text-anchor="middle">'
               'GOPS (2MNK / thread CPU time)</text>')
    if gemv:  # bars: GB/s of the 1 GiB GEMV per kernel, and the measured bandwidth as a line
        x0 = ml + len(SHAPES) * (pw + gap)
        out.append(f'<rect x="{x0}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        out.append(f'<text x="{x0 + pw / 2}" y="{mt - 8}" text-anchor="middle">GEMV, 1 GiB of weights (GB/s)</text>')
        gtop = max(list(gemv.values()) + [bandwidth or 0]) * 1.15
        items = sorted(gemv.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        bw = (pw - 20) / max(1, len(items))
        for j, ((kernel, isa), v) in enumerate(items):
            h = ph * v / gtop
            x = x0 + 10 + j * bw
            color = COLORS.get(isa, "black")
            opacity = "1" if kernel == "gemm_i8_packed" else "0.45"
            out.append(f'<rect x="{x + 3:.1f}" y="{mt + ph - h:.1f}" width="{bw - 6:.1f}" height="{h:.1f}" '
                       f'fill="{color}" fill-opacity="{opacity}"/>')
            out.append(f'<text x="{x + bw / 2:.1f}" y="{mt + ph - h - 3:.1f}" text-anchor="middle">{v:.1f}</text>')
            layout = "packed" if kernel == "gemm_i8_packed" else "row-major"
            out.append(f'<text x="{x + bw / 2:.1f}" y="{mt + ph + 14}" text-anchor="middle" font-size="9">{esc(isa)}</text>')
            out.append(f'<text x="{x + bw / 2:.1f}" y="{mt + ph + 26}" text-anchor="middle" font-size="9">{layout}</text>')
        if bandwidth:
            y = mt + ph - ph * bandwidth / gtop
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + pw}" y2="{y:.1f}" stroke="black" stroke-dasharray="3,3"/>')
            out.append(f'<text x="{x0 + 4}" y="{y - 4:.1f}" font-size="9">measured read bandwidth {bandwidth:.1f}</text>')
    ly = mt + ph + 50
    for j, (kernel, isa) in enumerate(keys):
        x = ml + (j % 4) * 250
        y = ly + (j // 4) * 18
        color = COLORS.get(isa, "black")
        dash = "" if kernel == "gemm_i8_packed" else ' stroke-dasharray="5,3"'
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 30}" y2="{y}" stroke="{color}" stroke-width="2"{dash}/>')
        label = ("packed 16x4 " if kernel == "gemm_i8_packed" else "row-major ") + isa
        out.append(f'<text x="{x + 36}" y="{y + 4}">{esc(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: plot_gemm.py BENCH.json OUT.svg [TITLE]")
    series, gemv, bandwidth = load(sys.argv[1])
    if not series:
        sys.exit(f"plot_gemm.py: no gemm_i8 benchmarks in {sys.argv[1]}")
    title = sys.argv[3] if len(sys.argv) == 4 else "heed int8 GEMM, one core"
    with open(sys.argv[2], "w") as f:
        f.write(plot(series, gemv, bandwidth, title))


if __name__ == "__main__":
    main()
