"""Writes a llama2.c (legacy format) checkpoint with random weights of a chosen size, for speed
measurements of decoder-only generation at sizes the real test models (stories260K, onmt-lm) do
not reach. The text it generates is meaningless; the compute per token is that of a real model of
these dimensions. Use it with the tokenizer of stories260K (vocabulary 512).

usage: python3 bench/make_lm_checkpoint.py OUT.bin [--dim 512] [--hidden 1376] [--layers 8] [--heads 8]
                                           [--vocab 512] [--seq-len 512] [--seed 1]
"""
import argparse
import struct

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--hidden", type=int, default=1376)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=512)
    ap.add_argument("--seq-len", type=int, default=512)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    d, f, L, V, head = a.dim, a.hidden, a.layers, a.vocab, a.dim // a.heads

    def weights(*shape):  # scaled so activations stay in range through the layers
        return (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)

    with open(a.out, "wb") as out:
        # dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size (> 0: shared classifier), seq_len
        out.write(struct.pack("7i", d, f, L, a.heads, a.heads, V, a.seq_len))
        parts = [weights(V, d), np.ones((L, d), np.float32), weights(L, d, d), weights(L, d, d), weights(L, d, d),
                 weights(L, d, d), np.ones((L, d), np.float32), weights(L, f, d), weights(L, d, f), weights(L, f, d),
                 np.ones(d, np.float32), np.zeros((2, a.seq_len, head // 2), np.float32)]  # the RoPE tables heed recomputes
        for p in parts:
            out.write(p.tobytes())


if __name__ == "__main__":
    main()
