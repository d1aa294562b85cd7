"""`heed generate` throughput by batch size, side by side in one script: the same prompts from
stdin, greedy, generated --batch 1 and --batch N, alternating runs; tokens are counted from the
--ids output (end tokens not counted). Prints tokens/s per batch size, the ratio to batch 1 and
the CPU model.

usage: python3 bench/generate_batch.py HEED MODEL.heed PROMPTS.txt [--batches 1,8] [--max-len 64] [--repeat 3]
"""
import argparse
import subprocess
import time

from compare_builds import cpu_model  # the one CPU-name reader of bench/


def run(heed, model, prompts, batch, max_len):
    start = time.perf_counter()
    out = subprocess.run([heed, "generate", "-m", model, "--ids", "--max-len", str(max_len), "--batch", str(batch)],
                         input=prompts, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    tokens = sum(len(line.split()) for line in out.stdout.splitlines())
    return tokens, seconds, out.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("heed")
    ap.add_argument("model")
    ap.add_argument("prompts")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with open(args.prompts, encoding="utf-8") as f:
        prompts = f.read()
    batches = [int(b) for b in args.batches.split(",")]
    best = {b: 0.0 for b in batches}
    outputs = {}
    for _ in range(args.repeat):
        for b in batches:  # alternating, so that machine noise hits every size alike
            tokens, seconds, text = run(args.heed, args.model, prompts, b, args.max_len)
            best[b] = max(best[b], tokens / seconds)
            outputs[b] = text
    print(f"CPU: {cpu_model()}; {len(prompts.splitlines())} prompts, --max-len {args.max_len}, best of {args.repeat}")
    for b in batches:
        same = "same ids as batch %d" % batches[0] if outputs[b] == outputs[batches[0]] else "IDS DIFFER"
        print(f"batch {b:3d}: {best[b]:10.1f} tokens/s  ratio {best[b] / best[batches[0]]:.2f}  ({same})")


if __name__ == "__main__":
    main()
