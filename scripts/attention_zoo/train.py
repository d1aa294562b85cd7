#!/usr/bin/python3
"""Trains the attention zoo (character-level RNN seq2seq models on ../shared/data/morph) and
exports each variant as heed's torch-seq2seq input (model.safetensors + config.json) plus the
PyTorch reference outputs the tests compare heed against (reference.json).

    nice /usr/bin/python3 scripts/attention_zoo/train.py --out tests/fixtures/rnn [--only NAME ...]

Deterministic: fixed seed, one thread. Needs PyTorch (Debian's python3-torch, or pip install torch).
"""
import argparse
import json
import os
import random
import struct
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_model import BOS, EOS, PAD, SPECIALS, UNK, Seq2Seq  # noqa: E402

# name -> config overrides of BASE. Hard attention is evaluated at inference on "general".
BASE = dict(cell="lstm", layers=1, embedding_dim=48, hidden_dim=96, attention_dim=96, score="general",
            alignment="global", placement="luong", window=0, hard=False, input_feeding=True,
            bidirectional_encoder=False)
VARIANTS = {
    "luong_dot": dict(score="dot"),
    "luong_scaled_dot": dict(score="scaled_dot", epochs=9),  # 1/sqrt(H) scores start flat: 5.6% after one epoch, 73% after 5
    "luong_general": dict(score="general"),
    "luong_concat": dict(score="concat"),
    "luong_cosine": dict(score="cosine"),
    "luong_mlp": dict(score="mlp", attention_dim=64),
    "bahdanau_gru_additive": dict(cell="gru", placement="bahdanau", score="additive", input_feeding=False),
    "luong_local_m": dict(alignment="local_m", window=3),
    "luong_local_p": dict(alignment="local_p", window=3, attention_dim=48),
    "luong_general_no_feeding": dict(input_feeding=False),
    "bilstm_2layer_general": dict(bidirectional_encoder=True, layers=2, hidden_dim=80, attention_dim=80),
    # PyTorch's seq2seq tutorial: its DecoderRNN (GRU over ReLU(embedding), no attention), EOS appended to sources.
    "tutorial_gru_none_relu": dict(cell="gru", score="none", decoder_input_activation="relu", input_feeding=False,
                                   append_source_eos=True, epochs=15),  # no attention: 42% after 6 epochs, 76% after 15
    # Luong's location score over 32 fixed positions (the longest training source, 26 tokens, plus EOS fits).
    "luong_location": dict(score="location", max_source_positions=32, append_source_eos=True, epochs=6),
}
HARD_VARIANTS = ["luong_general"]  # also evaluated with hard (argmax one-hot) attention
MAX_LEN = 48
REFERENCE_SENTENCES = 20
BEAM = 5


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f.read().splitlines()]


def build_vocab(sentences):
    chars = sorted({c for s in sentences for c in s})
    return SPECIALS + chars


def to_ids(tokens, index):
    return [index.get(t, UNK) for t in tokens]


def model_source(cfg, ids):
    """The source ids the model reads: the typed ids, plus EOS when the variant appends it (as
    heed's Translator does with append_source_eos; reference.json keeps the typed ids)."""
    return ids + [EOS] if cfg.get("append_source_eos", False) else ids


def batches(pairs, size, rng):
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][0]), rng.random()))
    chunks = [order[i:i + size] for i in range(0, len(order), size)]
    rng.shuffle(chunks)
    for chunk in chunks:
        src = [pairs[i][0] for i in chunk]
        tgt = [pairs[i][1] for i in chunk]
        s = torch.full((len(chunk), max(map(len, src))), PAD, dtype=torch.long)
        t_in = torch.full((len(chunk), max(map(len, tgt)) + 1), PAD, dtype=torch.long)
        t_out = torch.full_like(t_in, PAD)
        for j, (a, b) in enumerate(zip(src, tgt)):
            s[j, :len(a)] = torch.tensor(a)
            t_in[j, :len(b) + 1] = torch.tensor([BOS] + b)
            t_out[j, :len(b) + 1] = torch.tensor(b + [EOS])
        yield s, torch.tensor([len(a) for a in src]), t_in, t_out


def train(model, pairs, epochs, seed, log):
    rng = random.Random(seed)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(1, epochs // 3), gamma=0.5)
    loss_fn = nn.NLLLoss(ignore_index=PAD, reduction="sum")
    for epoch in range(epochs):
        model.train()
        total, count, started = 0.0, 0, time.time()
        for src, lengths, t_in, t_out in batches(pairs, 64, rng):
            st = model.start(src, lengths)
            loss = 0
            for t in range(t_in.shape[1]):
                logp, _, st = model.step(st, t_in[:, t], t)
                loss = loss + loss_fn(logp, t_out[:, t])
            n = int((t_out != PAD).sum())
            opt.zero_grad()
            (loss / n).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            total += float(loss)
            count += n
        sched.step()
        log(f"  epoch {epoch + 1}/{epochs}: loss {total / count:.4f} ({time.time() - started:.0f} s)")


@torch.no_grad()
def greedy(model, src_ids, hard):
    """One sentence: token ids and the log-probability of each chosen token, plus full rows."""
    src = torch.tensor([src_ids])
    st = model.start(src, torch.tensor([len(src_ids)]))
    y = torch.tensor([BOS])
    ids, lps, rows = [], [], []
    for t in range(MAX_LEN):
        logp, _, st = model.step(st, y, t, hard)
        best = int(logp[0].argmax())
        ids.append(best)
        lps.append(float(logp[0, best]))
        rows.append([float(v) for v in logp[0]])
        if best == EOS:
            break
        y = torch.tensor([best])
    return ids, lps, rows


@torch.no_grad()
def beam_search(model, src_ids, k, hard):
    """Plain beam search: sum of log-probs, no length penalty; stops when the best finished
    hypothesis scores at least as well as every live one (scores only decrease)."""
    st = model.start(torch.tensor([src_ids]), torch.tensor([len(src_ids)]))
    st = model.reorder(st, torch.zeros(k, dtype=torch.long))
    scores = torch.tensor([0.0] + [float("-inf")] * (k - 1))
    hyps = [[] for _ in range(k)]
    y = torch.full((k,), BOS, dtype=torch.long)
    finished = []
    for t in range(MAX_LEN):
        logp, _, st = model.step(st, y, t, hard)
        total = (scores.unsqueeze(1) + logp).view(-1)
        top_scores, top = total.topk(2 * k)
        parents, tokens, new_scores, new_hyps = [], [], [], []
        for sc, idx in zip(top_scores.tolist(), top.tolist()):
            parent, token = divmod(idx, logp.shape[1])
            if token == EOS:
                finished.append((sc, hyps[parent]))
            elif len(parents) < k:
                parents.append(parent)
                tokens.append(token)
                new_scores.append(sc)
                new_hyps.append(hyps[parent] + [token])
            if len(parents) == k:
                break
        best_done = max((f[0] for f in finished), default=float("-inf"))
        if not parents or best_done >= max(new_scores):
            break
        st = model.reorder(st, torch.tensor(parents))
        scores, hyps, y = torch.tensor(new_scores), new_hyps, torch.tensor(tokens)
    if not finished:
        return hyps[0]
    return max(finished, key=lambda f: f[0])[1]


def exact_match(model, sources, targets, tgt_vocab, hard, beam):
    hits = 0
    for s, t in zip(sources, targets):
        s = model_source(model.cfg, s)
        if beam:
            out = beam_search(model, s, BEAM, hard)
        else:
            out = greedy(model, s, hard)[0]
            out = out[:-1] if out and out[-1] == EOS else out
        hits += [tgt_vocab[i] for i in out] == t
    return 100.0 * hits / len(sources)


def save_safetensors(tensors, path):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "..", "shared", "data", "morph"))
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "fixtures", "rnn"))
    ap.add_argument("--only", nargs="*", help="variant names (default: all)")
    ap.add_argument("--epochs", type=int, default=3, help="epochs of variants that do not set their own")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--smoke", action="store_true", help="a few pairs only: checks every variant runs")
    args = ap.parse_args()
    torch.set_num_threads(1)

    def log(msg):
        print(msg, flush=True)

    src_train, tgt_train = read_lines(f"{args.data}/src.train"), read_lines(f"{args.data}/tgt.train")
    src_valid, tgt_valid = read_lines(f"{args.data}/src.valid"), read_lines(f"{args.data}/tgt.valid")
    src_vocab, tgt_vocab = build_vocab(src_train), build_vocab(tgt_train)
    si = {t: i for i, t in enumerate(src_vocab)}
    ti = {t: i for i, t in enumerate(tgt_vocab)}
    pairs = [(to_ids(s, si), to_ids(t, ti)) for s, t in zip(src_train, tgt_train)]
    assert SPECIALS[EOS] in si and si[SPECIALS[EOS]] == EOS  # the source EOS id is eos_id
    valid_src = [to_ids(s, si) for s in src_valid]
    if args.smoke:
        pairs, valid_src, tgt_valid = pairs[:128], valid_src[:REFERENCE_SENTENCES], tgt_valid[:REFERENCE_SENTENCES]

    for name in args.only or list(VARIANTS):
        overrides = dict(VARIANTS[name])
        epochs = overrides.pop("epochs", args.epochs)
        cfg = dict(BASE, **overrides, source_vocab_size=len(src_vocab), target_vocab_size=len(tgt_vocab))
        log(f"{name}: {cfg}")
        torch.manual_seed(args.seed)
        model = Seq2Seq(cfg)
        started = time.time()
        train(model, [(model_source(cfg, a), b) for a, b in pairs], epochs, args.seed, log)
        train_seconds = time.time() - started
        model.eval()
        out_dir = os.path.join(args.out, name)
        os.makedirs(out_dir, exist_ok=True)
        save_safetensors(model.state_dict(), os.path.join(out_dir, "model.safetensors"))
        config = dict(cfg, pad_id=PAD, bos_id=BOS, eos_id=EOS, unk_id=UNK,
                      source_vocabulary=src_vocab, target_vocabulary=tgt_vocab)
        with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, ensure_ascii=False, indent=1)
        reference = {"variant": name, "epochs": epochs, "train_seconds": round(train_seconds, 1),
                     "max_length": MAX_LEN, "beam_size": BEAM}
        for hard in ([False, True] if name in HARD_VARIANTS else [False]):
            key = "hard" if hard else "soft"
            sents = []
            for i in range(REFERENCE_SENTENCES):
                ids, lps, rows = greedy(model, model_source(cfg, valid_src[i]), hard)
                entry = {"source": valid_src[i], "ids": ids, "log_probs": lps}
                if i == 0:
                    entry["rows"] = rows
                sents.append(entry)
            g = exact_match(model, valid_src, tgt_valid, tgt_vocab, hard, beam=False)
            b = exact_match(model, valid_src, tgt_valid, tgt_vocab, hard, beam=True)
            reference[key] = {"greedy": sents, "exact_match_greedy": g, "exact_match_beam": b}
            log(f"  {key}: valid exact match greedy {g:.2f}%, beam {BEAM} {b:.2f}%")
        with open(os.path.join(out_dir, "reference.json"), "w", encoding="utf-8") as f:
            json.dump(reference, f)


if __name__ == "__main__":
    main()
