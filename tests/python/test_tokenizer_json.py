"""Folders that carry only tokenizer.json, as most checkpoints published since 2024 do: heed
converts them and tokenizes as the `tokenizers` library (the format's own implementation) does, on
a corpus of scripts, emoji, whitespace runs, numbers and code. The tokenizer.json files are written
by that library from the fixtures' vocab.json/merges.txt and vocab.txt, then those files are removed."""
import os
import random
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


CHAT_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def smollm_style_tokenizer(shared, vocab_size):
    """A byte-level BPE trained by the tokenizers library on botchan.txt the way SmolLM's is built:
    Digits (individual) then ByteLevel, chat special tokens first, exactly vocab_size entries."""
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=CHAT_TOKENS,
                                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train([os.path.join(shared, "data/sentencepiece/botchan.txt")], trainer)
    assert tok.get_vocab_size() == vocab_size
    return tok


def test_llama_with_a_smollm_style_tokenizer_json(tmp_path, run, shared):
    """tests/fixtures/hf-llama's weights with a tokenizer.json instead of tokenizer.model: ids as the
    library's (digits one by one, chat tokens whole), no start token added (the tokenizer adds none),
    and the same continuation as the SentencePiece conversion of the same weights for the same ids."""
    fixture = os.path.join(FIXTURES, "hf-llama")
    tok = smollm_style_tokenizer(shared, 400)
    folder = only_tokenizer_json(tmp_path, fixture, tok, ["tokenizer.model"])
    model, reference = str(tmp_path / "llama-json.heed"), str(tmp_path / "llama-spm.heed")
    run("convert", str(folder), "-o", model, "--quantize", "float32")
    run("convert", fixture, "-o", reference, "--quantize", "float32")
    chat = "<|im_start|>user\nWhat is 12 + 305?<|im_end|>\n<|im_start|>assistant\n"
    for text in CORPUS + [chat.replace("\n", " ")]:
        assert heed_ids(run, model, text) == tok.encode(text.replace("\n", " ")).ids, text
    # The SentencePiece conversion starts from <s> (id 1) itself; this one starts from the prompt.
    ids = "1 45 200 17 3 399"
    same_ids = run("generate", "-m", model, "--prompt-ids", ids, "--max-len", "12", "--ids")
    assert same_ids == run("generate", "-m", reference, "--prompt-ids", ids.split(" ", 1)[1], "--max-len", "12", "--ids")


# The Split regexes of Llama 3's and Qwen2's tokenizer.json, as those files spell them.
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_SPLIT = LLAMA3_SPLIT.replace(r"\p{N}{1,3}", r"\p{N}")
SPLIT_CORPUS = CORPUS + [
    "I'LL say it's HERE'S and We'Re done, don't",
    "1234567 and 12 345 and ١٢٣٤٥ and 3.14159",
    "(hello) [world] {x} \"quoted\" 'single' --flag=1",
    "line one\nline two\r\n\n  indented\n\tand tabbed   \n",
    "trailing spaces   ",
    "   \n\n   leading breaks",
    "e\u0301t\u00e9 A\u030a \u212b combining forms",
    "!!!...???\n\n***",
    "a\u00a0b\u2003c\u3000d",
]


SPLIT_TRAINING = "I'LL We'Re HERE'S don't it's 1234567 12 345 2026 3.14159 (hello) [world] --flag=1\n\tand\r\n\n  indented   \n"


@pytest.mark.parametrize("family", ["llama3", "qwen2"])
def test_split_regex_byte_level_bpe_from_tokenizer_json(tmp_path, run, shared, family):
    """Llama 3's and Qwen2's pre-tokenization (a Split by the family's regex, then ByteLevel without
    GPT-2's; Qwen2 with an NFC normalizer) on a BPE the tokenizers library trains that way: heed's
    ids equal the library's on the corpus, line breaks included (through the Python package, whose
    encode takes a string with newlines; the CLI reads lines)."""
    import heed
    tok = tokenizers.Tokenizer(models.BPE())
    pattern = LLAMA3_SPLIT if family == "llama3" else QWEN2_SPLIT
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    if family == "qwen2":
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=400, special_tokens=CHAT_TOKENS,
                                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    # English prose and, often enough to earn merges within 400 tokens, what the patterns split
    # differently from GPT-2's (digit runs, tabs and line breaks before words, capital contractions).
    with open(os.path.join(shared, "data/sentencepiece/botchan.txt"), encoding="utf-8") as f:
        prose = f.read().split("\n")[:200]
    tok.train_from_iterator(prose + [SPLIT_TRAINING] * 50, trainer)
    assert tok.get_vocab_size() == 400
    gpt2_split = tokenizers.Tokenizer.from_str(tok.to_str())
    gpt2_split.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert sum(tok.encode(t).ids != gpt2_split.encode(t).ids for t in SPLIT_CORPUS) >= 3  # the test can tell
    folder = only_tokenizer_json(tmp_path, os.path.join(FIXTURES, "hf-llama"), tok, ["tokenizer.model"])
    model = str(tmp_path / (family + ".heed"))
    run("convert", str(folder), "-o", model, "--quantize", "float32")
    session = heed.Generator(model)._session(1)
    for text in SPLIT_CORPUS:
        assert session.encode(text) == tok.encode(text).ids, repr(text)
        if "\n" not in text and "\r" not in text:
            assert heed_ids(run, model, text) == tok.encode(text).ids, repr(text)
    # Seeded random strings over the characters where the alternatives of the regex meet.
    pieces = ["a", "Z", "'", "s", "S", "LL", "d", " ", "  ", "\t", "\n", "\r", "1", "\u0661", "(", "!", "\u00e9", "e\u0301",
              "\u2003", "\U0001F600", "\u00a0", "\u00df", "\u65e5", ".", "-", "\u212b"]
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert session.encode(text) == tok.encode(text).ids, repr(text)


def test_tokenizer_json_heed_cannot_run_is_refused(tmp_path, heed_cli):
    import subprocess
    fixture = os.path.join(FIXTURES, "hf-gpt2")
    bpe = models.BPE.from_file(os.path.join(fixture, "vocab.json"), os.path.join(fixture, "merges.txt"))
    tok = tokenizers.Tokenizer(bpe)
    # A Split by a pattern heed does not know (neither Llama 3's nor Qwen2's) before a ByteLevel.
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(tokenizers.Regex(r"\p{N}{1,3}| ?\p{L}+|\s+"), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    folder = only_tokenizer_json(tmp_path, fixture, tok, ["vocab.json", "merges.txt"])
    p = subprocess.run([heed_cli, "convert", str(folder), "-o", str(tmp_path / "x.heed")], capture_output=True, text=True)
    assert p.returncode == 1
    assert "tokenizer.json: the Split pre-tokenizer's pattern is" in p.stderr and "Llama 3's or Qwen2's" in p.stderr, p.stderr
    assert not os.path.exists(tmp_path / "x.heed")
