#!/usr/bin/env python3
"""int8 schemes on a sentence encoder, side by side: fidelity against float32 and speed.

    bench/encoder_int8.py HEED MODEL_DIR SENTENCES [--repeat N] [--blocks 0,16,32,64,32+8]

Converts MODEL_DIR (a Hugging Face BERT / sentence-transformers folder) to float32 and to int8 with
each --blocks scheme: B is --activation-block B (0: one scale per row) without outlier channels,
B+C adds --outlier-channels C (the C widest input channels of each layer in float32, found on the
converter's built-in calibration lines). It embeds every line of SENTENCES with each (one
thread, `heed embed` with the model's defaults), and prints a Markdown table: the cosine similarity
of each int8 embedding to the float32 one (lowest, mean, how many reach 0.999) and the CPU time of
embedding the sentences REPEAT times, as a ratio to float32 (user time, so another process on the
machine disturbs it less than wall time). Standard library only.
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile

from compare_builds import cpu_model  # the CPU's name, as every bench/ script reports it


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode("utf-8", "replace")))
    return p.stdout


def embed(heed, model, text):
    out = run([heed, "embed", "-m", model, "--threads", "1"], text.encode("utf-8"))
    return [json.loads(line)["embedding"] for line in out.decode("utf-8").splitlines()]


def user_seconds(heed, model, text):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    run([heed, "embed", "-m", model, "--threads", "1"], text.encode("utf-8"))
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("heed")
    ap.add_argument("model_dir")
    ap.add_argument("sentences")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--blocks", default="0,16,32,64,32+8")
    args = ap.parse_args()
    with open(args.sentences, encoding="utf-8") as f:
        text = f.read()
    timed = text * args.repeat
    with tempfile.TemporaryDirectory() as work:
        f32 = os.path.join(work, "f32.heed")
        run([args.heed, "convert", args.model_dir, "-o", f32, "--quantize", "float32", "--quiet"])
        reference = embed(args.heed, f32, text)
        f32_time = user_seconds(args.heed, f32, timed)
        print("%s, %d sentences, one thread; time: %d passes, user CPU seconds" % (cpu_model(), len(reference), args.repeat))
        print()
        print("| scheme | lowest cosine | mean cosine | >= 0.999 | time (s) | speed vs float32 |")
        print("|---|---|---|---|---|---|")
        print("| float32 | 1 | 1 | %d | %.2f | 1.00x |" % (len(reference), f32_time))
        for scheme in args.blocks.split(","):
            block, _, channels = scheme.partition("+")
            path = os.path.join(work, "b%s_%s.heed" % (block, channels or "0"))
            run([args.heed, "convert", args.model_dir, "-o", path, "--activation-block", block,
                 "--outlier-channels", channels or "0", "--quiet"])
            cs = [cosine(a, b) for a, b in zip(reference, embed(args.heed, path, text))]
            seconds = user_seconds(args.heed, path, timed)
            name = "int8, one scale per row" if block == "0" else "int8, blocks of %s" % block
            if channels:
                name += " + %s outlier channels in float32" % channels
            print("| %s | %.5f | %.5f | %d | %.2f | %.2fx |" % (name, min(cs), sum(cs) / len(cs),
                                                            sum(c >= 0.999 for c in cs), seconds, f32_time / seconds))


if __name__ == "__main__":
    main()
