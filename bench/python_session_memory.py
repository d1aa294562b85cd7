#!/usr/bin/env python3
"""Memory of a Python Translator over a sequence of beam sizes: heed against CTranslate2.

Each measurement runs in its own process: the resident and peak memory (VmRSS, VmHWM) after a
Translator opened `--model` (a CTranslate2 folder, or a .heed file for heed alone) and translated
the first `--sentences` lines of `--inputs` (space-separated tokens) at each beam in turn, with
`--max-decoding-length` (heed plans its session for it; CTranslate2 grows its caches as it decodes). The docs' figure: beams 1..16 in turn against beam 16 alone.

    build/venv/bin/python bench/python_session_memory.py --model build/armproxy/model/ct2base \\
        --inputs build/armproxy/inputs/sents.txt
"""
import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys
module, model, inputs, count, beams, length = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
backend = __import__(module)
with open(inputs, encoding="utf-8") as f:
    sources = [line.split() for line in f.read().splitlines()[:count]]
translator = backend.Translator(model, compute_type="default") if module == "heed" else backend.Translator(model)
for beam in [int(b) for b in beams.split(",")]:
    translator.translate_batch(sources, beam_size=beam, max_decoding_length=length, max_batch_size=len(sources))
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(json.dumps({k: int(status[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM")}))
"""


def measure(module, model, inputs, count, beams, length):
    out = subprocess.run([sys.executable, "-c", CHILD, module, model, inputs, str(count), beams, str(length)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a CTranslate2 model folder")
    parser.add_argument("--inputs", required=True, help="source sentences, space-separated tokens per line")
    parser.add_argument("--sentences", type=int, default=4, help="sentences per call (default 4)")
    parser.add_argument("--largest", type=int, default=16, help="the largest beam (default 16)")
    parser.add_argument("--max-decoding-length", type=int, default=256, help="as translate_batch's (default 256)")
    args = parser.parse_args()
    every = ",".join(str(b) for b in range(1, args.largest + 1))
    print("| backend | beams | VmRSS MiB | VmHWM MiB |")
    print("|---|---|---|---|")
    for module in ("heed", "ctranslate2"):
        for beams in (str(args.largest), every):
            m = measure(module, args.model, args.inputs, args.sentences, beams, args.max_decoding_length)
            label = beams if beams == str(args.largest) else "1..%d in turn" % args.largest
            print("| %s | %s | %d | %d |" % (module, label, m["VmRSS"], m["VmHWM"]), flush=True)


if __name__ == "__main__":
    main()
