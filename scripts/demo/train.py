"""Trains heed's demo model (English number words -> German number words) on the CPU.

  /usr/bin/python3 scripts/demo/train.py --out /tmp/numbers-en-de.pt

Stops when greedy decoding translates the whole validation set exactly (checked every
--eval-every steps) or after --max-minutes. The checkpoint holds the weights, the model
configuration and the vocabularies; export_ct2.py turns it into a CTranslate2 model directory.
"""

import argparse
import math
import random
import sys
import time

import torch

import number_words
from ct2_transformer import Transformer

BLANK, BOS, EOS = 0, 1, 2


def encode_lines(lines, vocab, add_bos_eos):
    index = {tok: i for i, tok in enumerate(vocab)}
    unk = index["<unk>"]
    out = []
    for line in lines:
        ids = [index.get(tok, unk) for tok in line.split()]
        out.append([BOS] + ids + [EOS] if add_bos_eos else ids)
    return out


def pad(seqs):
    width = max(len(s) for s in seqs)
    return torch.tensor([s + [BLANK] * (width - len(s)) for s in seqs], dtype=torch.long)


def decode_ids(ids, vocab):
    words = []
    for i in ids:
        if i == EOS:
            break
        words.append(vocab[i])
    return " ".join(words)


def exact_match(model, sources, references, src_vocab, tgt_vocab, batch_size=500):
    """Fraction of sources whose greedy translation equals the reference; also the misses."""
    model.eval()
    misses = []
    for start in range(0, len(sources), batch_size):
        chunk = sources[start:start + batch_size]
        src = pad(encode_lines(chunk, src_vocab, add_bos_eos=False))
        hyps = model.greedy(src, src == BLANK, BOS, EOS, max_steps=src.shape[1] * 2 + 4)
        for source, ref, hyp in zip(chunk, references[start:start + batch_size], hyps.tolist()):
            text = decode_ids(hyp, tgt_vocab)
            if text != ref:
                misses.append((source, ref, text))
    model.train()
    return 1.0 - len(misses) / len(sources), misses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="checkpoint file to write")
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--ffn", type=int, default=256)
    parser.add_argument("--encoder-layers", type=int, default=2)
    parser.add_argument("--decoder-layers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--max-steps", type=int, default=6000)
    parser.add_argument("--max-minutes", type=float, default=10.0)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    # No label smoothing: it gives every wrong token the same small probability, `</s>`
    # included, and beam search then finishes short wrong hypotheses early (CTranslate2 and
    # heed stop once `beam` hypotheses are finished).
    parser.add_argument("--label-smoothing", type=float, default=0.0)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    src_vocab = number_words.source_vocabulary()
    tgt_vocab = number_words.target_vocabulary()
    train_numbers, valid_numbers = number_words.make_splits()
    train_src = encode_lines([number_words.english(n) for n in train_numbers], src_vocab, False)
    train_tgt = encode_lines([number_words.german(n) for n in train_numbers], tgt_vocab, True)
    valid_src = [number_words.english(n) for n in valid_numbers]
    valid_ref = [number_words.german(n) for n in valid_numbers]

    model = Transformer(len(src_vocab), len(tgt_vocab), d_model=args.d_model,
                        num_heads=args.heads, ffn_dim=args.ffn,
                        encoder_layers=args.encoder_layers, decoder_layers=args.decoder_layers)
    params = sum(p.numel() for p in model.parameters())
    print(f"train: {len(train_src)} pairs, {len(valid_src)} validation, {params} parameters",
          flush=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98),
                                  weight_decay=0.01)
    # Linear warmup, then cosine decay to 5 % of the peak over --max-steps.
    def lr_at(step):
        if step < args.warmup:
            return (step + 1) / args.warmup
        progress = min(1.0, (step - args.warmup) / max(1, args.max_steps - args.warmup))
        return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=BLANK, label_smoothing=args.label_smoothing)

    order = list(range(len(train_src)))
    cursor = len(order)
    started = time.time()
    accuracy, scope = 0.0, ""
    for step in range(1, args.max_steps + 1):
        if cursor + args.batch_size > len(order):
            rng.shuffle(order)
            cursor = 0
        batch = order[cursor:cursor + args.batch_size]
        cursor += args.batch_size
        src = pad([train_src[i] for i in batch])
        tgt = pad([train_tgt[i] for i in batch])
        logits = model(src, src == BLANK, tgt[:, :-1])
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()

        minutes = (time.time() - started) / 60
        if step % 100 == 0:
            print(f"step {step}  loss {loss.item():.4f}  ({minutes:.1f} min)", flush=True)
        if step % args.eval_every == 0 or minutes > args.max_minutes or step == args.max_steps:
            # A quick look at part of the validation set first; the whole set only when that
            # part is all correct (greedy decoding of 2000 sentences costs as much as ~100 steps).
            scope = "first 300"
            accuracy, misses = exact_match(model, valid_src[:300], valid_ref[:300], src_vocab,
                                           tgt_vocab)
            if not misses:
                scope = f"all {len(valid_src)}"
                accuracy, misses = exact_match(model, valid_src, valid_ref, src_vocab, tgt_vocab)
            print(f"step {step}  validation exact match {accuracy:.2%} ({scope})", flush=True)
            for source, ref, hyp in misses[:3]:
                print(f"  miss: {source!r} -> {hyp!r}, expected {ref!r}")
            if not misses or minutes > args.max_minutes:
                break

    if scope != f"all {len(valid_src)}":
        accuracy, _ = exact_match(model, valid_src, valid_ref, src_vocab, tgt_vocab)
    torch.save({"config": model.config, "state_dict": model.state_dict(),
                "source_vocabulary": src_vocab, "target_vocabulary": tgt_vocab,
                "valid_exact_match": accuracy, "steps": step}, args.out)
    print(f"saved {args.out} after {step} steps, validation exact match {accuracy:.2%}")
    return 0 if accuracy == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
