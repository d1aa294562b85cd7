#!/usr/bin/python3
"""Writes the golden fixtures tests/fixtures/aren/*.json from the NumPy reference.

    /usr/bin/python3 tests/reference/make_aren_fixtures.py [--shared DIR] [--out DIR]

The models are read from <shared>/models/ct2/aren-transliteration{,-i8}
(default shared dir: ../shared next to the repository). See docs/reference.md.
"""

import argparse
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ct2_model  # noqa: E402
import ct2_transformer  # noqa: E402
from check_known_outputs import KNOWN, default_shared_dir  # noqa: E402

RANDOM_SEED = 20240613
NUM_RANDOM = 10
BEAM_SIZE = 4

# Arabic names spelled with the source vocabulary's letters (one token per letter).
NAMES = [
    "محمد",
    "أحمد",
    "فاطمة",
    "يوسف",
    "خالد",
    "مريم",
    "زينب",
]

# A source with a token outside the vocabulary: it must map to <unk> (id 50).
UNKNOWN_TOKEN_SOURCE = "س Q ر"

# (source, target) pairs for score(): the known answers, plausible alternatives,
# a deliberately wrong target, a target with <unk>, and an empty target (only </s>).
SCORE_PAIRS = [
    ("آ ت ز م و ن", "a t z m o n"),
    ("آ ز ا", "a z z a"),
    ("آ ز ا", "a z a"),
    ("م ح م د", "m o h a m m e d"),
    ("م ح م د", "m u h a m m a d"),
    ("ي و س ف", "y o u s s e f"),
    ("ي و س ف", "q x q x"),
    ("خ ا ل د", "k h a l @ d"),
    ("آ ز ا", ""),
]

MODEL_SETS = [
    # (fixture file, model directory name, int8 activations?, description)
    ("aren_fp32.json", "aren-transliteration", False,
     "fp32 weights, float64 reference arithmetic"),
    ("aren_i8_float.json", "aren-transliteration-i8", False,
     "int8 weights dequantized as q/scale, float64 activations"),
    ("aren_i8_int8act.json", "aren-transliteration-i8", True,
     "int8 weights, activations quantized per row to int8 before every int8 linear layer "
     "(scale=max|x|/127, round half away from zero, clamp +-127); attention products in float"),
]

SEMANTICS = {
    "embeddings": "row (int8: q/scale) * sqrt(d_model)",
    "position_encoding": "pe[p,i]=sin(p*exp(-i*ln(10000)/(d/2-1))), pe[p,d/2+i]=cos(same), "
                         "i in [0,d/2), p = 1 + 0-based token index",
    "layer_norm_epsilon": 1e-5,
    "blocks": "pre-norm residual, final layer norm on encoder and decoder",
    "self_attention": "linear_0 rows = [Q|K|V], linear_1 = output",
    "cross_attention": "linear_0 = Q, linear_1 rows = [K|V] on encoder output, linear_2 = output",
    "num_heads": 8,
    "ffn": "linear_1(relu(linear_0(x)))",
    "output": "log_softmax(projection(x))",
    "decoding": "start <s>=1, stop </s>=2, max_length 256, min_length 1 (</s> masked to -inf "
                "before log-softmax at step 0), score = sum(log-probs incl </s>) / "
                "len(tokens excl </s>) (length_penalty 1)",
    "beam_search": "beam 4, 2*beam candidates per step, step 0 expands only <s>, finished "
                   "slots refilled by next non-</s> candidate, stop when >= beam hypotheses "
                   "finished, best by normalized score",
    "score": "log-probs of target tokens then </s>, decoder input <s>+target, no masking",
}


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        digest.update(handle.read())
    return digest.hexdigest()


def build_sources(source_vocab):
    sources = [source for source, _ in KNOWN]
    sources += [" ".join(name) for name in NAMES]
    letters = [t for t in source_vocab.tokens[3:40] if not t.startswith("<")]
    rng = random.Random(RANDOM_SEED)
    for _ in range(NUM_RANDOM):
        length = rng.randint(2, 10)
        sources.append(" ".join(rng.choice(letters) for _ in range(length)))
    sources.append(UNKNOWN_TOKEN_SOURCE)
    return sources


def floats(values):
    # float() keeps full float64 precision; json writes the shortest round-trip repr.
    return [float(v) for v in values]


def make_fixture(shared, file_name, model_name, int8_activations, description):
    directory = os.path.join(shared, "models", "ct2", model_name)
    model = ct2_model.load_model(directory)
    source_vocab = ct2_model.load_vocabulary_object(
        os.path.join(directory, "source_vocabulary.txt"))
    target_vocab = ct2_model.load_vocabulary_object(
        os.path.join(directory, "target_vocabulary.txt"))
    transformer = ct2_transformer.Transformer(model, int8_activations=int8_activations)

    cases = []
    for source_text in build_sources(source_vocab):
        source_tokens = source_text.split()
        source_ids = source_vocab.to_ids(source_tokens)
        margins = []
        greedy_ids, greedy_log_probs, greedy_score = transformer.greedy(source_ids,
                                                                        margins=margins)
        hypotheses = transformer.beam_search(source_ids, beam_size=BEAM_SIZE,
                                             num_hypotheses=2)
        beam_ids, beam_score, beam_raw = hypotheses[0]
        runner_up = hypotheses[1][1] if len(hypotheses) > 1 else None
        cases.append({
            "source_tokens": source_tokens,
            "source_ids": source_ids,
            "greedy": {
                "ids": greedy_ids,
                "tokens": target_vocab.to_tokens(greedy_ids),
                "log_probs": floats(greedy_log_probs),
                "score": float(greedy_score),
                "min_margin": min(margins),
            },
            "beam4": {
                "ids": beam_ids,
                "tokens": target_vocab.to_tokens(beam_ids),
                "score": float(beam_score),
                "cumulative_log_prob": float(beam_raw),
                "runner_up_score": runner_up,
            },
            "score_of_greedy_output": floats(transformer.score(source_ids, greedy_ids)),
        })

    score_pairs = []
    for source_text, target_text in SCORE_PAIRS:
        source_tokens, target_tokens = source_text.split(), target_text.split()
        source_ids = source_vocab.to_ids(source_tokens)
        target_ids = target_vocab.to_ids(target_tokens)
        score_pairs.append({
            "source_tokens": source_tokens,
            "source_ids": source_ids,
            "target_tokens": target_tokens,
            "target_ids": target_ids,
            "log_probs": floats(transformer.score(source_ids, target_ids)),
        })

    first_source = KNOWN[0][0].split()
    first_ids = source_vocab.to_ids(first_source)
    d_model = transformer.d_model
    fixture = {
        "generator": "tests/reference/make_aren_fixtures.py (NumPy reference, see "
                     "docs/reference.md)",
        "model_dir": "models/ct2/" + model_name,
        "model_sha256": sha256_of(os.path.join(directory, "model.bin")),
        "mode": "int8_activations" if int8_activations else "float",
        "description": description,
        "semantics": SEMANTICS,
        "source_vocabulary_size": len(source_vocab),
        "target_vocabulary_size": len(target_vocab),
        "cases": cases,
        "score_pairs": score_pairs,
        "first_step": {
            "source_tokens": first_source,
            "source_ids": first_ids,
            "log_probs": floats(transformer.first_step_log_probs(first_ids)),
        },
        "encoder_output": {
            "source_tokens": first_source,
            "source_ids": first_ids,
            "shape": [len(first_ids), d_model],
            "values": floats(transformer.encode(first_ids).reshape(-1)),
        },
        "position_encoding": {
            "note": "rows for 0-based token indices 0..3 (positions 1..4)",
            "shape": [4, d_model],
            "values": floats(ct2_transformer.sinusoidal_position_encoding(4, d_model)
                             .reshape(-1)),
        },
    }
    return fixture


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=default_shared_dir())
    parser.add_argument("--out", default=os.path.normpath(
        os.path.join(HERE, "..", "fixtures", "aren")))
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.shared, "models", "ct2")):
        print("error: %s/models/ct2 not found (pass --shared)" % args.shared, file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    for file_name, model_name, int8_activations, description in MODEL_SETS:
        fixture = make_fixture(args.shared, file_name, model_name, int8_activations,
                               description)
        path = os.path.join(args.out, file_name)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(fixture, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
        print("wrote %s (%d bytes)" % (path, os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
