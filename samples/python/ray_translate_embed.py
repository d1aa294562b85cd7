"""Translate and embed a corpus on a Ray cluster with Ray Data (docs/python.md, "Scaling out
with Ray"): each Ray worker opens the two .heed files once, in the constructor of a callable
class, and then translates and embeds every batch `map_batches` gives it.

    python samples/python/ray_translate_embed.py --translation-model en-de.heed \
        --embedding-model minilm.heed --input corpus.txt --output out.jsonl --workers 2

The output is one JSON line per input line, in input order: "id" (the line number), "text",
"translation" (heed.Translator.translate_text) and "embedding" (heed.Embedder.encode): the values
one process gives with the same calls.
"""
import argparse
import json
import os
import sys

import numpy as np
import ray

import heed


def resident_kib(field="VmRSS"):
    """This process's resident memory in KiB, read from /proc (Linux): VmRSS all of it, RssAnon
    the part no other process shares (the mapped model file's pages are shared)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class TranslateAndEmbed:
    """One instance per Ray worker (an actor): opening the models costs time and memory, so it
    happens once here, not once per batch."""

    def __init__(self, translation_model, embedding_model, report_memory=False):
        self.rss_before_open_kib, self.anon_before_open_kib = resident_kib(), resident_kib("RssAnon")
        # One thread each: the worker has one CPU, and more workers (not threads) use more cores.
        self.translator = heed.Translator(translation_model, intra_threads=1)
        self.embedder = heed.Embedder(embedding_model, intra_threads=1)
        self.rss_after_open_kib = resident_kib()
        self.report_memory = report_memory

    def __call__(self, batch):
        texts = [str(text) for text in batch["text"]]
        batch["translation"] = np.array(self.translator.translate_text(texts), dtype=object)
        batch["embedding"] = self.embedder.encode(texts)
        if self.report_memory:
            batch["worker_pid"] = np.full(len(texts), os.getpid())
            batch["rss_before_open_kib"] = np.full(len(texts), self.rss_before_open_kib)
            batch["anon_before_open_kib"] = np.full(len(texts), self.anon_before_open_kib)
            batch["rss_after_open_kib"] = np.full(len(texts), self.rss_after_open_kib)
            batch["rss_after_batch_kib"] = np.full(len(texts), resident_kib())
            batch["anon_after_batch_kib"] = np.full(len(texts), resident_kib("RssAnon"))
        return batch


def translate_and_embed(dataset, translation_model, embedding_model, workers, batch_size, report_memory=False):
    """The dataset (a "text" column) with "translation" and "embedding" columns, computed by
    `workers` actors of one CPU each."""
    return dataset.map_batches(TranslateAndEmbed, fn_constructor_args=(translation_model, embedding_model, report_memory),
                               batch_size=batch_size, batch_format="numpy", concurrency=workers, num_cpus=1)


def run(lines, args):
    """The output rows of `lines`, sorted by line number (Ray Data does not keep the order)."""
    batches = max(1, -(-len(lines) // args.batch_size))  # one block per batch: the workers share them
    dataset = ray.data.from_items([{"id": i, "text": line} for i, line in enumerate(lines)], override_num_blocks=batches)
    result = translate_and_embed(dataset, args.translation_model, args.embedding_model, args.workers, args.batch_size,
                                 args.report_memory)
    return sorted(result.take_all(), key=lambda row: int(row["id"]))


def report_memory(rows):
    workers = {}
    for row in rows:
        pid = int(row["worker_pid"])
        seen = workers.get(pid, (0, 0, 0, 0, 0))
        workers[pid] = (int(row["rss_before_open_kib"]), int(row["anon_before_open_kib"]), int(row["rss_after_open_kib"]),
                        max(seen[3], int(row["rss_after_batch_kib"])), max(seen[4], int(row["anon_after_batch_kib"])))
    for pid, kib in sorted(workers.items()):
        print("worker %d: VmRSS %.1f MiB (RssAnon %.1f) before opening the models, %.1f after, %.1f (RssAnon %.1f) after "
              "its largest batch" % ((pid,) + tuple(k / 1024 for k in kib)), file=sys.stderr)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--translation-model", required=True, help="a .heed translation model")
    parser.add_argument("--embedding-model", required=True, help="a .heed embedding model")
    parser.add_argument("--input", required=True, help="the corpus: one text per line (UTF-8)")
    parser.add_argument("--output", required=True, help="the JSON lines written")
    parser.add_argument("--workers", type=int, default=2, help="Ray workers, each with its own copy of the models")
    parser.add_argument("--batch-size", type=int, default=32, help="lines per map_batches call")
    parser.add_argument("--address", help="a running Ray cluster; without it, a local one of --workers CPUs")
    parser.add_argument("--ray-temp-dir", help="the local cluster's temporary folder (short: it holds sockets)")
    parser.add_argument("--report-memory", action="store_true", help="print each worker's VmRSS (stderr)")
    return parser.parse_args()


def main():
    args = parse_arguments()
    with open(args.input, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.workers, include_dashboard=False, _temp_dir=args.ray_temp_dir)
    try:
        rows = run(lines, args)
    finally:
        ray.shutdown()
    if args.report_memory:
        report_memory(rows)
    with open(args.output, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps({"id": int(row["id"]), "text": str(row["text"]), "translation": str(row["translation"]),
                                  "embedding": np.asarray(row["embedding"], dtype=np.float32).tolist()},
                                 ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
