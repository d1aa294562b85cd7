"""Records what sentence-transformers computes for the XLM-RoBERTa folder of
xlm_roberta_fixture.py (tokenizer.json from ../shared's botchan-1000.model, random weights from
numpy's RandomState), for test_xlm_roberta_embed.py, which runs without torch:

    /tmp/torchvenv/bin/python tests/python/record_xlm_roberta.py /work/shared

needs torch, transformers and sentence-transformers (not installed by tests/requirements.txt).
The tokenizer.json is laid out as transformers 5 rebuilds XLM-R's (WhitespaceSplit before
Metaspace), so the library runs exactly the file heed converts.
Writes tests/fixtures/hf-xlm-roberta/reference.json: the sentences, the token ids the model's
tokenizer gives (checked equal to the `tokenizers` package's first) and the float32 embeddings
(mean pooling, Normalize)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sentence_embeddings_reference  # noqa: E402
import xlm_roberta_fixture  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SENTENCES = [
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "Grüße aus Köln: Straße, naïve café, ＡＢＣ１２３ ﬁ",
    "日本語のテキスト, Привет мир, العربية 😀👍🏽",
    "  leading, inner   runs\tand trailing spaces  ",
    "I said <mask> twice <mask> and <s> too",
    "def f(x):\t    return x ** 2  # 3.14159",
    "",
    " ".join(["botchan went to the school in the country"] * 12),
]


def main(shared):
    tok = xlm_roberta_fixture.xlm_roberta_tokenizer(shared, style="transformers5")
    with tempfile.TemporaryDirectory() as tmp:
        folder = xlm_roberta_fixture.write_xlm_roberta_folder(os.path.join(tmp, "xlmr"), tok)
        model, vectors = sentence_embeddings_reference.record(folder, SENTENCES)
        ids = model.tokenizer(SENTENCES, truncation=True, max_length=model.max_seq_length)["input_ids"]
        for sentence, got in zip(SENTENCES, ids):  # the file's ids, cut to max_seq_length with </s> kept
            want = tok.encode(sentence).ids
            want = want if len(want) <= 64 else want[:63] + [want[-1]]
            assert list(got) == want, (sentence, got, want)
    sentence_embeddings_reference.write_reference(os.path.join(ROOT, "tests/fixtures/hf-xlm-roberta/reference.json"),
                                                  "tests/python/record_xlm_roberta.py", SENTENCES, ids, vectors)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared"))
