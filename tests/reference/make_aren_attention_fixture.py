#!/usr/bin/python3
"""Writes tests/fixtures/aren/aren_cross_attention.json: the NumPy reference's greedy translations of
the aren model's known inputs with every decoder layer's cross-attention probabilities per head,
which tests/runtime/decoding/test_attention_capture.cpp compares with what heed's decoding engine captures.

    /usr/bin/python3 tests/reference/make_aren_attention_fixture.py [--shared DIR] [--out DIR]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ct2_transformer  # noqa: E402
from check_known_outputs import KNOWN, default_shared_dir, load  # noqa: E402

SOURCES = [k[0] for k in KNOWN] + ["م ح م د"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shared", default=default_shared_dir())
    p.add_argument("--out", default=os.path.join(HERE, "..", "fixtures", "aren"))
    args = p.parse_args()
    model, source_vocab, target_vocab = load(args.shared, "aren-transliteration")
    transformer = ct2_transformer.Transformer(model)
    sentences = []
    for text in SOURCES:
        tokens = text.split()
        source_ids = source_vocab.to_ids(tokens)
        memory = transformer.encode(source_ids)
        ids, log_probs, _ = transformer.greedy(source_ids)
        decoder_input = [ct2_transformer.BOS_ID] + ids  # one step per generated token, </s> included
        weights = transformer.cross_attention_weights(decoder_input, memory)
        sentences.append({"source": tokens, "target": target_vocab.to_tokens(ids), "ids": ids,
                          "attention": [[[[round(float(v), 7) for v in row] for row in head] for head in layer]
                                        for layer in weights]})
    out = os.path.join(args.out, "aren_cross_attention.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"model": "aren-transliteration (fp32)", "layout": "attention[layer][head][target step][source]",
                   "decoding": "greedy, min_length 1", "sentences": sentences}, f, ensure_ascii=False)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
