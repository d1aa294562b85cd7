#!/usr/bin/env python3
"""Builds the benchmark model: an OPUS-MT-sized Transformer with random weights, in CTranslate2's format.

Shape: 6 encoder + 6 decoder layers, d_model 512, FFN 2048, 8 heads, ReLU, sinusoidal positions,
embeddings scaled by sqrt(d_model), one shared 32,000-token vocabulary whose embedding matrix serves
the encoder, the decoder and the output projection (as OPUS-MT does). Layer norms are pre-norm:
that is the default of CTranslate2's TransformerSpec (OPUS-MT's Marian models are post-norm; the cost
per token is the same, only the position of the norms differs).

Weights are random (fixed seed) with a small standard deviation so that activations stay in a sane
range through 12 layers. The benchmark fixes the target length (min = max decoding length), so what
the random model "translates" does not matter, only that both engines do the same amount of work.

Writes, under OUT_DIR:
  ct2-float32/   model.bin (float32 weights), shared_vocabulary.json, config.json
  ct2-int8/      the same model quantized by CTranslate2 itself at conversion (int8 weights, per-row scales)
  inputs.txt     the benchmark sentences: 32 lines of 16-24 random vocabulary tokens (fixed seed)
"""
import argparse
import os
import shutil

import numpy as np
import ctranslate2
from ctranslate2.specs import common_spec, transformer_spec

LAYERS = 6
D_MODEL = 512
FFN = 2048
HEADS = 8
VOCAB = 32000
SPECIALS = ["<blank>", "<s>", "</s>", "<unk>"]


def vocabulary():
    # Synthetic tokens: "w4" .. "w31999" after the special tokens CTranslate2 expects.
    return SPECIALS + ["w%d" % i for i in range(len(SPECIALS), VOCAB)]


class Filler:
    """Fills every weight a spec declares with seeded random values of the right shape."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def normal(self, shape, std):
        return (self.rng.standard_normal(shape, dtype=np.float32) * std).astype(np.float32)

    def linear(self, spec, out_dim, in_dim):
        # std 1/sqrt(in) keeps the variance of each output close to the input's (Xavier-like).
        spec.weight = self.normal((out_dim, in_dim), 1.0 / np.sqrt(in_dim))
        spec.bias = self.normal((out_dim,), 0.02)

    def layer_norm(self, spec):
        spec.gamma = (1.0 + self.normal((D_MODEL,), 0.05)).astype(np.float32)
        spec.beta = self.normal((D_MODEL,), 0.02)

    def self_attention(self, spec):
        self.layer_norm(spec.layer_norm)
        self.linear(spec.linear[0], 3 * D_MODEL, D_MODEL)  # fused Q, K, V
        self.linear(spec.linear[1], D_MODEL, D_MODEL)      # output

    def cross_attention(self, spec):
        self.layer_norm(spec.layer_norm)
        self.linear(spec.linear[0], D_MODEL, D_MODEL)      # Q from the decoder
        self.linear(spec.linear[1], 2 * D_MODEL, D_MODEL)  # fused K, V from the encoder output
        self.linear(spec.linear[2], D_MODEL, D_MODEL)      # output

    def ffn(self, spec):
        self.layer_norm(spec.layer_norm)
        self.linear(spec.linear_0, FFN, D_MODEL)
        self.linear(spec.linear_1, D_MODEL, FFN)


def build_spec(seed):
    spec = transformer_spec.TransformerSpec.from_config(
        (LAYERS, LAYERS), HEADS, pre_norm=True, activation=common_spec.Activation.RELU)
    fill = Filler(seed)
    # One matrix for source embeddings, target embeddings and the output projection. Embeddings
    # are multiplied by sqrt(512) ~ 22.6 at lookup; a small std also keeps the tied output
    # projection from just echoing the input token (the residual stream carries it to the top).
    shared = fill.normal((VOCAB, D_MODEL), 0.01)
    spec.encoder.embeddings[0].weight = shared
    spec.decoder.embeddings.weight = shared
    spec.decoder.projection.weight = shared
    spec.decoder.projection.bias = fill.normal((VOCAB,), 0.02)
    for layer in spec.encoder.layer:
        fill.self_attention(layer.self_attention)
        fill.ffn(layer.ffn)
    for layer in spec.decoder.layer:
        fill.self_attention(layer.self_attention)
        fill.cross_attention(layer.attention)
        fill.ffn(layer.ffn)
    fill.layer_norm(spec.encoder.layer_norm)
    fill.layer_norm(spec.decoder.layer_norm)
    vocab = vocabulary()
    spec.register_source_vocabulary(vocab)
    spec.register_target_vocabulary(vocab)
    return spec


def save(seed, quantization, out_dir):
    # The spec is rebuilt for each save: optimize() quantizes the arrays in place.
    spec = build_spec(seed)
    spec.validate()
    spec.optimize(quantization=quantization)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    spec.save(out_dir)


def write_inputs(path, seed, sentences, min_len, max_len):
    rng = np.random.default_rng(seed + 1)
    vocab = vocabulary()
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(sentences):
            n = int(rng.integers(min_len, max_len + 1))
            ids = rng.integers(len(SPECIALS), VOCAB, size=n)
            f.write(" ".join(vocab[i] for i in ids) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--sentences", type=int, default=32)
    p.add_argument("--min-source-len", type=int, default=16)
    p.add_argument("--max-source-len", type=int, default=24)
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    save(a.seed, "float32", os.path.join(a.out_dir, "ct2-float32"))
    save(a.seed, "int8", os.path.join(a.out_dir, "ct2-int8"))
    write_inputs(os.path.join(a.out_dir, "inputs.txt"), a.seed, a.sentences, a.min_source_len, a.max_source_len)
    print("ctranslate2 %s: wrote %s" % (ctranslate2.__version__, a.out_dir))


if __name__ == "__main__":
    main()
