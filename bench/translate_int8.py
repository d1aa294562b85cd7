#!/usr/bin/env python3
"""int8 schemes on a translation model, side by side: outputs against float32 and speed.

    bench/translate_int8.py HEED MODEL_DIR [--sample 1000] [--repeat 3] [--blocks 0,16,32]

Converts MODEL_DIR (any source `heed convert` reads, e.g. a CTranslate2 folder) to float32 and to
int8 with each --activation-block value (0: one scale per row), translates SAMPLE inputs with each
(`heed translate --tokens --threads 1`, greedy) and prints a Markdown table: how many outputs are
the same token for token as float32's, and the CPU time of translating the inputs REPEAT times as a
ratio to float32 (user time). The inputs are drawn from the model's source vocabulary file
(source_vocabulary.txt or shared_vocabulary.txt, special tokens skipped): 3 to 12 tokens each,
seed 1, so a character-level model such as the aren transliteration sees word-like strings.
Standard library only.
"""
import argparse
import os
import random
import resource
import tempfile

from compare_builds import cpu_model  # the CPU's name, as every bench/ script reports it
from encoder_int8 import run


def sample_inputs(model_dir, count):
    for name in ("source_vocabulary.txt", "shared_vocabulary.txt"):
        path = os.path.join(model_dir, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                vocab = [t for t in f.read().split("\n") if t and not (t.startswith("<") and t.endswith(">"))]
            rng = random.Random(1)
            return "".join(" ".join(rng.choice(vocab) for _ in range(rng.randint(3, 12))) + "\n" for _ in range(count))
    raise SystemExit("no source_vocabulary.txt or shared_vocabulary.txt in %s" % model_dir)


def translate(heed, model, text):
    cmd = [heed, "translate", "-m", model, "--tokens", "--threads", "1"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = run(cmd, text.encode("utf-8")).decode("utf-8").splitlines()
    return out, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("heed")
    ap.add_argument("model_dir")
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--blocks", default="0,16,32")
    args = ap.parse_args()
    text = sample_inputs(args.model_dir, args.sample)
    with tempfile.TemporaryDirectory() as work:
        f32 = os.path.join(work, "f32.heed")
        run([args.heed, "convert", args.model_dir, "-o", f32, "--quantize", "float32", "--quiet"])
        reference, _ = translate(args.heed, f32, text)
        f32_time = translate(args.heed, f32, text * args.repeat)[1]
        print("%s, %d inputs, greedy, one thread; time: %d passes, user CPU seconds" % (cpu_model(), len(reference), args.repeat))
        print()
        print("| scheme | same output as float32 | time (s) | speed vs float32 |")
        print("|---|---|---|---|")
        print("| float32 | %d / %d | %.2f | 1.00x |" % (len(reference), len(reference), f32_time))
        for block in (int(b) for b in args.blocks.split(",")):
            path = os.path.join(work, "b%d.heed" % block)
            run([args.heed, "convert", args.model_dir, "-o", path, "--activation-block", str(block), "--quiet"])
            same = sum(a == b for a, b in zip(reference, translate(args.heed, path, text)[0]))
            seconds = translate(args.heed, path, text * args.repeat)[1]
            name = "int8, one scale per row" if block == 0 else "int8, blocks of %d" % block
            print("| %s | %d / %d | %.2f | %.2fx |" % (name, same, len(reference), seconds, f32_time / seconds))


if __name__ == "__main__":
    main()
