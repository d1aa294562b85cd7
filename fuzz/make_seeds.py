#!/usr/bin/env python3
"""Builds the fuzzers' seed corpora (never committed) from ../shared and from tiny synthetic models.

    make_seeds.py --shared ../shared --convert build/fuzz/heed_fuzz_convert_seed --out build/fuzz-corpus

Writes OUT/<target>/ for each fuzz target:
  fuzz_ct2_model_bin   the real model.bin files (except the 3 MB language model) and tiny ones of
                       every binary version, dtype and alias layout
  fuzz_ct2_text_files  real vocabularies and config.json, small synthetic JSON and text files
  fuzz_ct2_convert     whole model folders in fuzz_support.h's multi-file format
  fuzz_heed_loader     .heed files converted from those folders (fuzz/convert_seed.cpp: int8, int8 per group,
  fuzz_heed_inspect    float16, float32)
and OUT/ct2-dirs/ with the tiny model folders themselves. Only the Python standard library is used.
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys

PART_SEPARATOR = b"\n=HEED-FUZZ-PART=\n"
# Order of fuzz_ct2_convert.cpp's kFileNames: a part's first byte is the index of its file name.
FILE_NAMES = ["model.bin", "config.json", "vocabulary.json", "vocabulary.txt", "shared_vocabulary.json",
              "shared_vocabulary.txt", "source_vocabulary.json", "source_vocabulary.txt",
              "target_vocabulary.json", "target_vocabulary.txt"]

F32, I8, I16, I32, F16, BF16 = 0, 1, 2, 3, 4, 5
SIZES = {F32: 4, I8: 1, I16: 2, I32: 4, F16: 2, BF16: 2}


class Var:
    def __init__(self, name, shape, dtype, data):
        self.name, self.shape, self.dtype, self.data = name, list(shape), dtype, data


def string(s):
    b = s.encode() + b"\0"
    return struct.pack("<H", len(b)) + b


def model_bin(version, spec, revision, variables, aliases=()):
    """CTranslate2's model.bin layout, binary versions 1 to 6 (see converter/ct2/model_bin.h)."""
    out = struct.pack("<I", version)
    if version >= 2:
        out += string(spec) + struct.pack("<I", revision)
    out += struct.pack("<I", len(variables))
    for v in variables:
        out += string(v.name) + struct.pack("<B", len(v.shape))
        out += b"".join(struct.pack("<I", d) for d in v.shape)
        if version >= 4:
            out += struct.pack("<BI", v.dtype, len(v.data))
        else:
            size = SIZES[v.dtype]
            out += struct.pack("<BI", size, len(v.data) // size)
        out += v.data
    if version >= 3:
        out += struct.pack("<I", len(aliases))
        for alias, target in aliases:
            out += string(alias) + string(target)
    return out


class TinyModel:
    """Random weights of a tiny CTranslate2 Transformer, named as CTranslate2's specs name them."""

    def __init__(self, seed, d=8, heads=2, ffn=16, layers=1, int8=False, f16_small=False, kv_heads=None,
                 gated=False, rms=False):
        self.rng = random.Random(seed)
        self.d, self.heads, self.ffn, self.layers = d, heads, ffn, layers
        self.int8, self.f16_small, self.gated, self.rms = int8, f16_small, gated, rms
        self.kv_heads = kv_heads or heads
        self.vars = []

    def values(self, n):
        return [self.rng.uniform(-0.5, 0.5) for _ in range(n)]

    def small(self, name, shape, fill=None):
        n = math.prod(shape)
        vals = [fill] * n if fill is not None else self.values(n)
        if self.f16_small:
            self.vars.append(Var(name, shape, F16, struct.pack("<%de" % n, *vals)))
        else:
            self.vars.append(Var(name, shape, F32, struct.pack("<%df" % n, *vals)))

    def matrix(self, name, rows, cols):
        vals = self.values(rows * cols)
        if not self.int8:
            self.vars.append(Var(name, [rows, cols], F32, struct.pack("<%df" % len(vals), *vals)))
            return
        scales, q = [], []
        for r in range(rows):
            row = vals[r * cols:(r + 1) * cols]
            m = max(abs(x) for x in row) or 1.0
            s = 127.0 / m  # CTranslate2 stores q = x * scale
            scales.append(s)
            q += [max(-127, min(127, round(x * s))) for x in row]
        self.vars.append(Var(name, [rows, cols], I8, struct.pack("<%db" % len(q), *q)))
        self.vars.append(Var(name + "_scale", [rows], F32, struct.pack("<%df" % rows, *scales)))

    def scalar(self, name, dtype, value):
        fmt = {I8: "<b", I16: "<h", I32: "<i"}[dtype]
        self.vars.append(Var(name, [], dtype, struct.pack(fmt, value)))

    def norm(self, prefix):
        self.small(prefix + "/gamma", [self.d], 1.0)
        if not self.rms:
            self.small(prefix + "/beta", [self.d], 0.0)

    def linear(self, prefix, rows, cols):
        self.matrix(prefix + "/weight", rows, cols)
        self.small(prefix + "/bias", [rows])

    def stack(self, scope, vocab, cross, projection=True):
        d, hd = self.d, self.d // self.heads
        self.matrix(scope + "/embeddings/weight", vocab, d)
        self.norm(scope + "/layer_norm")
        for i in range(self.layers):
            p = "%s/layer_%d" % (scope, i)
            self.norm(p + "/self_attention/layer_norm")
            self.linear(p + "/self_attention/linear_0", d + 2 * self.kv_heads * hd, d)
            self.linear(p + "/self_attention/linear_1", d, d)
            if cross:
                self.norm(p + "/attention/layer_norm")
                self.linear(p + "/attention/linear_0", d, d)
                self.linear(p + "/attention/linear_1", 2 * d, d)
                self.linear(p + "/attention/linear_2", d, d)
            self.norm(p + "/ffn/layer_norm")
            self.linear(p + "/ffn/linear_0", self.ffn, d)
            if self.gated:
                self.matrix(p + "/ffn/linear_0_noact/weight", self.ffn, d)
            self.linear(p + "/ffn/linear_1", d, self.ffn)
        if scope == "decoder" and projection:
            self.linear("decoder/projection", vocab, d)


SRC_VOCAB = ["<blank>", "<s>", "</s>", "a", "b", "c"]
TGT_VOCAB = ["<blank>", "<s>", "</s>", "x", "y", "z", "w"]
LM_VOCAB = ["<unk>", "<blank>", "</s>", "<s>", "the", "cat", "sat"]


def text_vocab(tokens):
    return ("\n".join(tokens) + "\n").encode()


def tiny_folders():
    """name -> {file name: bytes}: folders heed converts, covering the reader's branches."""
    folders = {}

    # Encoder-decoder, float32, binary version 6, attributes stored per stack.
    m = TinyModel(1)
    m.stack("encoder", len(SRC_VOCAB) + 1, False)  # + the implied <unk>
    m.stack("decoder", len(TGT_VOCAB) + 1, True)
    for scope in ("encoder", "decoder"):
        m.scalar(scope + "/num_heads", I16, 2)
        m.scalar(scope + "/pre_norm", I8, 1)
        m.scalar(scope + "/activation", I8, 0)
    folders["tiny-encdec-v6"] = {
        "model.bin": model_bin(6, "TransformerSpec", 7, m.vars),
        "source_vocabulary.txt": text_vocab(SRC_VOCAB),
        "target_vocabulary.txt": text_vocab(TGT_VOCAB),
    }

    # The same family with int8 weights, float16 norms and biases, two layers, binary version 5,
    # a shared JSON vocabulary, config.json, and a tied output projection (an alias).
    shared = SRC_VOCAB + ["x", "y"]
    m = TinyModel(2, layers=2, int8=True, f16_small=True)
    m.stack("encoder", len(shared) + 1, False)
    m.stack("decoder", len(shared) + 1, True, projection=False)
    m.small("decoder/projection/bias", [len(shared) + 1])
    m.scalar("num_heads", I32, 2)
    folders["tiny-encdec-int8-tied-v5"] = {
        "model.bin": model_bin(5, "TransformerSpec", 7, m.vars,
                               [("decoder/projection/weight", "decoder/embeddings/weight")]),
        "shared_vocabulary.json": json.dumps(shared).encode(),
        "config.json": json.dumps({"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>",
                                   "decoder_start_token": "<s>", "add_source_eos": True,
                                   "layer_norm_epsilon": 1e-6}).encode(),
    }

    # Binary version 2 TransformerBase (8 heads by default), float32.
    m = TinyModel(3, d=16, heads=8, ffn=8)
    m.stack("encoder", len(SRC_VOCAB) + 1, False)
    m.stack("decoder", len(TGT_VOCAB) + 1, True)
    folders["tiny-base-v2"] = {
        "model.bin": model_bin(2, "TransformerBase", 2, m.vars),
        "source_vocabulary.txt": text_vocab(SRC_VOCAB),
        "target_vocabulary.txt": text_vocab(TGT_VOCAB),
    }

    # Decoder-only language model: learned positions, grouped-query attention, gated SiLU FFN,
    # RMSNorm, int8 matrices, JSON vocabulary and config.json.
    m = TinyModel(4, d=8, heads=4, kv_heads=2, ffn=12, int8=True, gated=True, rms=True)
    m.stack("decoder", len(LM_VOCAB), False)
    m.small("decoder/position_encodings/encodings", [16, 8])
    m.scalar("decoder/num_heads", I16, 4)
    m.scalar("decoder/activation", I8, 2)
    m.scalar("decoder/pre_norm", I8, 1)
    m.scalar("decoder/scale_embeddings", I8, 0)
    m.scalar("decoder/alibi", I8, 0)
    folders["tiny-lm-gqa-v6"] = {
        "model.bin": model_bin(6, "TransformerDecoderSpec", 7, m.vars),
        "vocabulary.json": json.dumps(LM_VOCAB).encode(),
        "config.json": json.dumps({"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>",
                                   "layer_norm_epsilon": None}).encode(),
    }
    return folders


def bundle(files):
    """One fuzz_ct2_convert input holding these files."""
    parts = []
    for name, data in files.items():
        parts.append(bytes([FILE_NAMES.index(name)]) + data)
    return PART_SEPARATOR.join(parts)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", required=True, help="the shared data folder (../shared)")
    ap.add_argument("--convert", help="fuzz/convert_seed.cpp's program, to convert the folders into .heed seeds")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    out = args.out
    for target in ("fuzz_ct2_model_bin", "fuzz_ct2_text_files", "fuzz_ct2_convert", "fuzz_heed_loader",
                   "fuzz_heed_inspect", "ct2-dirs"):
        shutil.rmtree(os.path.join(out, target), ignore_errors=True)

    folders = {}
    for name, files in tiny_folders().items():
        folders[name] = files
        for fname, data in files.items():
            write(os.path.join(out, "ct2-dirs", name, fname), data)

    # Real CTranslate2 folders. The 3 MB language model only feeds the text-file and .heed seeds:
    # inputs that large slow every mutation of the binary fuzzers.
    ct2 = os.path.join(args.shared, "models", "ct2")
    real = {}
    for name in ("aren-transliteration", "aren-transliteration-i8", "onmt-lm"):
        d = os.path.join(ct2, name)
        if not os.path.isdir(d):
            sys.exit("make_seeds.py: %s is missing (the shared data folder)" % d)
        real[name] = {f: read(os.path.join(d, f)) for f in sorted(os.listdir(d)) if f in FILE_NAMES}

    seeds = {t: {} for t in ("fuzz_ct2_model_bin", "fuzz_ct2_text_files", "fuzz_ct2_convert")}
    for name, files in list(folders.items()) + list(real.items()):
        big = name == "onmt-lm"
        if not big:
            seeds["fuzz_ct2_model_bin"][name + ".bin"] = files["model.bin"]
            seeds["fuzz_ct2_convert"][name + ".bundle"] = bundle(files)
        for fname, data in files.items():
            if fname != "model.bin":
                seeds["fuzz_ct2_text_files"][name + "-" + fname] = data
    # Every older binary version of one tiny model (v1 and v2 have no aliases; v1 no spec).
    m = TinyModel(5, int8=True)
    m.stack("encoder", 7, False)
    m.stack("decoder", 8, True)
    for version in range(1, 7):
        seeds["fuzz_ct2_model_bin"]["tiny-v%d.bin" % version] = model_bin(version, "TransformerSpec", 7, m.vars)
    seeds["fuzz_ct2_model_bin"]["dtypes-v6.bin"] = model_bin(6, "X", 1, [
        Var("i16", [2], I16, struct.pack("<2h", -3, 9)), Var("i16_scale", [], F32, struct.pack("<f", 10.0)),
        Var("i32", [1], I32, struct.pack("<i", 7)), Var("bf16", [2], BF16, b"\x80\x3f\x00\x40"),
        Var("f16", [1, 1], F16, struct.pack("<e", 0.5))], [("alias", "i32"), ("alias2", "alias")])
    text = seeds["fuzz_ct2_text_files"]
    text["config-null-start.json"] = b'{"decoder_start_token": null, "add_source_bos": false}'
    text["config-bad-eps.json"] = b'{"layer_norm_epsilon": 2.5}'
    text["nested.json"] = b'[["a"], {"b": [1, 2.5e300, -0, true, null]}, "\\u00e9\\ud83d\\ude00"]'
    text["crlf.txt"] = b"a\r\nb\r\n\r\nc"
    text["utf8.txt"] = "آ\nت\nز\n".encode()

    for target, files in seeds.items():
        for fname, data in files.items():
            write(os.path.join(out, target, fname), data)

    if args.convert:
        heed_dir = os.path.join(out, "fuzz_heed_loader")
        os.makedirs(heed_dir, exist_ok=True)
        sources = {n: os.path.join(out, "ct2-dirs", n) for n in folders}
        sources.update({n: os.path.join(ct2, n) for n in real})
        for name, src in sorted(sources.items()):
            for label, opts in (("int8", ["int8"]), ("int8-g8", ["int8", "8"]), ("f16", ["float16"]),
                                ("f32", ["float32"])):
                if name == "onmt-lm" and label != "int8":
                    continue  # one 3 MB seed is enough
                dst = os.path.join(heed_dir, "%s-%s.heed" % (name, label))
                cmd = [args.convert, src, dst] + opts
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if r.returncode != 0:
                    sys.exit("make_seeds.py: %s failed: %s" % (" ".join(cmd), r.stderr.strip()))
        shutil.copytree(heed_dir, os.path.join(out, "fuzz_heed_inspect"))

    for target in sorted(os.listdir(out)):
        if target.startswith("fuzz_"):
            n = len(os.listdir(os.path.join(out, target)))
            print("make_seeds.py: %-22s %3d seeds" % (target, n))


if __name__ == "__main__":
    main()
