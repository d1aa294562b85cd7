#!/usr/bin/env python3
"""heed translate with and without the vocabulary shortlist (--use-vmap) on the e2e model.

The e2e model (bench/e2e/make_model.py) has random weights and a synthetic vocabulary ("w4" ..
"w31999"), so a map learned from its own outputs would mean nothing. What the shortlist's speed
depends on is how many candidates a batch has, and that comes from real text: this script maps
the words of a real English-German corpus (SHARED/data/wmt-ende-10k) onto the synthetic
vocabulary by frequency rank (the k-th most frequent word of each side becomes "w{k+4}"), builds
the map from the training pairs with scripts/make_vmap.py (top 50 per source word, 100 frequent
targets: a lex.50.50-like table), converts the model with it and runs `heed bench` on test
sentences, alternating the two settings in one process tree. The model's outputs differ between
the settings (its chosen tokens are random, not in the map), so this measures speed only;
tests/runtime/models/test_vocab_shortlist.cpp checks outputs.

    python3 bench/vmap_e2e.py --heed build/host/tools/heed --model-dir /tmp/e2e/model/ct2-int8 \
        --shared ../shared --work /tmp/vmap-bench
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST_ID = 4       # the e2e vocabulary's first ordinary token, "w4"
VOCAB = 32000


def ranks(path):
    counts = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            counts.update(line.split())
    return {w: "w%d" % (FIRST_ID + i) for i, (w, _) in enumerate(counts.most_common(VOCAB - FIRST_ID))}


def mapped(path, rank, out_path, limit=None):
    lines = 0
    with open(path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for line in f:
            words = [rank[w] for w in line.split() if w in rank]
            if not words:
                continue
            out.write(" ".join(words) + "\n")
            lines += 1
            if limit is not None and lines == limit:
                break
    return lines


def load_map(path):
    always, rules = set(), {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, targets = line.rstrip("\n").partition("\t")
            if key == "":
                always.update(targets.split())
            else:
                rules[key] = targets.split()
    return always, rules


def mean_candidates(inputs, always, rules, batch):
    """Candidates per batch as the runtime computes them (unigram map; unk, bos and eos added)."""
    with open(inputs, encoding="utf-8") as f:
        lines = [line.split() for line in f]
    sizes = []
    for first in range(0, len(lines), batch):
        union = set(always) | {"<unk>", "<s>", "</s>"}
        for words in lines[first:first + batch]:
            for w in words:
                union.update(rules.get(w, ()))
        sizes.append(len(union))
    return sum(sizes) / len(sizes)


def bench(heed, model, inputs, scenario, use_vmap, repeat):
    cmd = [heed, "bench", "-m", model, "--input", inputs, "--repeat", str(repeat), "--json"] + scenario.split()
    if use_vmap:
        cmd.append("--use-vmap")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# CTranslate2 on the same folder (its vmap.txt beside model.bin), one thread: the median tokens/s of
# --repeat timed passes after one untimed one, as heed bench reports them.
CT2_WORKER = r"""
import sys, time, ctranslate2
model, inputs, batch, beam, length, repeat, use_vmap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5]), int(sys.argv[6]), sys.argv[7] == "1"
t = ctranslate2.Translator(model, device="cpu", compute_type="int8", intra_threads=1, inter_threads=1)
sources = [line.split() for line in open(inputs, encoding="utf-8")]
def run():
    start = time.perf_counter()
    for i in range(0, len(sources), batch):
        t.translate_batch(sources[i:i + batch], beam_size=beam, max_batch_size=batch, max_decoding_length=length,
                          min_decoding_length=length, use_vmap=use_vmap)
    return len(sources) * length / (time.perf_counter() - start)
run()
speeds = sorted(run() for _ in range(repeat))
print(speeds[len(speeds) // 2])
"""


def ct2_bench(python, folder, inputs, scenario, use_vmap, repeat):
    options = scenario.split()
    value = lambda name, default: int(options[options.index(name) + 1]) if name in options else default
    out = subprocess.run([python, "-c", CT2_WORKER, folder, inputs, str(value("--batch", 1)), str(value("--beam", 1)),
                          str(value("--length", 32)), str(repeat), "1" if use_vmap else "0"],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heed", required=True)
    parser.add_argument("--model-dir", required=True, help="the e2e model's ct2-int8 folder")
    parser.add_argument("--shared", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--sentences", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--ct2-python", help="a Python with ctranslate2: CTranslate2 with and without use_vmap too")
    parser.add_argument("--baseline", help="another heed build, run on the whole vocabulary first (ratios to it)")
    parser.add_argument("--scenario", action="append",
                        help="heed bench options (default: '--batch 16 --beam 4 --length 32' and "
                             "'--batch 1 --beam 1 --length 32')")
    args = parser.parse_args()
    scenarios = args.scenario or ["--batch 16 --beam 4 --length 32", "--batch 1 --beam 1 --length 32"]
    os.makedirs(args.work, exist_ok=True)
    data = os.path.join(args.shared, "data", "wmt-ende-10k")
    src_rank, tgt_rank = ranks(os.path.join(data, "src-train.txt")), ranks(os.path.join(data, "tgt-train.txt"))
    w = lambda name: os.path.join(args.work, name)
    mapped(os.path.join(data, "src-train.txt"), src_rank, w("train.src"))
    mapped(os.path.join(data, "tgt-train.txt"), tgt_rank, w("train.tgt"))
    inputs = w("inputs.txt")
    mapped(os.path.join(data, "src-test.txt"), src_rank, inputs, args.sentences)
    with open(w("vmap.txt"), "w", encoding="utf-8") as out:
        subprocess.run([sys.executable, os.path.join(HERE, "..", "scripts", "make_vmap.py"), w("train.src"),
                        w("train.tgt")], check=True, stdout=out)
    model = w("e2e-vmap.heed")
    if os.path.exists(model):
        os.remove(model)
    subprocess.run([args.heed, "convert", "--from", "ct2", args.model_dir, "-o", model, "--vmap", w("vmap.txt")],
                   check=True)
    always, rules = load_map(w("vmap.txt"))
    settings = [("whole vocabulary", args.heed, False), ("shortlist", args.heed, True)]
    if args.baseline:
        settings.insert(0, ("baseline build, whole vocabulary", args.baseline, False))
    ct2_folder = w("ct2-vmap")
    if args.ct2_python:
        if os.path.exists(ct2_folder):
            shutil.rmtree(ct2_folder)
        shutil.copytree(args.model_dir, ct2_folder)
        shutil.copy(w("vmap.txt"), os.path.join(ct2_folder, "vmap.txt"))
        settings += [("CTranslate2, whole vocabulary", "ct2", False), ("CTranslate2, use_vmap", "ct2", True)]
    for scenario in scenarios:
        batch = int(scenario.split("--batch")[1].split()[0]) if "--batch" in scenario else 1
        print("%s: %.0f candidates per batch on average (of %d)" %
              (scenario, mean_candidates(inputs, always, rules, batch), VOCAB))
        runs = {label: [] for label, _, _ in settings}
        for _ in range(args.rounds):
            for label, heed, use_vmap in settings:
                if heed == "ct2":
                    runs[label].append(ct2_bench(args.ct2_python, ct2_folder, inputs, scenario, use_vmap, args.repeat))
                else:
                    runs[label].append(bench(heed, model, inputs, scenario, use_vmap, args.repeat)["tokens_per_s"])
        medians = {label: sorted(r)[len(r) // 2] for label, r in runs.items()}
        first = settings[0][0]
        for label, _, _ in settings:
            print("  %-34s %8.1f tokens/s (runs %s) %5.2fx" %
                  (label, medians[label], " ".join("%.1f" % v for v in runs[label]), medians[label] / medians[first]))

if __name__ == "__main__":
    main()
