#!/usr/bin/python3
"""Independent NumPy reference for llama2.c checkpoints, and the fixture heed's tests compare with.

    /usr/bin/python3 tests/reference/llama2c_reference.py [--shared DIR] [--out FILE]

Reads <shared>/models/llama2c/stories260k/stories260K.bin (legacy llama2.c format) and tok512.bin
and writes tests/fixtures/llama2c/stories260k_reference.json with:
  - the logits of every position of a short token sequence (BOS + an encoded prompt), computed in
    float64 from the float32 weights: RMSNorm (eps 1e-5), RoPE on interleaved pairs (x[2j], x[2j+1])
    with angle pos * 10000^(-2j/head_size), grouped-query causal attention, SwiGLU
    w2(silu(w1 x) * w3 x), final RMSNorm, classifier = token embeddings when vocab_size > 0;
  - the greedy continuation from BOS (argmax, stopping at BOS as llama2.c's run.c does);
  - llama2.c's byte-fallback BPE encodings of a few strings (dummy " " prefix, UTF-8 characters,
    <0xXX> byte pieces, best-score adjacent merges with the leftmost pair on ties).
Everything here is written from the file format's description, not from heed's C++ code.
"""

import argparse
import hashlib
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

PROMPT = "Once upon a time"
GREEDY_STEPS = 40
TOKENIZER_SAMPLES = [
    "Once upon a time",
    "Lily and Ben went to the park.",
    "héllo wörld",         # characters outside the vocabulary fall back to bytes
    "  two  spaces",
    "a",
    "",
]


def default_shared_dir():
    return os.environ.get("HEED_SHARED_DIR", os.path.join(os.path.dirname(REPO), "shared"))


def read_checkpoint(path):
    data = open(path, "rb").read()
    dim, hidden, layers, heads, kv_heads, vocab, seq_len = struct.unpack("<7i", data[:28])
    shared = vocab > 0
    vocab = abs(vocab)
    floats = np.frombuffer(data, dtype="<f4", offset=28).astype(np.float64)
    hs = dim // heads
    kv = kv_heads * hs
    at = 0

    def take(*shape):
        nonlocal at
        n = int(np.prod(shape))
        out = floats[at:at + n].reshape(shape)
        at += n
        return out

    w = {}
    w["emb"] = take(vocab, dim)
    w["att_norm"] = take(layers, dim)
    w["wq"] = take(layers, heads * hs, dim)
    w["wk"] = take(layers, kv, dim)
    w["wv"] = take(layers, kv, dim)
    w["wo"] = take(layers, dim, heads * hs)
    w["ffn_norm"] = take(layers, dim)
    w["w1"] = take(layers, hidden, dim)
    w["w2"] = take(layers, dim, hidden)
    w["w3"] = take(layers, hidden, dim)
    w["final_norm"] = take(dim)
    take(seq_len, hs // 2)  # unused RoPE tables of old exports
    take(seq_len, hs // 2)
    w["cls"] = w["emb"] if shared else take(vocab, dim)
    assert at == floats.size, "checkpoint size does not match its header"
    cfg = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, vocab=vocab,
               seq_len=seq_len, shared=shared)
    return cfg, w


def rmsnorm(x, g, eps=1e-5):
    return x / np.sqrt(np.mean(x * x) + eps) * g


def rope(x, pos, hs):
    # x: [n_heads, hs]; rotate pairs (x[2j], x[2j+1]) by pos * 10000^(-2j/hs).
    j = np.arange(hs // 2)
    angle = pos * np.power(10000.0, -2.0 * j / hs)
    c, s = np.cos(angle), np.sin(angle)
    a, b = x[:, 0::2].copy(), x[:, 1::2].copy()
    out = np.empty_like(x)
    out[:, 0::2] = a * c - b * s
    out[:, 1::2] = a * s + b * c
    return out


def forward(cfg, w, tokens):
    """Logits [len(tokens), vocab] of a causal pass over `tokens` (positions 0..n-1)."""
    d, H, KVH = cfg["dim"], cfg["heads"], cfg["kv_heads"]
    hs = d // H
    group = H // KVH
    n = len(tokens)
    x = w["emb"][tokens].copy()  # [n, d]
    for l in range(cfg["layers"]):
        h = np.stack([rmsnorm(x[t], w["att_norm"][l]) for t in range(n)])
        q = (h @ w["wq"][l].T).reshape(n, H, hs)
        k = (h @ w["wk"][l].T).reshape(n, KVH, hs)
        v = (h @ w["wv"][l].T).reshape(n, KVH, hs)
        q = np.stack([rope(q[t], t, hs) for t in range(n)])
        k = np.stack([rope(k[t], t, hs) for t in range(n)])
        ctx = np.zeros((n, H, hs))
        for t in range(n):
            for head in range(H):
                kh = head // group
                scores = k[: t + 1, kh] @ q[t, head] / np.sqrt(hs)
                p = np.exp(scores - scores.max())
                p /= p.sum()
                ctx[t, head] = p @ v[: t + 1, kh]
        x = x + ctx.reshape(n, H * hs) @ w["wo"][l].T
        h = np.stack([rmsnorm(x[t], w["ffn_norm"][l]) for t in range(n)])
        a = h @ w["w1"][l].T
        gate = h @ w["w3"][l].T
        x = x + ((a / (1.0 + np.exp(-a))) * gate) @ w["w2"][l].T
    x = np.stack([rmsnorm(x[t], w["final_norm"]) for t in range(n)])
    return x @ w["cls"].T


def read_tokenizer(path, vocab):
    data = open(path, "rb").read()
    at = 4
    pieces, scores = [], []
    for _ in range(vocab):
        score, length = struct.unpack("<fi", data[at:at + 8])
        at += 8
        pieces.append(data[at:at + length])
        scores.append(score)
        at += length
    return pieces, scores


def bpe_encode(text, pieces, scores):
    lookup = {}
    for i, p in enumerate(pieces):
        lookup.setdefault(p, i)
    raw = text.encode("utf-8")
    ids = []
    if raw:
        ids.append(lookup[b" "])
    i = 0
    while i < len(raw):
        n = 1
        while i + n < len(raw) and n < 4 and (raw[i + n] & 0xC0) == 0x80:
            n += 1
        ch = raw[i:i + n]
        if ch in lookup:
            ids.append(lookup[ch])
        else:
            ids.extend(lookup[b"<0x%02X>" % b] for b in ch)
        i += n
    while True:
        best = None
        for i in range(len(ids) - 1):
            merged = lookup.get(pieces[ids[i]] + pieces[ids[i + 1]])
            if merged is not None and (best is None or scores[merged] > best[0]):
                best = (scores[merged], merged, i)
        if best is None:
            break
        _, merged, i = best
        ids[i:i + 2] = [merged]
    return ids


def bpe_decode(ids, pieces, previous):
    out = b""
    for t in ids:
        p = pieces[t]
        if p.startswith(b"<0x") and p.endswith(b">") and len(p) == 6:
            p = bytes([int(p[3:5], 16)])
        elif previous == 1 and p.startswith(b" "):
            p = p[1:]
        out += p
        previous = t
    return out.decode("utf-8", errors="replace")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=default_shared_dir())
    parser.add_argument("--out", default=os.path.join(REPO, "tests/fixtures/llama2c/stories260k_reference.json"))
    args = parser.parse_args()
    folder = os.path.join(args.shared, "models/llama2c/stories260k")
    checkpoint = os.path.join(folder, "stories260K.bin")
    cfg, w = read_checkpoint(checkpoint)
    pieces, scores = read_tokenizer(os.path.join(folder, "tok512.bin"), cfg["vocab"])

    prompt_ids = bpe_encode(PROMPT, pieces, scores)
    sequence = [1] + prompt_ids
    logits = forward(cfg, w, sequence)

    # Greedy from BOS, recomputing the whole prefix each step (simple and independent).
    greedy = []
    tokens = [1]
    for _ in range(GREEDY_STEPS):
        nxt = int(np.argmax(forward(cfg, w, tokens)[-1]))
        if nxt == 1:
            break
        greedy.append(nxt)
        tokens.append(nxt)

    fixture = {
        "generator": "tests/reference/llama2c_reference.py (NumPy, float64 arithmetic on the float32 weights)",
        "checkpoint": "models/llama2c/stories260k/stories260K.bin",
        "checkpoint_sha256": hashlib.sha256(open(checkpoint, "rb").read()).hexdigest(),
        "config": cfg,
        "prompt": PROMPT,
        "sequence": sequence,
        "logits": [[round(float(v), 7) for v in row] for row in logits],
        "greedy_from_bos": greedy,
        "greedy_text": bpe_decode(greedy, pieces, 1),
        "tokenizer": [{"text": s, "ids": bpe_encode(s, pieces, scores)} for s in TOKENIZER_SAMPLES],
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(fixture, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", args.out, "greedy:", repr(fixture["greedy_text"]))


if __name__ == "__main__":
    sys.exit(main())
