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
  fuzz_safetensors     safetensors files of every dtype, the Marian fixture's, shrunk RNN fixtures'
  fuzz_llama2c_convert tiny llama2.c checkpoints (both header versions) with tokenizers, multi-part
  fuzz_torch_seq2seq_convert  RNN fixtures (tests/fixtures/rnn) shrunk 8x, the Marian fixture, multi-part
  fuzz_sentencepiece_model    the Marian source.spm and small models cut from it
  fuzz_text_input      text: several scripts, invalid UTF-8, control bytes, a 40 KB line
  fuzz_argos_convert   tests/fixtures/argos' package: deflated, stored, without its top folder
  fuzz_hf_folder_convert  the Hugging Face fixtures (hf-bert, hf-gpt2, hf-llama, Marian) as they are
                       and with their widths divided by 4, multi-part
and OUT/ct2-dirs/ with the tiny model folders themselves, OUT/models/ with the .heed models
fuzz_text_input loads (aren-transliteration, the Marian, GPT-2 and BERT fixtures, stories260K; int8). Only the Python
standard library is used.
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


# ---- Readers of later rounds: safetensors, llama2.c, PyTorch RNN seq2seq, Marian, SentencePiece, text.

LLAMA2C_FILE_NAMES = ["model.bin", "tokenizer.bin", "tok512.bin", "tok32.bin"]  # fuzz_llama2c_convert.cpp
SEQ2SEQ_FILE_NAMES = ["config.json", "model.safetensors", "vocab.json", "source.spm", "target.spm",
                      "target_vocab.json", "generation_config.json", "tokenizer_config.json"]  # fuzz_torch_seq2seq_convert.cpp


def bundle_named(files, names):
    return PART_SEPARATOR.join(bytes([names.index(n)]) + d for n, d in files.items())


def safetensors(tensors, metadata=None):
    """tensors: [(name, dtype, shape, bytes)] -> a safetensors file."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


def safetensors_header(data):
    n = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + n]), data[8 + n:]


def synthetic_safetensors():
    rng = random.Random(7)
    f32 = lambda n: struct.pack("<%df" % n, *[rng.uniform(-1, 1) for _ in range(n)])
    return {
        "dtypes.safetensors": safetensors([
            ("f32", "F32", [2, 3], f32(6)), ("f16", "F16", [3], struct.pack("<3e", 0.5, -2, 65504)),
            ("bf16", "BF16", [2], b"\x80\x3f\x00\xc0"), ("f64", "F64", [1], struct.pack("<d", 1e300)),
            ("i64", "I64", [2], struct.pack("<2q", -1, 7)), ("i8", "I8", [2], b"\x80\x7f"),
            ("u8", "U8", [1, 1], b"\xff"), ("bool", "BOOL", [2], b"\x00\x01"), ("i32", "I32", [], struct.pack("<i", 5)),
            ("empty", "F32", [0, 4], b"")], {"format": "pt", "note": "tiny"}),
        "one.safetensors": safetensors([("weight", "F32", [4], f32(4))]),
        "empty.safetensors": safetensors([]),
    }


# The RNN fixtures' dimensions (embedding 48, hidden 80 or 96, attention 48 to 96, and their sums,
# halves and gate multiples) are all multiples of 8 and their vocabularies (71, 31) are not: dividing
# every multiple of 8 by 8 keeps the model consistent in a few KB (config.json lists the vocabularies).
def rnn_shrink(d):
    return d // 8 if d % 8 == 0 else d


def shrunk_rnn_folder(folder):
    config = json.loads(read(os.path.join(folder, "config.json")))
    for key in ("embedding_dim", "hidden_dim", "attention_dim", "max_source_positions"):
        if key in config:
            config[key] = rnn_shrink(config[key])
    header, _ = safetensors_header(read(os.path.join(folder, "model.safetensors")))
    rng = random.Random(len(header))
    tensors = []
    for name, t in header.items():
        if name == "__metadata__":
            continue
        shape = [rnn_shrink(d) for d in t["shape"]]
        n = math.prod(shape)
        tensors.append((name, "F32", shape, struct.pack("<%df" % n, *[rng.uniform(-0.3, 0.3) for _ in range(n)])))
    return {"config.json": json.dumps(config).encode(), "model.safetensors": safetensors(tensors)}


def llama2c_checkpoint(seed, dim, hidden, layers, heads, kv_heads, vocab, seq_len, version, shared=True):
    """A llama2.c checkpoint with random weights (converter/llama2c/checkpoint.h's layouts)."""
    rng = random.Random(seed)
    head = dim // heads
    kv = kv_heads * head

    def arr(n, fill=None):
        return struct.pack("<%df" % n, *([fill] * n if fill is not None else [rng.uniform(-0.3, 0.3) for _ in range(n)]))

    emb, att_norm, ffn_norm, final = arr(vocab * dim), arr(layers * dim, 1.0), arr(layers * dim, 1.0), arr(dim, 1.0)
    wq, wk, wv, wo = arr(layers * dim * dim), arr(layers * kv * dim), arr(layers * kv * dim), arr(layers * dim * dim)
    w1, w2, w3 = arr(layers * hidden * dim), arr(layers * dim * hidden), arr(layers * hidden * dim)
    cls = b"" if shared else arr(vocab * dim)
    if version == 0:
        out = struct.pack("<7i", dim, hidden, layers, heads, kv_heads, vocab if shared else -vocab, seq_len)
        out += emb + att_norm + wq + wk + wv + wo + ffn_norm + w1 + w2 + w3 + final
        out += arr(seq_len * head // 2) * 2 + cls
    else:
        h = struct.pack("<Ii7iB", 0x616b3432, 1, dim, hidden, layers, heads, kv_heads, vocab, seq_len, 1 if shared else 0)
        out = h + b"\0" * (256 - len(h))
        out += att_norm + ffn_norm + final + emb + wq + wk + wv + wo + w1 + w2 + w3 + cls
    return out


def llama2c_tokenizer(vocab):
    """A tokenizer.bin: <unk>, <s>, </s>, the 256 byte tokens when they fit, then merged pieces."""
    tokens = [b"<unk>", b"\n<s>\n", b"\n</s>\n"]
    if vocab >= 259 + 8:
        tokens += [b"<0x%02X>" % i for i in range(256)]
    words = [b" ", b"e", b"t", b"a", b" t", b"he", b" the", b"o", b"n", b" a", b"in", b"s", b"\xc3\xa9", b"!"]
    i = 0
    while len(tokens) < vocab:
        tokens.append(words[i % len(words)] + (b"" if i < len(words) else b"%d" % i))
        i += 1
    out = struct.pack("<i", max(len(t) for t in tokens))
    for k, t in enumerate(tokens[:vocab]):
        out += struct.pack("<fi", -float(k), len(t)) + t
    return out


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def proto_fields(data):
    """Top-level protobuf fields: [(number, wire type, value bytes or int)]."""
    i, out = 0, []
    while i < len(data):
        key, shift = 0, 0
        while True:
            c = data[i]; i += 1; key |= (c & 0x7F) << shift; shift += 7
            if c < 0x80:
                break
        number, wire = key >> 3, key & 7
        if wire == 0:
            v, shift = 0, 0
            while True:
                c = data[i]; i += 1; v |= (c & 0x7F) << shift; shift += 7
                if c < 0x80:
                    break
            out.append((number, wire, v))
        elif wire == 2:
            n, shift = 0, 0
            while True:
                c = data[i]; i += 1; n |= (c & 0x7F) << shift; shift += 7
                if c < 0x80:
                    break
            out.append((number, wire, data[i:i + n])); i += n
        elif wire == 5:
            out.append((number, wire, data[i:i + 4])); i += 4
        elif wire == 1:
            out.append((number, wire, data[i:i + 8])); i += 8
        else:
            raise ValueError("protobuf wire type %d" % wire)
    return out


def proto_encode(fields):
    out = b""
    for number, wire, v in fields:
        out += varint(number << 3 | wire)
        if wire == 0:
            out += varint(v)
        elif wire == 2:
            out += varint(len(v)) + v
        else:
            out += v
    return out


def small_sentencepiece_models(spm):
    """SentencePiece models cut from a real one: its pieces and trainer spec with an identity
    normalizer (no 240 KB NFKC table), as unigram, BPE, word and char models."""
    fields = proto_fields(spm)
    pieces = [f for f in fields if f[0] == 1]
    trainer = next(f[2] for f in fields if f[0] == 2)
    normalizer = proto_encode([(1, 2, b"identity"), (3, 0, 1), (4, 0, 1), (5, 0, 1)])
    models = {}
    for type_id, label in ((1, "unigram"), (2, "bpe"), (3, "word"), (4, "char")):
        t = [f for f in proto_fields(trainer) if f[0] != 3] + [(3, 0, type_id)]
        models["small-%s.spm" % label] = proto_encode(pieces + [(2, 2, proto_encode(t)), (3, 2, normalizer)])
    return models


TEXT_SEEDS = {
    "en.txt": b"The cat sat on the mat, and then it slept.",
    "de-tag.txt": b">>de<< Hello world! How are you?",
    "ar.txt": "مرحبا بالعالم".encode(),
    "aren-chars.txt": "م ر ح ب ا".encode(),
    "story.txt": b"Once upon a time, there was a little girl named Lily.",
    "mixed.txt": "caf\u00e9 \u00fcber na\u00efve \U0001F600 \u4e2d\u6587".encode(),
    "invalid-utf8.txt": b"bad \xff\xfe\xc3 \xe2\x82 \xf0\x9f\x98 \xed\xa0\x80 end",
    "controls.txt": b"tab\there\x00nul\x1b[31mred\r\nline two\n\n",
    "long-line.txt": b"the quick brown fox " * 2048,
    "spaces.txt": b"   \t  \n ",
    "empty.txt": b"",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", required=True, help="the shared data folder (../shared)")
    ap.add_argument("--convert", help="fuzz/convert_seed.cpp's program, to convert the folders into .heed seeds")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    out = args.out
    for target in ("fuzz_ct2_model_bin", "fuzz_ct2_text_files", "fuzz_ct2_convert", "fuzz_heed_loader",
                   "fuzz_heed_inspect", "ct2-dirs", "fuzz_safetensors", "fuzz_llama2c_convert",
                   "fuzz_torch_seq2seq_convert", "fuzz_sentencepiece_model", "fuzz_text_input", "models",
                   "fuzz_argos_convert", "fuzz_hf_folder_convert"):
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

    later_round_seeds(args, out)
    argos_seeds(out)
    hf_seeds(out)

    for target in sorted(os.listdir(out)):
        if target.startswith("fuzz_"):
            n = len(os.listdir(os.path.join(out, target)))
            print("make_seeds.py: %-22s %3d seeds" % (target, n))


def argos_seeds(out):
    """fuzz_argos_convert: the fixture package as published (deflated), stored (the fuzzer's
    mutations then reach the files' bytes, not only the deflate stream) and flat (no top folder)."""
    import zipfile
    package = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "argos",
                           "tiny-en-de.argosmodel")
    dst = os.path.join(out, "fuzz_argos_convert")
    write(os.path.join(dst, "tiny-en-de.argosmodel"), read(package))
    with zipfile.ZipFile(package) as z:
        files = [(i.filename, z.read(i)) for i in z.infolist() if not i.is_dir()]
    for label, strip in (("stored", False), ("stored-flat", True)):
        path = os.path.join(dst, "tiny-en-de-%s.argosmodel" % label)
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
            for name, data in files:
                z.writestr(name.split("/", 1)[1] if strip else name, data)


# fuzz_hf_folder_convert.cpp's kFileNames, in its order.
HF_FILE_NAMES = ["config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "vocab.json",
                 "merges.txt", "tokenizer.model", "generation_config.json", "source.spm", "target.spm",
                 "target_vocab.json", "special_tokens_map.json", "1_Pooling/config.json",
                 "model.safetensors.index.json", "tokenizer.json"]
# The widths config.json gives (never the vocabulary or head counts): divided by HF_SHRINK.
HF_WIDTH_KEYS = ("hidden_size", "intermediate_size", "max_position_embeddings", "n_embd", "n_inner",
                 "n_positions", "n_ctx", "d_model", "encoder_ffn_dim", "decoder_ffn_dim")
HF_SHRINK = 4


def shrunk_hf_folder(files):
    """The same model with every width (and every tensor dimension that is a multiple of 4, except
    the vocabulary size) divided by 4, random weights of the same dtypes: a few KB instead of
    hundreds, so mutations reach the structure more often."""
    config = json.loads(files["config.json"])
    vocab = config.get("vocab_size")
    for key in HF_WIDTH_KEYS:
        if isinstance(config.get(key), int):
            config[key] //= HF_SHRINK
    header, _ = safetensors_header(files["model.safetensors"])
    rng = random.Random(len(header))
    tensors = []
    for name, t in header.items():
        if name == "__metadata__":
            continue
        shape = [d // HF_SHRINK if d % HF_SHRINK == 0 and d >= 8 and d != vocab else d for d in t["shape"]]
        n = math.prod(shape)
        fmt = {"F32": "f", "F16": "e"}[t["dtype"]]
        tensors.append((name, t["dtype"], shape, struct.pack("<%d%s" % (n, fmt),
                                                             *[rng.uniform(-0.3, 0.3) for _ in range(n)])))
    return dict(files, **{"config.json": json.dumps(config).encode(), "model.safetensors": safetensors(tensors)})


def hf_seeds(out):
    """fuzz_hf_folder_convert: each Hugging Face fixture folder as it is and shrunk (Marian with small
    SentencePiece models; BERT also with sentence-transformers' mean pooling)."""
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
    dst = os.path.join(out, "fuzz_hf_folder_convert")
    for label, folder in (("bert", os.path.join(fixtures, "hf-bert", "model")),
                          ("gpt2", os.path.join(fixtures, "hf-gpt2")), ("llama", os.path.join(fixtures, "hf-llama")),
                          ("marian", os.path.join(fixtures, "marian", "tiny-en-de"))):
        files = {f: read(os.path.join(folder, f)) for f in HF_FILE_NAMES if os.path.isfile(os.path.join(folder, f))}
        if label == "marian":
            for spm in ("source.spm", "target.spm"):
                files[spm] = small_sentencepiece_models(files[spm])["small-unigram.spm"]
        write(os.path.join(dst, "%s.bundle" % label), bundle_named(files, HF_FILE_NAMES))
        small = shrunk_hf_folder(files)
        write(os.path.join(dst, "%s-small.bundle" % label), bundle_named(small, HF_FILE_NAMES))
        if label == "bert":
            small["1_Pooling/config.json"] = b'{"word_embedding_dimension": 16, "pooling_mode_mean_tokens": true}'
            write(os.path.join(dst, "bert-small-pooling.bundle"), bundle_named(small, HF_FILE_NAMES))


def later_round_seeds(args, out):
    """Seeds of fuzz_safetensors, fuzz_llama2c_convert, fuzz_torch_seq2seq_convert,
    fuzz_sentencepiece_model and fuzz_text_input, and the .heed models fuzz_text_input loads."""
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
    marian_dir = os.path.join(fixtures, "marian", "tiny-en-de")
    marian = {f: read(os.path.join(marian_dir, f)) for f in SEQ2SEQ_FILE_NAMES
              if os.path.isfile(os.path.join(marian_dir, f))}

    seeds = {t: {} for t in ("fuzz_safetensors", "fuzz_llama2c_convert", "fuzz_torch_seq2seq_convert",
                             "fuzz_sentencepiece_model", "fuzz_text_input")}
    seeds["fuzz_safetensors"].update(synthetic_safetensors())
    seeds["fuzz_safetensors"]["marian-tiny.safetensors"] = marian["model.safetensors"]

    # RNN seq2seq: a few fixtures shrunk to a few KB; Marian with small SentencePiece models (the
    # reader only copies those bytes; fuzz_sentencepiece_model fuzzes them).
    for variant in ("luong_general_no_feeding", "bahdanau_gru_additive", "bilstm_2layer_general", "luong_local_p",
                    "luong_mlp", "tutorial_gru_none_relu", "luong_location"):
        files = shrunk_rnn_folder(os.path.join(fixtures, "rnn", variant))
        seeds["fuzz_safetensors"]["rnn-%s.safetensors" % variant] = files["model.safetensors"]
        seeds["fuzz_torch_seq2seq_convert"]["rnn-%s.bundle" % variant] = bundle_named(files, SEQ2SEQ_FILE_NAMES)
    small_spm = small_sentencepiece_models(marian["source.spm"])
    marian_small = dict(marian, **{"source.spm": small_spm["small-unigram.spm"],
                                   "target.spm": small_sentencepiece_models(marian["target.spm"])["small-unigram.spm"]})
    seeds["fuzz_torch_seq2seq_convert"]["marian-tiny.bundle"] = bundle_named(marian_small, SEQ2SEQ_FILE_NAMES)

    # SentencePiece: the real source model once (its NFKC table is 240 KB), the small cuts.
    seeds["fuzz_sentencepiece_model"]["marian-source.spm"] = marian["source.spm"]
    seeds["fuzz_sentencepiece_model"].update(small_spm)

    # llama2.c: tiny checkpoints of both header versions, shared and separate classifiers,
    # grouped-query attention, with synthetic tokenizers and stories260K's real tok512.bin (the
    # 1 MB checkpoint itself is too large a seed; it is converted for fuzz_text_input below).
    stories = os.path.join(args.shared, "models", "llama2c", "stories260k")
    tok512 = read(os.path.join(stories, "tok512.bin"))
    l2 = seeds["fuzz_llama2c_convert"]
    l2["legacy-shared.bundle"] = bundle_named({"model.bin": llama2c_checkpoint(1, 8, 16, 1, 2, 2, 32, 8, 0),
                                               "tok32.bin": llama2c_tokenizer(32)}, LLAMA2C_FILE_NAMES)
    l2["legacy-unshared-gqa.bundle"] = bundle_named(
        {"model.bin": llama2c_checkpoint(2, 8, 12, 2, 4, 2, 32, 4, 0, shared=False),
         "tokenizer.bin": llama2c_tokenizer(32)}, LLAMA2C_FILE_NAMES)
    l2["v1-tok512.bundle"] = bundle_named({"model.bin": llama2c_checkpoint(3, 4, 8, 1, 1, 1, 512, 4, 1),
                                           "tok512.bin": tok512}, LLAMA2C_FILE_NAMES)
    l2["v1-unshared-bytes.bundle"] = bundle_named(
        {"model.bin": llama2c_checkpoint(4, 8, 8, 1, 2, 1, 270, 4, 1, shared=False),
         "tokenizer.bin": llama2c_tokenizer(270)}, LLAMA2C_FILE_NAMES)

    seeds["fuzz_text_input"].update(TEXT_SEEDS)
    for target, files in seeds.items():
        for fname, data in files.items():
            write(os.path.join(out, target, fname), data)

    # fuzz_text_input's models (int8, like `heed convert`'s default).
    if args.convert:
        models = os.path.join(out, "models")
        os.makedirs(models, exist_ok=True)
        for fmt, src, name in (("ct2", os.path.join(args.shared, "models", "ct2", "aren-transliteration"),
                                "aren-transliteration-int8.heed"),
                               ("hf-marian", marian_dir, "marian-tiny-en-de-int8.heed"),
                               ("llama2c", os.path.join(stories, "stories260K.bin"), "stories260k-int8.heed"),
                               ("hf-gpt2", os.path.join(fixtures, "hf-gpt2"), "hf-gpt2-int8.heed"),
                               ("hf-bert", os.path.join(fixtures, "hf-bert", "model"), "hf-bert-int8.heed")):
            cmd = [args.convert, "--from", fmt, src, os.path.join(models, name), "int8"]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                sys.exit("make_seeds.py: %s failed: %s" % (" ".join(cmd), r.stderr.strip()))


if __name__ == "__main__":
    main()
