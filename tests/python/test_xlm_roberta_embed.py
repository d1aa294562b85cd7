"""XLM-RoBERTa through heed: a sentence-transformers folder (xlm_roberta_fixture.py: Unigram
tokenizer.json from ../shared's botchan-1000.model, random weights from a fixed seed) converted
with `heed convert` (detected as hf-xlm-roberta) and embedded by `heed embed` equals what
sentence-transformers computed for the same folder (tests/fixtures/hf-xlm-roberta/reference.json,
written by record_xlm_roberta.py): the same token ids, float32 embeddings within 1e-5 cosine."""
import json
import os

import numpy as np

import xlm_roberta_fixture
from conftest import ROOT

REFERENCE = os.path.join(ROOT, "tests/fixtures/hf-xlm-roberta/reference.json")


def load_reference():
    with open(REFERENCE, encoding="utf-8") as f:
        return json.load(f)


def converted(tmp_path, run, shared, quantization="float32"):
    tok = xlm_roberta_fixture.xlm_roberta_tokenizer(shared, style="transformers5")
    folder = xlm_roberta_fixture.write_xlm_roberta_folder(str(tmp_path / "xlmr"), tok)
    model = str(tmp_path / ("xlmr-%s.heed" % quantization))
    run("convert", folder, "-o", model, "-q", quantization, "--quiet")
    return model


def test_token_ids_equal_sentence_transformers(tmp_path, run, shared):
    ref = load_reference()
    model = converted(tmp_path, run, shared)
    out = run("tokenize", "-m", model, "--ids-only", stdin="\n".join(ref["sentences"]) + "\n").split("\n")
    for sentence, line, want in zip(ref["sentences"], out, ref["ids"]):
        ids = [0] + [int(i) for i in line.split()] + [2]
        if len(ids) > 64:  # sentence-transformers cut it to max_seq_length, </s> kept
            ids = ids[:63] + [2]
        assert ids == want, sentence


def test_embeddings_equal_sentence_transformers(tmp_path, run, shared):
    ref = load_reference()
    model = converted(tmp_path, run, shared)
    info = run("inspect", model)
    assert "hf-xlm-roberta" in info and "Unigram" in info
    lines = run("embed", "-m", model, stdin="\n".join(ref["sentences"]) + "\n").splitlines()
    assert len(lines) == len(ref["sentences"])
    for sentence, line, want in zip(ref["sentences"], lines, ref["embeddings"]):
        got = np.array(json.loads(line)["embedding"], dtype=np.float64)
        want = np.array(want, dtype=np.float64)
        cosine = got @ want / (np.linalg.norm(got) * np.linalg.norm(want))
        assert cosine >= 1 - 1e-5, (sentence, cosine)
        assert abs(np.linalg.norm(got) - 1.0) < 1e-5  # the folder's Normalize module


def test_int8_embeddings_stay_close(tmp_path, run, shared):
    ref = load_reference()
    model = converted(tmp_path, run, shared, quantization="int8")
    lines = run("embed", "-m", model, stdin="\n".join(ref["sentences"]) + "\n").splitlines()
    for line, want in zip(lines, ref["embeddings"]):
        got = np.array(json.loads(line)["embedding"])
        assert got @ np.array(want) >= 0.99
