#!/usr/bin/env python3
"""heed embed against PyTorch on long inputs, side by side: sentences per second on one thread.

    bench/embed_vs_torch.py HEED MODEL_DIR TEXT [TEXT ...] [--count 1000] [--batch 32]
                            [--tokens 256] [--repeat 3] [--baseline HEED_BEFORE]

MODEL_DIR is a sentence-transformers BERT folder (all-MiniLM-L6-v2: config.json,
model.safetensors, vocab.txt). The inputs are COUNT sentences of at least TOKENS tokens (the
model's limit cuts them there): consecutive lines of the TEXT files joined until the model's
tokenizer gives that many, the files read round and round. The script converts the model with
HEED to float32 and to int8 (the converter's defaults), then runs, in turn and REPEAT times:
`heed embed --threads 1 --batch BATCH` on each file (and on both files with the HEED_BEFORE
build, when given), and PyTorch float32 (transformers' BertModel,
torch.set_num_threads(1), batches of BATCH padded to the longest, mean pooling and L2
normalization as sentence-transformers does, tokenization included as in heed). It prints the
CPU model, the median sentences/s of each (from CPU time, user + system: wall time on a shared
machine counts other processes' time too; wall medians beside them) and the lowest cosine of
each heed embedding to PyTorch's. Needs torch, transformers and safetensors.
"""
import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from compare_builds import cpu_model  # the CPU's name, as every bench/ script reports it


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode("utf-8", "replace")))
    return p.stdout


def long_inputs(tokenizer, paths, count, tokens):
    """COUNT texts of at least TOKENS tokens each, from consecutive lines of the files."""
    def lines():
        for path in itertools.cycle(paths):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        yield line.strip()
    out, current = [], []
    for line in lines():
        current.append(line)
        if len(tokenizer(" ".join(current))["input_ids"]) >= tokens:
            out.append(" ".join(current))
            current = []
            if len(out) == count:
                return out


def heed_embed(heed, model, text, batch):
    """(embeddings, CPU seconds, wall seconds) of one `heed embed` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = run([heed, "embed", "-m", model, "--threads", "1", "--batch", str(batch)], text.encode("utf-8"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return [json.loads(line)["embedding"] for line in out.decode("utf-8").splitlines()], cpu, wall


class TorchEncoder:
    def __init__(self, model_dir, tokens):
        import torch
        from transformers import AutoModel, AutoTokenizer
        torch.set_num_threads(1)
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModel.from_pretrained(model_dir).float().eval()
        self.tokens = tokens

    def embed(self, sentences, batch):
        """(embeddings, CPU seconds, wall seconds) of the whole set, tokenization included."""
        torch = self.torch
        result = []
        cpu, start = time.process_time(), time.perf_counter()
        with torch.inference_mode():
            for i in range(0, len(sentences), batch):
                enc = self.tokenizer(sentences[i:i + batch], padding=True, truncation=True,
                                     max_length=self.tokens, return_tensors="pt")
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                result.append(torch.nn.functional.normalize(pooled, p=2, dim=1))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - start
        return torch.cat(result).tolist(), cpu, wall


def lowest_cosine(got, want):
    def cos(a, b):
        dot = sum(x * y for x, y in zip(a, b))
        return dot / ((sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5)
    return min(cos(a, b) for a, b in zip(got, want))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("heed")
    ap.add_argument("model_dir")
    ap.add_argument("text", nargs="+")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="a second heed build, run on the same float32 and int8 files too")
    args = ap.parse_args()
    torch_encoder = TorchEncoder(args.model_dir, args.tokens)
    sentences = long_inputs(torch_encoder.tokenizer, args.text, args.count, args.tokens)
    text = "".join(s + "\n" for s in sentences)
    with tempfile.TemporaryDirectory() as work:
        files = {}
        for name, quantize in (("float32", "float32"), ("int8", "int8")):
            files[name] = os.path.join(work, name + ".heed")
            run([args.heed, "convert", "--from", "hf-bert", args.model_dir, "-o", files[name], "--quantize", quantize,
                 "--quiet"])
        runs = [("heed float32", lambda: heed_embed(args.heed, files["float32"], text, args.batch)),
                ("heed int8", lambda: heed_embed(args.heed, files["int8"], text, args.batch)),
                ("PyTorch float32", lambda: torch_encoder.embed(sentences, args.batch))]
        if args.baseline:
            runs.insert(1, ("heed float32, baseline build",
                            lambda: heed_embed(args.baseline, files["float32"], text, args.batch)))
            runs.insert(3, ("heed int8, baseline build",
                            lambda: heed_embed(args.baseline, files["int8"], text, args.batch)))
        cpu, wall, vectors = {n: [] for n, _ in runs}, {n: [] for n, _ in runs}, {}
        for _ in range(args.repeat):  # alternating, so a slow spell of the machine hits every run
            for name, fn in runs:
                vectors[name], c, w = fn()
                cpu[name].append(c)
                wall[name].append(w)
    reference = vectors["PyTorch float32"]
    torch_rate = args.count / statistics.median(cpu["PyTorch float32"])
    print("%s; %d sentences of %d tokens, batches of %d, one thread, %d alternating runs each (torch %s)"
          % (cpu_model(), args.count, args.tokens, args.batch, args.repeat, torch_encoder.torch.__version__))
    print()
    print("| run | sentences/s (CPU time, median) | vs PyTorch | sentences/s (wall, median) | lowest cosine to PyTorch |")
    print("|---|---|---|---|---|")
    for name, _ in runs:
        rate = args.count / statistics.median(cpu[name])
        print("| %s | %.2f | %.2fx | %.2f | %.5f |" % (name, rate, rate / torch_rate,
                                                      args.count / statistics.median(wall[name]),
                                                      lowest_cosine(vectors[name], reference)))


if __name__ == "__main__":
    main()
