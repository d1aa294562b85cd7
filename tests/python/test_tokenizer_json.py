"""Folders that carry only tokenizer.json, as most checkpoints published since 2024 do: heed
converts them and tokenizes as the `tokenizers` library (the format's own implementation) does, on
a corpus of scripts, emoji, whitespace runs, numbers and code. The tokenizer.json files are written
by that library from the fixtures' vocab.json/merges.txt and vocab.txt, then those files are removed."""
import os
import shutil

import pytest
import tokenizers
from tokenizers import decoders, models, normalizers, pre_tokenizers

from conftest import ROOT

FIXTURES = os.path.join(ROOT, "tests/fixtures")
CORPUS = [
    "Hello, world! It's 2026; we're testing.",
    "  leading and   inner   spaces\tand a tab",
    "numbers 3.14159 and 1,000,000 and ١٢٣",
    "Grüße aus Köln: Straße, naïve café, ÉCOLE",
    "日本語のテキストと中文字符",
    "emoji 😀👍🏽 and ✓ marks",
    "def f(x):\n    return x**2  # code",
    "Привет, мир! Ελληνικά. עברית. العربية",
    "<|endoftext|> and [MASK] [CLS] as text",
    "",
    "a" * 300,
]


def heed_ids(run, model, text):
    out = run("tokenize", "-m", model, "--ids-only", stdin=text.replace("\n", " ") + "\n")
    return [int(i) for i in out.split()]


def only_tokenizer_json(tmp_path, fixture, tokenizer, remove):
    folder = tmp_path / os.path.basename(fixture)
    shutil.copytree(fixture, folder)
    for name in remove:
        os.remove(folder / name)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def test_gpt2_byte_level_bpe_from_tokenizer_json(tmp_path, run):
    fixture = os.path.join(FIXTURES, "hf-gpt2")
    bpe = models.BPE.from_file(os.path.join(fixture, "vocab.json"), os.path.join(fixture, "merges.txt"))
    tok = tokenizers.Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<|endoftext|>"])
    folder = only_tokenizer_json(tmp_path, fixture, tok, ["vocab.json", "merges.txt"])
    model = str(tmp_path / "gpt2.heed")
    run("convert", str(folder), "-o", model)
    for text in CORPUS:
        assert heed_ids(run, model, text) == tok.encode(text.replace("\n", " ")).ids, text


@pytest.mark.parametrize("lowercase", [True, False])
def test_bert_wordpiece_from_tokenizer_json(tmp_path, run, lowercase):
    fixture = os.path.join(FIXTURES, "hf-bert/model")
    wordpiece = models.WordPiece.from_file(os.path.join(fixture, "vocab.txt"), unk_token="[UNK]")
    tok = tokenizers.Tokenizer(wordpiece)
    tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    folder = only_tokenizer_json(tmp_path, fixture, tok, ["vocab.txt", "tokenizer_config.json"])
    model = str(tmp_path / "bert.heed")
    run("convert", str(folder), "-o", model)
    for text in CORPUS:
        assert heed_ids(run, model, text) == tok.encode(text.replace("\n", " "), add_special_tokens=False).ids, text


def test_tokenizer_json_heed_cannot_run_is_refused(tmp_path, heed_cli):
    import subprocess
    fixture = os.path.join(FIXTURES, "hf-gpt2")
    bpe = models.BPE.from_file(os.path.join(fixture, "vocab.json"), os.path.join(fixture, "merges.txt"))
    tok = tokenizers.Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False)])
    folder = only_tokenizer_json(tmp_path, fixture, tok, ["vocab.json", "merges.txt"])
    p = subprocess.run([heed_cli, "convert", str(folder), "-o", str(tmp_path / "x.heed")], capture_output=True, text=True)
    assert p.returncode == 1
    assert "tokenizer.json: pre_tokenizer is {" in p.stderr and '"type":"Sequence"' in p.stderr, p.stderr
    assert not os.path.exists(tmp_path / "x.heed")
