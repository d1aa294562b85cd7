#!/usr/bin/python3
"""Writes PyTorch's attention weights for a few morph validation words, greedy decoding, for
committed zoo models: tests/fixtures/rnn/<variant>/attention.json, which tests/runtime/rnn/
test_rnn_attention_capture.cpp compares with what heed's decoding engine captures.

    nice /usr/bin/python3 scripts/attention_zoo/attention_reference.py --fixtures tests/fixtures/rnn \\
        --data ../shared/data/morph [--variants luong_general luong_local_m bahdanau_gru_additive]

The model is rebuilt from the committed model.safetensors + config.json (zoo_model.py is the
specification heed implements), so no training is involved. Needs Debian's python3-torch.
"""
import argparse
import json
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_model import BOS, EOS, UNK, Seq2Seq  # noqa: E402

MAX_LEN = 48
WORDS = 6  # the first validation words


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", name
        begin, end = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32)
        tensors[name] = t.reshape(info["shape"]).clone()
    return tensors


@torch.no_grad()
def greedy_with_attention(model, src_ids, hard):
    src = torch.tensor([src_ids])
    st = model.start(src, torch.tensor([len(src_ids)]))
    y = torch.tensor([BOS])
    ids, rows = [], []
    for t in range(MAX_LEN):
        logp, att, st = model.step(st, y, t, hard)
        best = int(logp[0].argmax())
        ids.append(best)
        rows.append([float(v) for v in att[0]])
        if best == EOS:
            break
        y = torch.tensor([best])
    return ids, rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fixtures", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--variants", nargs="+", default=["luong_general", "luong_local_m", "bahdanau_gru_additive"])
    args = p.parse_args()
    torch.set_num_threads(1)
    with open(os.path.join(args.data, "src.valid"), encoding="utf-8") as f:
        words = [line.split() for line in f.read().splitlines()[:WORDS]]
    for variant in args.variants:
        folder = os.path.join(args.fixtures, variant)
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        model = Seq2Seq(cfg)
        model.load_state_dict(load_safetensors(os.path.join(folder, "model.safetensors")))
        model.eval()
        index = {t: i for i, t in enumerate(cfg["source_vocabulary"])}
        sentences = []
        for hard in ([False, True] if variant == "luong_general" else [False]):
            for w in words:
                src = [index.get(t, UNK) for t in w]
                ids, rows = greedy_with_attention(model, src, hard)
                sentences.append({"hard": hard, "source_tokens": w, "source": src, "ids": ids, "attention": rows})
        out = os.path.join(folder, "attention.json")
        with open(out, "w", encoding="utf-8") as f:
            json.dump({"variant": variant, "max_length": MAX_LEN, "sentences": sentences}, f, ensure_ascii=False)
            f.write("\n")
        print(f"{variant}: {len(sentences)} sentences -> {out}")


if __name__ == "__main__":
    main()
