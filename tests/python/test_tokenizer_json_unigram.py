"""Unigram tokenizer.json files (XLM-RoBERTa, e5, T5-style SentencePiece exports): heed converts
them (as XLM-RoBERTa folders: xlm_roberta_fixture.py) and `heed tokenize` gives the ids the
`tokenizers` library gives, on a corpus of scripts, emoji, whitespace runs, numbers, code,
compatibility characters and added tokens. Each layout a real export uses is built here by the
library from ../shared's SentencePiece models (their pieces, scores and precompiled charsmaps) or
trained by it; components heed does not run are refused, named."""
import json
import os
import random
import subprocess

import pytest
from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers

import xlm_roberta_fixture as fixture
from xlm_roberta_fixture import MARK

CORPUS = [
    "Hello, world! It's 2026; we're testing.",
    "  leading and   inner   spaces\tand a tab  ",
    "trailing space ",
    " ",
    "\t\t",
    "numbers 3.14159 and 1,000,000 and ١٢٣ and ½ ²³ ① Ⅻ 0x1F",
    "Grüße aus Köln: Straße, naïve café, ÉCOLE, e\u0301 a\u0300\u0323",
    "ﬁnance ﬂow Ｆｕｌｌｗｉｄｔｈ ＡＢＣ１２３ ｶﾀｶﾅ ㍿ ℃ ™",
    "日本語のテキストと中文字符 한국어 텍스트 \u1100\u1161\u11a8",
    "emoji 😀👍🏽 and ✓ marks 👨\u200d👩\u200d👧\u200d👦 🇩🇪🇫🇷 ❤️",
    "def f(x):    return x**2  # code {a: [1, 2]} && || != <= >=",
    "Привет, мир! Ελληνικά. עברית. العربية हिन्दी ไทย",
    "<mask> at the start, <s> and </s> and <pad> <unk> inside, end <mask>",
    "two  <mask>  masks<mask>glued \t<mask>",
    "＜ｓ＞ fullwidth tags and \u2581 the mark \u2581\u2581 itself",
    "nbsp\u00a0here\u3000ideographic\u2003em\u200bzero-width\ufeffbom",
    "control\u0007bell\u0001soh and \u00ad soft hyphen",
    "\u0001starts with a control character",
    "<mask>starts with a mask",
    "",
    "a" * 300,
    "x" * 40 + " " * 10 + "y",
    "Mixed CASE Words With Capitals and a URL https://example.com/a?b=c&d=e",
]


def spm(shared, name="botchan-1000.model"):
    return fixture.read_sentencepiece_model(os.path.join(shared, "data/sentencepiece", name))


def unigram(shared, byte_pieces=False):
    pieces, charsmap = spm(shared)
    vocab = fixture.xlm_roberta_vocab(pieces)
    if byte_pieces:
        vocab = vocab[:-1] + [("<0x%02X>" % b, 0.0) for b in range(256)] + vocab[-1:]
    return Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=byte_pieces)), charsmap


def sentencepiece_exact(shared):
    """transformers' build_tokenizer_from_spm_proto (legacy): SentencePiece's own whitespace rules
    as normalizers, Metaspace without split, every stretch prefixed."""
    tok, charsmap = unigram(shared)
    tok.normalizer = normalizers.Sequence([
        normalizers.Precompiled(charsmap), normalizers.Replace(Regex(r"\A +| +\z"), ""),
        normalizers.Replace(Regex(" {2,}"), " "), normalizers.Replace(" ", MARK),
        normalizers.Replace(Regex(r"\A" + MARK), MARK + MARK)])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=MARK, prepend_scheme="always", split=False)
    return fixture.add_xlm_roberta_specials(tok)


def prepend_first(shared):
    """Metaspace's prepend scheme "first" (only the text's start, not after an added token)."""
    tok, charsmap = unigram(shared)
    tok.normalizer = normalizers.Precompiled(charsmap)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=MARK, prepend_scheme="first", split=True)
    return fixture.add_xlm_roberta_specials(tok)


def byte_fallback(shared):
    """Byte pieces for what the pieces cannot spell; Strip and Prepend instead of a pre-tokenizer."""
    tok, _ = unigram(shared, byte_pieces=True)
    tok.normalizer = normalizers.Sequence([normalizers.Strip(left=True, right=True), normalizers.Prepend(MARK),
                                           normalizers.Replace(" ", MARK)])
    return fixture.add_xlm_roberta_specials(tok)


def trained(shared):
    """A Unigram trained by the library on botchan.txt and many scripts, T5's pre-tokenizer
    (WhitespaceSplit, Metaspace) and wmt-ende-sample.sp.model's charsmap."""
    _, charsmap = spm(shared, "wmt-ende-sample.sp.model")
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Precompiled(charsmap)
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Metaspace(replacement=MARK, prepend_scheme="always")])
    with open(os.path.join(shared, "data/sentencepiece/botchan.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    lines += CORPUS * 20
    trainer = trainers.UnigramTrainer(vocab_size=1500, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], unk_token="<unk>")
    tok.train_from_iterator(lines, trainer)
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    return fixture.add_xlm_roberta_specials(tok)


LAYOUTS = {
    "xlm-roberta": lambda shared: fixture.xlm_roberta_tokenizer(shared),
    "transformers5": lambda shared: fixture.xlm_roberta_tokenizer(shared, style="transformers5"),
    "sentencepiece": sentencepiece_exact,
    "prepend-first": prepend_first,
    "byte-fallback": byte_fallback,
    "trained": trained,
}


def model_folder(tmp_path, tok, edit=None):
    """The tokenizer in a small XLM-RoBERTa folder; edit(j) changes its tokenizer.json first."""
    folder = fixture.write_xlm_roberta_folder(str(tmp_path / "model"), tok, sentence_transformers=False)
    if edit:
        path = os.path.join(folder, "tokenizer.json")
        with open(path, encoding="utf-8") as f:
            j = json.load(f)
        edit(j)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(j, f)
    return folder


def converted(tmp_path, run, tok, edit=None):
    folder = model_folder(tmp_path, tok, edit)
    model = str(tmp_path / "model.heed")
    run("convert", folder, "-o", model, "--quiet")
    return model, Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))


def assert_same_ids(run, model, tok, corpus=CORPUS):
    lines = run("tokenize", "-m", model, "--ids-only", stdin="\n".join(corpus) + "\n").split("\n")
    for text, line in zip(corpus, lines):
        assert [int(i) for i in line.split()] == tok.encode(text, add_special_tokens=False).ids, text


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_ids_equal_the_tokenizers_library(tmp_path, run, shared, layout):
    model, tok = converted(tmp_path, run, LAYOUTS[layout](shared))
    assert_same_ids(run, model, tok)


# Pieces random text is drawn from: added tokens, whitespace of every kind, combining marks,
# compatibility characters, emoji sequences, controls.
PIECES = list("abcdefghij ABCXYZ  \t\u00a0\u3000.,!?'-0123456789") + [
    "<mask>", "<s>", "</s>", "<pad>", "<unk>", MARK, "\ufb01", "\uff26", "\u00e9", "e\u0301", "\u0301", "\u65e5\u672c",
    "\U0001f600", "\U0001f44d\U0001f3fd", "\u200d", "\U0001f1e9\U0001f1ea", "\u0007", "\u00ad", "\u00df", "\u03a9",
    "\u1100\u1161", "\uff76\uff9e", "\u00bd", "\ufeff", "\u200b", "  ", "\u2028"]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_random_text_gives_the_librarys_ids(tmp_path, run, shared, layout):
    rng = random.Random(20261128)
    corpus = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))) for _ in range(400)]
    model, tok = converted(tmp_path, run, LAYOUTS[layout](shared))
    assert_same_ids(run, model, tok, corpus)


def old_serialization(j):
    """As files written before Metaspace had prepend_scheme and split, and models a type."""
    j["pre_tokenizer"] = {"type": "Metaspace", "replacement": MARK, "add_prefix_space": True}
    del j["model"]["type"]


def test_files_of_older_tokenizers_versions(tmp_path, run, shared):
    model, tok = converted(tmp_path, run, fixture.xlm_roberta_tokenizer(shared), edit=old_serialization)
    assert_same_ids(run, model, tok)


def test_decode_gives_the_text_back(tmp_path, run, shared):
    model, tok = converted(tmp_path, run, fixture.xlm_roberta_tokenizer(shared))
    text = "the master said he would come back tomorrow"
    ids = " ".join(str(i) for i in tok.encode(text, add_special_tokens=False).ids)
    assert run("tokenize", "-m", model, "--decode", stdin=ids + "\n") == text + "\n"


def refused(tmp_path, heed_cli, shared, edit):
    folder = model_folder(tmp_path, fixture.xlm_roberta_tokenizer(shared), edit)
    p = subprocess.run([heed_cli, "convert", folder, "-o", str(tmp_path / "x.heed")], capture_output=True)
    assert p.returncode == 1 and not os.path.exists(tmp_path / "x.heed")
    return p.stderr.decode()


@pytest.mark.parametrize("edit, named", [
    (lambda j: j.update(normalizer={"type": "NFKC"}), '"NFKC"'),
    (lambda j: j["normalizer"]["normalizers"][1].update(pattern={"Regex": "\\s+"}), "\\\\s+"),
    (lambda j: j.update(pre_tokenizer={"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated",
                                       "invert": False}), '"Split"'),
    (lambda j: j["added_tokens"][-1].update(single_word=True), "single_word"),
    (lambda j: j["added_tokens"][-1].update(normalized=True), "normalized"),
    (lambda j: j["model"].update(unk_id=None), "model.unk_id"),
    (lambda j: j.update(post_processor={"type": "ByteLevel"}), "post_processor"),
    (lambda j: j["pre_tokenizer"].update(prepend_scheme="first"), "prepend_scheme first only"),
    (lambda j: j["model"]["vocab"].__setitem__(5, ["", -1.0]), "empty piece"),
    (lambda j: j["model"]["vocab"].__setitem__(5, ["a", "high"]), "not [piece, score]"),
    (lambda j: j["normalizer"]["normalizers"][0].update(precompiled_charsmap="not base64!"), "not base64"),
    (lambda j: j["normalizer"]["normalizers"][0].update(precompiled_charsmap="AAEAAP////8="), "unusable"),
    (lambda j: j["pre_tokenizer"].update(replacement=5), "pre_tokenizer"),
    (lambda j: j["pre_tokenizer"].update(prepend_scheme="sometimes"), "prepend_scheme"),
    (lambda j: j["added_tokens"][-1].update(id=5000), "outside"),
])
def test_components_heed_does_not_run_are_refused(tmp_path, heed_cli, shared, edit, named):
    assert named in refused(tmp_path, heed_cli, shared, edit)
