#!/usr/bin/env python3
"""End-to-end benchmark: `heed translate` against CTranslate2 on the same model, inputs and settings.

Every measurement is one fresh process (heed's CLI, or bench/e2e/ct2_worker.py for CTranslate2) fed
the benchmark sentences on stdin. The harness timestamps each line the process writes, and takes
the peak resident memory of that process alone from wait4(). Engines alternate within each
repetition (the order flips every repetition) and the report gives medians.

Figures per (scenario, engine):
  tokens/s      target tokens after the first batch / time from the first batch's output to the
                last line: steady-state decoding speed, model loading and start-up excluded
  e2e tokens/s  all target tokens / process wall time (start-up included)
  first ms      process spawn -> first translated line on stdout (a full-length sentence)
  start-up ms   process spawn -> the translation of one sentence with a 1-token target: loading,
                session set-up, one encoder pass and one decoder step (the latency a user feels
                before any decoding speed matters)
  peak RSS      ru_maxrss of the process
  tokens/CPU-s  all target tokens / (the process's user + system CPU time minus the median CPU time
                of the engine's start-up probe): decoding work per CPU-second. On a machine shared
                with other work this is the figure least disturbed by waiting for a core (1-thread
                scenarios; with 2 threads it measures efficiency, not speed)
The target length is fixed (min = max decoding length), so both engines do the same work whatever
the random model predicts; the harness checks every output line has exactly that many tokens.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name, threads, batch, beam
SCENARIOS = [
    ("a", "1 thread, batch 1, greedy", 1, 1, 1),
    ("b", "1 thread, batch 1, beam 4", 1, 1, 4),
    ("c", "1 thread, batch 16, beam 4", 1, 16, 4),
    ("d", "2 threads, batch 1, greedy", 2, 1, 1),
    ("e", "2 threads, batch 1, beam 4", 2, 1, 4),
]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") or line.startswith("Model"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def dir_size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path)
               if os.path.isfile(os.path.join(path, n)))


def warm_page_cache(path):
    # Every engine then starts from a model already in the page cache, as on a device that
    # translated a moment ago; cold-start from flash is a different benchmark.
    files = [path] if os.path.isfile(path) else [os.path.join(path, n) for n in os.listdir(path)]
    for name in files:
        with open(name, "rb") as f:
            while f.read(1 << 24):
                pass


class Engine:
    def __init__(self, name, kind, model, argv_for):
        self.name, self.kind, self.model, self.argv_for = name, kind, model, argv_for


def heed_engine(name, heed_bin, model, backend=None):
    """backend: None (heed's default, auto) or a `heed translate --backend` value."""
    # --read-ahead 1: batches of --batch sentences in input order, each written when done, as
    # ct2_worker.py does (by default heed reads 8 batches ahead and sorts them by length, which
    # would change both the batches and when lines appear, i.e. what tokens/s measures).
    def argv(threads, batch, beam, length):
        return [heed_bin, "translate", "-m", model, "--tokens", "--threads", str(threads), "--beam", str(beam),
                "--batch", str(batch), "--read-ahead", "1", "--max-len", str(length), "--min-len", str(length)] + (
                    ["--backend", backend] if backend else [])
    return Engine(name, "heed", model, argv)


def ct2_engine(name, python, model, compute_type):
    def argv(threads, batch, beam, length):
        return [python, os.path.join(HERE, "ct2_worker.py"), model, "--compute-type", compute_type,
                "--threads", str(threads), "--beam", str(beam), "--batch", str(batch), "--length", str(length)]
    return Engine(name, "ct2", model, argv)


def wait_for_quiet(max_load, patience_s):
    """Waits (at most patience_s) until the 1-minute load average is at most max_load."""
    deadline = time.time() + patience_s
    while max_load > 0 and os.getloadavg()[0] > max_load and time.time() < deadline:
        time.sleep(5)


def run_once(argv, inputs, batch, length):
    """Runs one process; returns its timings, peak RSS and outputs."""
    env = dict(os.environ)
    # Keep both engines honest about threads: CTranslate2 takes intra_threads, but OpenMP/MKL
    # read these too.
    env.pop("OMP_NUM_THREADS", None)
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdin.write("".join(line + "\n" for line in inputs).encode())
    proc.stdin.close()
    stamps, lines = [], []
    for raw in iter(proc.stdout.readline, b""):
        stamps.append(time.perf_counter() - t0)
        lines.append(raw.decode().rstrip("\n"))
    stderr = proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError("%s exited with %d:\n%s" % (" ".join(argv), proc.returncode, stderr.strip()))
    if len(lines) != len(inputs):
        raise RuntimeError("%s wrote %d lines for %d inputs" % (argv[0], len(lines), len(inputs)))
    counts = [len(line.split()) for line in lines]
    wrong = [i for i, n in enumerate(counts) if n != length]
    first_batch_end = min(batch, len(lines)) - 1
    steady_tokens = sum(counts[first_batch_end + 1:])
    steady_time = stamps[-1] - stamps[first_batch_end]
    return {
        "first_ms": stamps[0] * 1000,
        "tokens_per_s": steady_tokens / steady_time if steady_time > 0 else float("nan"),
        "e2e_tokens_per_s": sum(counts) / wall,
        "tokens": sum(counts),
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024.0,
        "wrong_length_lines": len(wrong),
        "load_avg": load_before,
        "outputs": lines,
        "stderr": stderr.strip(),
    }


def median(values):
    return statistics.median(values) if values else float("nan")


def summarize(runs):
    keys = ["tokens_per_s", "e2e_tokens_per_s", "tokens_per_cpu_s", "first_ms", "peak_rss_mib", "wall_s", "cpu_s",
            "load_avg"]
    return {k: median([r[k] for r in runs]) for k in keys}


def agreement(a, b):
    same = sum(1 for x, y in zip(a, b) if x == y)
    return same / len(a) if a else float("nan")


def fmt(x, digits=1):
    return ("%%.%df" % digits) % x


def markdown_table(summary, sizes, info):
    out = []
    def opt(x, digits=0):
        return "" if x != x else fmt(x, digits)
    out.append("| scenario | engine | tokens/s | e2e tokens/s | tokens/CPU-s | first translation ms "
               "| start-up ms (CPU ms) | peak RSS MiB | model on disk MiB |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in summary["rows"]:
        startup = "" if row["startup_ms"] != row["startup_ms"] else "%s (%s)" % (
            opt(row["startup_ms"]), opt(row["startup_cpu_ms"]))
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["scenario"], row["engine"], fmt(row["tokens_per_s"]), fmt(row["e2e_tokens_per_s"]),
            fmt(row["tokens_per_cpu_s"]), fmt(row["first_ms"], 0), startup,
            fmt(row["peak_rss_mib"]), fmt(sizes[row["engine"]] / 2**20)))
    out.append("")
    out.append("| scenario | heed / CTranslate2 tokens/s | e2e tokens/s ratio | tokens/CPU-s ratio | outputs identical |")
    out.append("|---|---:|---:|---:|---:|")
    for r in summary["ratios"]:
        out.append("| %s | **%.2fx** | %.2fx | %.2fx | %.0f%% |" % (
            r["scenario"], r["tokens_per_s_ratio"], r["e2e_ratio"], r["cpu_ratio"], 100 * r["identical_outputs"]))
    out.append("")
    out.append("Goals: " + "; ".join("%s: %s" % (g["goal"], "met" if g["met"] else "**missed** (%s)" % g["value"])
                                     for g in summary["goals"]) + ".")
    out.append("")
    out.append("Measured %s on %s (%d logical CPUs), load average %.2f-%.2f during the runs; heed %s, "
               "CTranslate2 %s; %d repetitions, medians; %d sentences of %s source tokens, %d target tokens each." % (
                   info["date"], info["cpu"], info["cpus"], info["load_min"], info["load_max"], info["heed_version"],
                   info["ct2_version"], info["repetitions"], info["sentences"], info["source_lengths"],
                   info["length"]))
    return "\n".join(out)


def plot(summary, info, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = {(r["scenario"], r["engine"]): r for r in summary["rows"]}
    labels = [s[1] for s in SCENARIOS if (s[1], "heed int8") in rows]
    heed = [rows[(l, "heed int8")]["tokens_per_s"] for l in labels]
    ct2 = [rows[(l, "CTranslate2 int8")]["tokens_per_s"] for l in labels]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], heed, 0.4, label="heed int8")
    ax.bar([x + 0.2 for x in xs], ct2, 0.4, label="CTranslate2 int8")
    for x, h, c in zip(xs, heed, ct2):
        ax.annotate("%.2fx" % (h / c), (x, max(h, c)), ha="center", va="bottom", fontsize=10)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([l.replace(", ", "\n") for l in labels])
    ax.set_ylabel("target tokens / s (higher is better)")
    ax.set_title("6+6-layer d512 Transformer, 32k vocab, %d target tokens, median of %d\n%s, load average %.1f-%.1f; "
                 "heed %s vs CTranslate2 %s" % (
                     info["length"], info["repetitions"], info["cpu"], info["load_min"], info["load_max"],
                     info["heed_version"], info["ct2_version"]), fontsize=9)
    ax.legend()
    ax.margins(y=0.15)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def update_doc(path, table):
    """Replaces the generated block between the e2e markers of docs/benchmarks.md."""
    begin, end = "<!-- e2e-table:begin (bench/e2e/run.py writes this block) -->", "<!-- e2e-table:end -->"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise RuntimeError("%s has no %s ... %s block" % (path, begin, end))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:i + len(begin)] + "\n" + table + "\n" + text[j:])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--heed", required=True, help="the heed binary")
    p.add_argument("--work", required=True, help="folder make_model.py wrote, with int8.heed and fp32.heed")
    p.add_argument("--python", default=sys.executable, help="python with ctranslate2 installed")
    p.add_argument("--out", required=True, help="results folder (CSV, JSON, markdown)")
    p.add_argument("--plot", help="PNG to write")
    p.add_argument("--doc", help="markdown file whose e2e-table block is replaced with the table")
    p.add_argument("--repetitions", type=int, default=3)
    p.add_argument("--length", type=int, default=32, help="target tokens per sentence")
    p.add_argument("--sentences", type=int, default=0, help="use the first N input lines (0: all)")
    p.add_argument("--scenarios", default="abcde")
    p.add_argument("--no-fp32", action="store_true", help="skip the float32 comparison")
    p.add_argument("--fp32-scenarios", default="a",
                   help="scenarios of the float32 comparison (heed auto, CTranslate2, heed --backend xnnpack, "
                        "heed --backend heed)")
    p.add_argument("--max-load", type=float, default=0,
                   help="before each run wait until the 1-minute load average is at most this (0: do not wait)")
    p.add_argument("--patience", type=float, default=120, help="longest wait for --max-load, seconds")
    a = p.parse_args()

    import ctranslate2  # the harness runs in the benchmark venv
    work = os.path.abspath(a.work)
    with open(os.path.join(work, "inputs.txt")) as f:
        inputs = [line.rstrip("\n") for line in f if line.strip()]
    if a.sentences:
        inputs = inputs[:a.sentences]
    heed_version = subprocess.run([a.heed, "--version"], capture_output=True, text=True).stdout.strip()

    int8 = [heed_engine("heed int8", a.heed, os.path.join(work, "int8.heed")),
            ct2_engine("CTranslate2 int8", a.python, os.path.join(work, "ct2-int8"), "int8")]
    # int8.heed has heed convert's default layout (int8 linear weights packed 16x4); the same
    # model with every weight row-major, when run.sh wrote it, is measured beside it.
    row_major = os.path.join(work, "int8-row-major.heed")
    if os.path.exists(row_major):
        int8.append(heed_engine("heed int8 row-major", a.heed, row_major))
    fp32_model = os.path.join(work, "fp32.heed")
    # heed float32 runs its default backend (auto: XNNPACK's f32 GEMM from 4 rows per call, heed's
    # kernels below); the XNNPACK-only path and heed's own kernels only are measured beside it.
    fp32 = [heed_engine("heed float32", a.heed, fp32_model),
            ct2_engine("CTranslate2 float32", a.python, os.path.join(work, "ct2-float32"), "float32"),
            heed_engine("heed float32 xnnpack", a.heed, fp32_model, "xnnpack"),
            heed_engine("heed float32 heed-kernels", a.heed, fp32_model, "heed")]
    plan = []  # (scenario tuple, engines)
    for s in SCENARIOS:
        if s[0] in a.scenarios:
            plan.append((s, int8))
    if not a.no_fp32:
        for s in SCENARIOS:
            if s[0] in a.fp32_scenarios:
                plan.append((s, fp32))
    sizes = {}
    for _, engines in plan:
        for e in engines:
            sizes[e.name] = dir_size(e.model)
            warm_page_cache(e.model)

    runs = {}  # (scenario label, engine name) -> [run]; ("start-up", engine name) -> [probe]
    os.makedirs(a.out, exist_ok=True)
    for rep in range(a.repetitions):
        for (key, label, threads, batch, beam), engines in plan:
            order = engines if rep % 2 == 0 else list(reversed(engines))
            for e in order:
                wait_for_quiet(a.max_load, a.patience)
                if key == "a":
                    # The start-up probe: one sentence, one target token.
                    r = run_once(e.argv_for(threads, 1, 1, 1), inputs[:1], 1, 1)
                    runs.setdefault(("start-up", e.name), []).append(r)
                r = run_once(e.argv_for(threads, batch, beam, a.length), inputs, batch, a.length)
                runs.setdefault((label, e.name), []).append(r)
                print("rep %d  %-28s %-20s %8.1f tok/s  first %6.0f ms  rss %7.1f MiB  load %.2f%s" % (
                    rep + 1, label, e.name, r["tokens_per_s"], r["first_ms"], r["peak_rss_mib"], r["load_avg"],
                    "  WRONG LENGTH x%d" % r["wrong_length_lines"] if r["wrong_length_lines"] else ""), flush=True)

    # Decoding CPU time: the run's CPU time minus what start-up costs that engine.
    for (label, name), rs in runs.items():
        startup_cpu = median([r["cpu_s"] for r in runs.get(("start-up", name), [])])
        for r in rs:
            decode_cpu = r["cpu_s"] - (0 if startup_cpu != startup_cpu or label == "start-up" else startup_cpu)
            r["tokens_per_cpu_s"] = r["tokens"] / decode_cpu if decode_cpu > 0 else float("nan")
    rows = []
    for (key, label, threads, batch, beam), engines in plan:
        for e in engines:
            s = summarize(runs[(label, e.name)])
            if key == "a":
                s["startup_ms"] = median([r["first_ms"] for r in runs[("start-up", e.name)]])
                s["startup_cpu_ms"] = median([r["cpu_s"] * 1000 for r in runs[("start-up", e.name)]])
                s["startup_rss_mib"] = median([r["peak_rss_mib"] for r in runs[("start-up", e.name)]])
            else:
                s["startup_ms"] = s["startup_cpu_ms"] = s["startup_rss_mib"] = float("nan")
            s.update(scenario=label, engine=e.name, threads=threads, batch=batch, beam=beam,
                     model_bytes=sizes[e.name],
                     wrong_length_lines=sum(r["wrong_length_lines"] for r in runs[(label, e.name)]))
            rows.append(s)
    by = {(r["scenario"], r["engine"]): r for r in rows}
    ratios = []
    for (key, label, threads, batch, beam), engines in plan:
        # Every heed engine against the CTranslate2 engine (engines[1]) of its comparison.
        c = by[(label, engines[1].name)]
        for e in [engines[0]] + list(engines[2:]):
            h = by[(label, e.name)]
            suffix = " (int8)" if engines is int8 else " (float32)"
            if e is not engines[0]:
                suffix = " (%s)" % e.name.replace("heed ", "")
            ratios.append({
                "scenario": label + suffix,
                "tokens_per_s_ratio": h["tokens_per_s"] / c["tokens_per_s"],
                "e2e_ratio": h["e2e_tokens_per_s"] / c["e2e_tokens_per_s"],
                "cpu_ratio": h["tokens_per_cpu_s"] / c["tokens_per_cpu_s"],
                "identical_outputs": agreement(runs[(label, e.name)][0]["outputs"],
                                               runs[(label, engines[1].name)][0]["outputs"]),
            })
    goals = []
    ratio_of = {r["scenario"].replace(" (int8)", ""): r["tokens_per_s_ratio"] for r in ratios if "(int8)" in r["scenario"]}
    if SCENARIOS[0][1] in ratio_of:
        v = ratio_of[SCENARIOS[0][1]]
        goals.append({"goal": "greedy 1 thread >= 1.5x", "met": v >= 1.5, "value": "%.2fx" % v})
        h = by[(SCENARIOS[0][1], "heed int8")]
        goals.append({"goal": "start-up (spawn to a 1-token translation) <= 50 ms", "met": h["startup_ms"] <= 50,
                      "value": "%.0f ms" % h["startup_ms"]})
        goals.append({"goal": "peak RSS at batch 1 <= .heed size + 32 MiB",
                      "met": h["peak_rss_mib"] <= sizes["heed int8"] / 2**20 + 32,
                      "value": "%.1f MiB > %.1f MiB" % (h["peak_rss_mib"], sizes["heed int8"] / 2**20 + 32)})
    if SCENARIOS[1][1] in ratio_of:
        v = ratio_of[SCENARIOS[1][1]]
        goals.append({"goal": "beam 4 >= 1.2x", "met": v >= 1.2, "value": "%.2fx" % v})

    loads = [r["load_avg"] for rs in runs.values() for r in rs]
    info = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu_model(), "cpus": os.cpu_count(),
        "load_min": min(loads), "load_max": max(loads),
        "heed_version": heed_version.replace("heed ", ""), "ct2_version": ctranslate2.__version__,
        "repetitions": a.repetitions, "sentences": len(inputs), "length": a.length,
        "source_lengths": "%d-%d" % (min(len(l.split()) for l in inputs), max(len(l.split()) for l in inputs)),
    }
    summary = {"info": info, "rows": rows, "ratios": ratios, "goals": goals}
    table = markdown_table(summary, sizes, info)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"summary": summary,
                   "runs": {"%s | %s" % k: [{x: y for x, y in r.items() if x != "outputs"} for r in v]
                            for k, v in runs.items()}}, f, indent=2)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(table + "\n")
    if a.plot:
        plot(summary, info, a.plot)
    if a.doc:
        update_doc(a.doc, table)
    print()
    print(table)
    bad = sum(r["wrong_length_lines"] for r in rows)
    if bad:
        print("\nwarning: %d output lines did not have exactly %d tokens: the engines did different work" %
              (bad, a.length), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
