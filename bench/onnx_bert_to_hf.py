#!/usr/bin/env python3
"""A sentence-transformers BERT exported to ONNX -> a Hugging Face BERT folder heed can convert.

    bench/onnx_bert_to_hf.py MODEL.onnx VOCAB_DIR OUT_DIR [--heads 12]

Measurement tooling for docs/quantization.md: some packages on the Python package index bundle a
real sentence encoder only as ONNX. Named initializers keep their names (less the
sentence-transformers prefix `model.0.auto_model.`); each unnamed MatMul weight takes the name of
the bias its product is added to (ONNX stores it [in, out]; BERT's Linear is [out, in]). VOCAB_DIR
gives vocab.txt and the tokenizer files (the ONNX file carries none); config.json is derived from
the shapes. Needs onnx, numpy and safetensors.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file

PREFIX = "model.0.auto_model."


def weights(model):
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    consumers = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    out = {}
    for name, value in init.items():
        if name.startswith(PREFIX):
            out[name[len(PREFIX):]] = value
    for node in model.graph.node:
        if node.op_type != "MatMul" or node.input[1] not in init or node.input[1].startswith(PREFIX):
            continue
        adds = [n for n in consumers.get(node.output[0], []) if n.op_type == "Add"]
        bias = [i for n in adds for i in n.input if i.startswith(PREFIX) and i.endswith(".bias")]
        if len(bias) != 1:
            sys.exit("no bias names the MatMul weight %s" % node.input[1])
        out[bias[0][len(PREFIX):-len(".bias")] + ".weight"] = np.ascontiguousarray(init[node.input[1]].T)
    return out


def config(w, heads):
    layers = sum(1 for k in w if k.endswith("attention.self.query.weight"))
    return {"architectures": ["BertModel"], "model_type": "bert",
            "vocab_size": int(w["embeddings.word_embeddings.weight"].shape[0]),
            "hidden_size": int(w["embeddings.word_embeddings.weight"].shape[1]),
            "num_hidden_layers": layers, "num_attention_heads": heads,
            "intermediate_size": int(w["encoder.layer.0.intermediate.dense.weight"].shape[0]),
            "max_position_embeddings": int(w["embeddings.position_embeddings.weight"].shape[0]),
            "type_vocab_size": int(w["embeddings.token_type_embeddings.weight"].shape[0]),
            "hidden_act": "gelu", "layer_norm_eps": 1e-12}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("vocab_dir")
    ap.add_argument("out")
    ap.add_argument("--heads", type=int, default=12, help="attention heads (the shapes do not tell; MiniLM: 12)")
    args = ap.parse_args()
    src, vocab_dir, out, heads = args.model, args.vocab_dir, args.out, args.heads
    model = onnx.load(src)
    w = weights(model)
    os.makedirs(out, exist_ok=True)
    save_file({k: v.astype(np.float32) for k, v in w.items()}, os.path.join(out, "model.safetensors"))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config(w, heads), f, indent=1)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if os.path.exists(os.path.join(vocab_dir, name)):
            shutil.copy(os.path.join(vocab_dir, name), out)
    print("%d tensors -> %s" % (len(w), out))


if __name__ == "__main__":
    main()
