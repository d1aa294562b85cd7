"""Records what sentence-transformers computes for the MPNet folder of mpnet_fixture.py (the
hf-bert fixture's vocabulary in MPNet's layout, random weights from numpy's RandomState), for
test_mpnet_embed.py, which runs without torch:

    /tmp/torchvenv/bin/python tests/python/record_mpnet.py

needs torch, transformers and sentence-transformers (not installed by tests/requirements.txt).
Checks first that the token ids of the model's tokenizer equal the fixture's tokenizer.json's (run
by the `tokenizers` package), and that transformers' relative position buckets
(MPNetEncoder.relative_position_bucket) equal the formula of docs/format.md in double precision,
which heed runs, for every distance up to 4096. Writes tests/python/data/mpnet_reference.json: the
sentences, their token ids (cut to max_seq_length with </s> kept) and the float32 embeddings (mean
pooling, Normalize), encoded in batches of 4 (padding in every batch of unequal lengths)."""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpnet_fixture  # noqa: E402
import sentence_embeddings_reference  # noqa: E402

ROOT = mpnet_fixture.ROOT
OUT = os.path.join(ROOT, "tests/python/data/mpnet_reference.json")
LONG = "the quick brown fox jumps over the lazy dog and then runs back home again"
SENTENCES = [
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "A man is playing a guitar.",
    "Thanks!",
    "?",
    "Yes",
    "",
    "What is the capital of France?",
    "Paris is the capital and most populous city of France.",
    "Grüße aus Köln: Straße, naïve café, ÀÉÎÕÜ",
    "日本語のテキスト and 中文 mixed with English",
    "Emoji 😀👍🏽 are unknown to this vocabulary",
    "  leading, inner   runs\tand trailing spaces  ",
    "def f(x):\t    return x ** 2  # 3.14159",
    "Numbers: 1234567890, 3.5%, $100, 2026-11-29",
    "UPPER CASE AND lower case And Mixed Case",
    "don't won't can't it's they're",
    "e-mail: someone@example.com, https://example.org/path?q=1",
    "The cat sat on the mat. The dog sat on the log.",
    "Sentence embeddings map text to vectors.",
    "One two three four five six seven eight nine ten eleven twelve",
    "(parentheses) [brackets] {braces} <angles>",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z",
    " ".join([LONG] * 3),    # about 100 tokens
    " ".join([LONG] * 9),    # about 290: past max_distance 128
    " ".join([LONG] * 5),    # about 160
    " ".join([LONG] * 30),   # past max_seq_length: cut
    "short one after the long ones",
    "The last sentence.",
    "x",
    "I said <mask> twice, x<mask>y",   # special tokens in the text are kept whole
    "a <s> b </s> c [UNK]",
]


def check_buckets():
    import torch
    from transformers.models.mpnet.modeling_mpnet import MPNetEncoder

    distances = torch.arange(-4096, 4097)
    got = MPNetEncoder.relative_position_bucket(distances).tolist()
    for distance, bucket in zip(distances.tolist(), got):
        n = -distance
        want = 16 if n < 0 else 0
        n = abs(n)
        want += n if n < 8 else min(15, 8 + int(math.log(n / 8) / math.log(128 / 8) * 8))
        assert bucket == want, (distance, bucket, want)


def check_ids(model, sentences):
    vocab = mpnet_fixture.mpnet_vocab()
    tok = mpnet_fixture.mpnet_tokenizer(vocab)
    limit = model.max_seq_length
    ids = model.tokenizer(sentences, truncation=True, max_length=limit)["input_ids"]
    for sentence, got in zip(sentences, ids):
        want = tok.encode(sentence).ids
        want = want if len(want) <= limit else want[:limit - 1] + [want[-1]]
        assert list(got) == want, (sentence, got, want)
    return ids


def main():
    check_buckets()
    with tempfile.TemporaryDirectory() as tmp:
        folder = mpnet_fixture.write_mpnet_folder(os.path.join(tmp, "mpnet"))
        model, vectors = sentence_embeddings_reference.record(folder, SENTENCES)
        assert type(model[0].auto_model).__name__ == "MPNetModel"
        ids = check_ids(model, SENTENCES)
    sentence_embeddings_reference.write_reference(OUT, "tests/python/record_mpnet.py", SENTENCES, ids, vectors)


if __name__ == "__main__":
    main()
