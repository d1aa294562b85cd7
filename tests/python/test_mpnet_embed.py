"""MPNet through heed: a sentence-transformers folder (mpnet_fixture.py: the hf-bert fixture's
WordPiece vocabulary in MPNet's layout, random weights from a fixed seed) converted with `heed
convert` (detected as hf-mpnet) and embedded by `heed embed` equals what sentence-transformers
computed for the same folder (tests/python/data/mpnet_reference.json, written by record_mpnet.py):
the same token ids, float32 embeddings within 1e-5 cosine, sentences of up to 320 tokens (past
the relative position buckets' max_distance of 128), the default int8 close. Folders heed does
not run are refused with the reason."""
import json
import os
import subprocess

import numpy as np
import pytest

import mpnet_fixture
import random_weights
from conftest import ROOT

REFERENCE = os.path.join(ROOT, "tests/python/data/mpnet_reference.json")


def load_reference():
    with open(REFERENCE, encoding="utf-8") as f:
        return json.load(f)


def converted(tmp_path, run, quantization="float32", **files):
    folder = mpnet_fixture.write_mpnet_folder(str(tmp_path / "mpnet"), **files)
    model = str(tmp_path / ("mpnet-%s.heed" % quantization))
    args = ["convert", folder, "-o", model, "--quiet"] + (["-q", quantization] if quantization else [])
    run(*args)
    return model


def cosines(run, model, ref):
    lines = run("embed", "-m", model, stdin="\n".join(ref["sentences"]) + "\n").splitlines()
    assert len(lines) == len(ref["sentences"])
    got = np.array([json.loads(line)["embedding"] for line in lines], dtype=np.float64)
    want = np.array(ref["embeddings"], dtype=np.float64)
    return np.sum(got * want, axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1)), got


@pytest.mark.parametrize("files", [{}, {"vocab_txt": False}], ids=["vocab.txt", "tokenizer.json-only"])
def test_token_ids_equal_sentence_transformers(tmp_path, run, files):
    ref = load_reference()
    model = converted(tmp_path, run, **files)
    out = run("tokenize", "-m", model, "--ids-only", stdin="\n".join(ref["sentences"]) + "\n").split("\n")
    for sentence, line, want in zip(ref["sentences"], out, ref["ids"]):
        ids = [0] + [int(i) for i in line.split()] + [2]
        if len(ids) > mpnet_fixture.MAX_SEQ_LENGTH:  # sentence-transformers cut it, </s> kept
            ids = ids[:mpnet_fixture.MAX_SEQ_LENGTH - 1] + [2]
        assert ids == want, sentence


def test_embeddings_equal_sentence_transformers(tmp_path, run):
    ref = load_reference()
    model = converted(tmp_path, run)
    info = run("inspect", model)
    assert "hf-mpnet" in info and "relative_attention_buckets" in info and "128" in info
    cos, got = cosines(run, model, ref)
    for sentence, c in zip(ref["sentences"], cos):
        assert c >= 1 - 1e-5, (sentence, c)
    assert np.all(np.abs(np.linalg.norm(got, axis=1) - 1.0) < 1e-5)  # the folder's Normalize module


def test_relative_position_bias_matters(tmp_path, run):
    """The same folder with its relative attention bias zeroed embeds differently: the float32
    agreement above depends on the bias heed adds."""
    ref = load_reference()
    folder = mpnet_fixture.write_mpnet_folder(str(tmp_path / "mpnet"))
    weights = mpnet_fixture.random_weights(dict(mpnet_fixture.CONFIG, vocab_size=len(mpnet_fixture.mpnet_vocab())),
                                           20261129)
    weights["encoder.relative_attention_bias.weight"][:] = 0
    random_weights.write_safetensors(os.path.join(folder, "model.safetensors"), weights)
    model = str(tmp_path / "no-bias.heed")
    run("convert", folder, "-o", model, "-q", "float32", "--quiet")
    cos, _ = cosines(run, model, ref)
    assert np.min(cos) < 0.99, np.min(cos)


def test_default_int8_stays_close(tmp_path, run):
    ref = load_reference()
    cos, _ = cosines(run, converted(tmp_path, run, quantization=None), ref)
    print("default int8: cosine min %.5f mean %.5f" % (np.min(cos), np.mean(cos)))
    assert np.min(cos) >= 0.99, np.min(cos)


@pytest.mark.parametrize("edit,message", [
    ({"relative_attention_num_buckets": 64}, "relative_attention_num_buckets 64 is not supported"),
    ({"architectures": ["MPNetForSequenceClassification"]}, "architecture MPNetForSequenceClassification is not supported"),
    ({"hidden_act": "tanh"}, "hidden_act 'tanh' is not supported"),
])
def test_variants_heed_does_not_run_are_refused(tmp_path, heed_cli, edit, message):
    folder = mpnet_fixture.write_mpnet_folder(str(tmp_path / "mpnet"), config=dict(mpnet_fixture.CONFIG, **edit))
    p = subprocess.run([heed_cli, "convert", folder, "-o", str(tmp_path / "m.heed")], capture_output=True)
    assert p.returncode != 0
    assert message in p.stderr.decode("utf-8"), p.stderr.decode("utf-8")


def test_detection_names_the_missing_tokenizer(tmp_path, heed_cli):
    folder = mpnet_fixture.write_mpnet_folder(str(tmp_path / "mpnet"), vocab_txt=False, tokenizer_json=False)
    p = subprocess.run([heed_cli, "convert", folder, "-o", str(tmp_path / "m.heed")], capture_output=True)
    assert p.returncode != 0
    assert "mpnet folder (hf-mpnet) without vocab.txt or tokenizer.json" in p.stderr.decode("utf-8")
