#!/usr/bin/python3
"""`heed tokenize` and `heed inspect --vocab` end to end, against references heed did not produce.

    tokenize_cli_test.py "EMULATOR" HEED SOURCE_DIR SHARED_DIR WORK_DIR   (EMULATOR may be empty)

One model per tokenizer kind, each against its own authors' files or library outputs:
- whitespace tokens: the aren translation model (source and target vocabulary files, CTranslate2's
  implied <unk> after the last line) and the onmt-lm language model (vocabulary.json);
- SentencePiece: the Marian fixture (vocab.json, MarianTokenizer's pieces and ids of source and
  target sentences) and the Llama fixture (tokenizer.model's pieces, LlamaTokenizer's ids);
- WordPiece: the BERT fixture (vocab.txt, BertTokenizer's ids);
- byte-level BPE: the GPT-2 fixture (vocab.json, GPT2Tokenizer's ids);
- byte-fallback BPE: llama2.c's stories260K (tok512.bin, the NumPy reference's prompt ids).
--vocab must list the reference vocabulary in id order, escaped as documented (re-implemented
here from the help text); tokenize must give the reference pieces and ids, and --decode the text
back. Then the output format, one line per input line, and the errors' exit codes and lines; and
`heed score` on plain text against the same pieces given as tokens.
Standard library only.
"""
import json
import os
import shlex
import struct
import subprocess
import sys

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def run(cmd, stdin=""):
    return subprocess.run(cmd, input=stdin.encode("utf-8"), capture_output=True)


def run_ok(cmd, stdin=""):
    p = run(cmd, stdin)
    if p.returncode != 0:
        print("command failed:", " ".join(cmd), p.stderr.decode("utf-8", "replace"), file=sys.stderr)
        sys.exit(1)
    return p.stdout.decode("utf-8")


def escape(token):
    """The documented escaping: control bytes (C0, DEL, C1), bytes that are not UTF-8, the
    backslash and the space as \\xNN; everything else as it is."""
    data = token.encode("utf-8", "surrogateescape") if isinstance(token, str) else token
    out, i = [], 0
    while i < len(data):
        c = data[i]
        if 0x20 < c < 0x7F and c != 0x5C:
            out.append(chr(c))
            i += 1
            continue
        n = 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 0
        try:
            ch = data[i:i + n].decode("utf-8") if n and i + n <= len(data) else None
        except UnicodeDecodeError:
            ch = None
        if ch is not None and ord(ch) > 0x9F:
            out.append(ch)
            i += n
        else:
            out.append("\\x%02X" % c)
            i += 1
    return "".join(out)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def by_id(token_to_id):
    return [t for t, _ in sorted(token_to_id.items(), key=lambda kv: kv[1])]


def sentencepiece_pieces(path):
    """The pieces of a serialized SentencePiece ModelProto (field 1, each a message whose field 1
    is the piece), read with a minimal protobuf walker."""
    data = open(path, "rb").read()

    def varint(buf, i):
        value = shift = 0
        while True:
            b = buf[i]
            value |= (b & 0x7F) << shift
            i += 1
            if b < 0x80:
                return value, i
            shift += 7

    def fields(buf):
        i = 0
        while i < len(buf):
            key, i = varint(buf, i)
            kind = key & 7
            if kind == 0:
                value, i = varint(buf, i)
            elif kind == 1:
                value, i = buf[i:i + 8], i + 8
            elif kind == 2:
                size, i = varint(buf, i)
                value, i = buf[i:i + size], i + size
            elif kind == 5:
                value, i = buf[i:i + 4], i + 4
            else:
                raise ValueError("unexpected protobuf wire type %d" % kind)
            yield key >> 3, value

    return [dict(fields(entry))[1].decode("utf-8") for number, entry in fields(data) if number == 1]


def llama2c_tokens(path):
    """tok512.bin: max_token_length, then per token its score (f32), length (i32) and bytes."""
    data = open(path, "rb").read()
    tokens, i = [], 4
    while i < len(data):
        _, length = struct.unpack_from("<fi", data, i)
        tokens.append(data[i + 8:i + 8 + length])
        i += 8 + length
    return tokens


class Heed:
    def __init__(self, cmd, work):
        self.cmd, self.work = cmd, work

    def convert(self, source, name):
        out = os.path.join(self.work, name + ".heed")
        run_ok(self.cmd + ["convert", source, "-o", out, "--quiet"])
        return out

    def vocab(self, model, *extra):
        return run_ok(self.cmd + ["inspect", model, "--vocab", *extra]).split("\n")[:-1]

    def tokenize(self, model, lines, *extra):
        """(pieces, ids) per line; pieces as printed (escaped)."""
        out = run_ok(self.cmd + ["tokenize", "-m", model, *extra], "".join(l + "\n" for l in lines))
        rows = out.split("\n")[:-1]
        check(len(rows) == len(lines), "%s: %d output lines for %d input lines" % (model, len(rows), len(lines)))
        result = []
        for row in rows:
            check(row.count("\t") == 1, "%s: not 'pieces<TAB>ids': %r" % (model, row))
            pieces, _, ids = row.partition("\t")
            result.append((pieces.split(" ") if pieces else [], [int(x) for x in ids.split(" ")] if ids else []))
        return result

    def decode(self, model, id_lists, *extra):
        stdin = "".join(" ".join(map(str, ids)) + "\n" for ids in id_lists)
        return run_ok(self.cmd + ["tokenize", "-m", model, "--decode", *extra], stdin).split("\n")[:-1]


def check_vocab(heed, model, expected, what, *extra):
    got = heed.vocab(model, *extra)
    want = [escape(t) for t in expected]
    if check(len(got) == len(want), "%s: --vocab has %d lines, the reference %d tokens" % (what, len(got), len(want))):
        wrong = [i for i in range(len(got)) if got[i] != want[i]]
        check(not wrong, "%s: --vocab differs at ids %s (first: %r vs %r)" %
              (what, wrong[:5], got[wrong[0]] if wrong else "", want[wrong[0]] if wrong else ""))


def check_tokens(heed, model, texts, pieces, ids, what, *extra):
    """texts tokenize to the reference pieces (None: not checked) and ids."""
    got = heed.tokenize(model, texts, *extra)
    for k, text in enumerate(texts):
        if pieces is not None:
            check(got[k][0] == [escape(p) for p in pieces[k]], "%s: pieces of %r: %s" % (what, text, got[k][0]))
        check(got[k][1] == ids[k], "%s: ids of %r: %s, reference %s" % (what, text, got[k][1], ids[k]))


def check_decode(heed, model, id_lists, texts, what, *extra):
    got = heed.decode(model, id_lists, *extra)
    check(got == texts, "%s: --decode gives %s, expected %s" % (what, got, texts))


def whitespace_models(heed, shared):
    aren_dir = os.path.join(shared, "models/ct2/aren-transliteration")
    aren = heed.convert(aren_dir, "aren")
    for side in ("source", "target"):
        with open(os.path.join(aren_dir, side + "_vocabulary.txt"), encoding="utf-8") as f:
            tokens = f.read().split("\n")[:-1]
        tokens += ["<unk>"] if "<unk>" not in tokens else []  # CTranslate2's implied last token
        check_vocab(heed, aren, tokens, "aren " + side, "--side", side)
        # The known transliteration pair's tokens: ids are the vocabulary file's line numbers.
        words = ["آ ت ز م و ن", "آ ز ا"] if side == "source" else ["a t z m o n", "a z z a"]
        check_tokens(heed, aren, words + ["unknown@word"], [w.split() for w in words] + [["unknown@word"]],
                     [[tokens.index(t) for t in w.split()] for w in words] + [[tokens.index("<unk>")]],
                     "aren " + side, "--side", side)
        check_decode(heed, aren, [[tokens.index(t) for t in w.split()] for w in words], words,
                     "aren " + side, "--side", side)
    check(heed.vocab(aren) == heed.vocab(aren, "--side", "source"), "aren: --vocab lists the source side by default")

    lm_dir = os.path.join(shared, "models/ct2/onmt-lm")
    lm = heed.convert(lm_dir, "onmt-lm")
    vocabulary = read_json(os.path.join(lm_dir, "vocabulary.json"))
    for side in ([], ["--side", "source"], ["--side", "target"]):  # one vocabulary, whichever side
        check_vocab(heed, lm, vocabulary, "onmt-lm vocabulary %s" % side, *side)
    with open(os.path.join(shared, "data/lm-prompts/src-gen.txt"), encoding="utf-8") as f:
        prompts = f.read().split("\n")[:-1]
    index = {t: i for i, t in reversed(list(enumerate(vocabulary)))}
    check_tokens(heed, lm, prompts, [p.split() for p in prompts],
                 [[index.get(w, index["<unk>"]) for w in p.split()] for p in prompts], "onmt-lm")


def sentencepiece_models(heed, source_dir):
    fixture = os.path.join(source_dir, "tests/fixtures/marian/tiny-en-de")
    marian = heed.convert(fixture, "marian")
    ref = read_json(os.path.join(fixture, "reference.json"))
    vocabulary = by_id(read_json(os.path.join(fixture, "vocab.json")))
    for side in ("source", "target"):
        check_vocab(heed, marian, vocabulary, "marian " + side, "--side", side)
    # MarianTokenizer appends </s> (to the ids; the target sentences' pieces list it too); tokenize
    # adds no special token.
    for side, sentences in (("source", ref["sentences"]), ("target", ref["targets"])):
        texts = [s["text"] for s in sentences]
        ids = [s["ids"][:-1] for s in sentences]
        check_tokens(heed, marian, texts, [s["pieces"][:len(i)] for s, i in zip(sentences, ids)], ids,
                     "marian " + side, "--side", side)
        # The library's ids, </s> included (a special token: left out), decode back to the text
        # where SentencePiece keeps it: no unknown character, no run of spaces.
        kept = [s for s in sentences if ref["unk_id"] not in s["ids"] and " ".join(s["text"].split()) == s["text"]]
        check(len(kept) >= 3, "marian %s: sentences for the round trip" % side)
        check_decode(heed, marian, [s["ids"] for s in kept], [s["text"] for s in kept], "marian " + side,
                     "--side", side)

    fixture = os.path.join(source_dir, "tests/fixtures/hf-llama")
    llama = heed.convert(fixture, "llama")
    check_vocab(heed, llama, sentencepiece_pieces(os.path.join(fixture, "tokenizer.model")), "llama")
    prompts = read_json(os.path.join(fixture, "reference.json"))["prompts"]
    texts = [p["text"] for p in prompts]
    ids = [p["input_ids"][1:] for p in prompts]  # LlamaTokenizer's BOS first
    check_tokens(heed, llama, texts, None, ids, "llama")
    check_decode(heed, llama, ids, texts, "llama")


def bpe_models(heed, source_dir, shared):
    fixture = os.path.join(source_dir, "tests/fixtures/hf-gpt2")
    gpt2 = heed.convert(fixture, "gpt2")
    check_vocab(heed, gpt2, by_id(read_json(os.path.join(fixture, "vocab.json"))), "gpt2")
    ref = read_json(os.path.join(fixture, "reference.json"))
    cases = [c for c in ref["tokenizer"] if "\n" not in c["text"] and "\r" not in c["text"]]
    cases += [{"text": p["text"], "ids": p["input_ids"]} for p in ref["prompts"]]
    check(len(cases) >= 10, "gpt2: the reference has one-line texts")
    check_tokens(heed, gpt2, [c["text"] for c in cases], None, [c["ids"] for c in cases], "gpt2")
    check_decode(heed, gpt2, [c["ids"] for c in cases], [c["text"].replace("<|endoftext|>", "") for c in cases],
                 "gpt2")

    fixture = os.path.join(source_dir, "tests/fixtures/hf-bert")
    bert = heed.convert(os.path.join(fixture, "model"), "bert")
    with open(os.path.join(fixture, "model/vocab.txt"), encoding="utf-8") as f:
        check_vocab(heed, bert, f.read().split("\n")[:-1], "bert")
    ref = read_json(os.path.join(fixture, "reference.json"))
    one_line = [k for k, s in enumerate(ref["sentences"]) if "\n" not in s and "\r" not in s]
    check(len(one_line) >= 10, "bert: the reference has one-line sentences")
    # BertTokenizer's ids hold [CLS] first and [SEP] last.
    check_tokens(heed, bert, [ref["sentences"][k] for k in one_line], None,
                 [ref["ids_uncased"][k][1:-1] for k in one_line], "bert")

    stories_dir = os.path.join(shared, "models/llama2c/stories260k")
    stories = heed.convert(stories_dir, "stories")
    # Its vocabulary holds "\n<s>\n" and raw byte pieces: the escaping keeps one token per line.
    check_vocab(heed, stories, llama2c_tokens(os.path.join(stories_dir, "tok512.bin")), "stories260K")
    with open(os.path.join(source_dir, "tests/fixtures/llama2c/stories260k_reference.json"), encoding="utf-8") as f:
        ref = json.load(f)
    ids = ref["sequence"][1:]  # BOS first
    check_tokens(heed, stories, [ref["prompt"]], None, [ids], "stories260K")
    check_decode(heed, stories, [ids], [ref["prompt"]], "stories260K")
    return stories


def output_format(heed, marian, stories):
    lines = ["Hello world.", "", "  two   spaces  "]
    both = run_ok(heed.cmd + ["tokenize", "-m", marian], "\n".join(lines) + "\n").split("\n")[:-1]
    pieces = run_ok(heed.cmd + ["tokenize", "-m", marian, "--pieces-only"], "\n".join(lines) + "\n").split("\n")[:-1]
    ids = run_ok(heed.cmd + ["tokenize", "-m", marian, "--ids-only"], "\n".join(lines)).split("\n")[:-1]
    check(len(both) == 3 and both[1] == "\t", "an empty line gives a tab alone: %s" % both)
    check([b.split("\t")[0] for b in both] == pieces, "--pieces-only is the first column: %s vs %s" % (pieces, both))
    check([b.split("\t")[1] for b in both] == ids, "--ids-only is the second column (last line without a newline)")
    # Comma-separated ids decode too (generate --prompt-ids' form), and every piece printed is a
    # line of --vocab (the same escaping): llama2.c's pieces begin with a space.
    row = run_ok(heed.cmd + ["tokenize", "-m", stories], "Once upon a time\n").rstrip("\n")
    vocab = heed.vocab(stories)
    check(all(vocab[int(i)] == p for p, i in zip(row.split("\t")[0].split(" "), row.split("\t")[1].split(" "))),
          "stories260K: pieces are their ids' --vocab lines: %r" % row)
    check(row.startswith("\\x20Once"), "a leading space is written \\x20: %r" % row)
    out = run_ok(heed.cmd + ["tokenize", "-m", stories, "--decode"], "403,407, 261\n")
    check(out == "Once upon a\n", "comma-separated ids: %r" % out)


def errors(heed, marian):
    def expect(args, stdin, code, what, line=None):
        p = run(heed.cmd + args, stdin)
        err = p.stderr.decode("utf-8", "replace")
        check(p.returncode == code, "%s: exit %d, expected %d (%s)" % (what, p.returncode, code, err.strip()))
        if code == 1:
            check(err.count("\n") == 1 and err.startswith("heed "), "%s: not one line on stderr: %r" % (what, err))
        if line is not None:
            check(("line %d:" % line) in err, "%s: the message does not name line %d: %r" % (what, line, err))

    expect(["tokenize", "-m", marian, "--decode"], "3 4\n1 330\n", 1, "an id past the vocabulary", 2)
    expect(["tokenize", "-m", marian, "--decode"], "3\n\n5 x\n", 1, "a word among ids", 3)
    expect(["tokenize", "-m", marian, "--decode"], "-1\n", 1, "a negative id", 1)
    expect(["tokenize", "-m", os.path.join(heed.work, "missing.heed")], "", 1, "a missing model")
    expect(["tokenize", "-m", marian, "--ids-only", "--pieces-only"], "", 2, "--ids-only with --pieces-only")
    expect(["tokenize", "-m", marian, "--decode", "--ids-only"], "", 2, "--decode with --ids-only")
    expect(["tokenize", "-m", marian, "--side", "both"], "", 2, "--side both")
    expect(["tokenize"], "", 2, "no --model")
    expect(["inspect", marian, "--vocab", "--json"], "", 2, "--vocab with --json")
    expect(["inspect", marian, "--side", "target"], "", 2, "--side without --vocab")
    expect(["inspect", os.path.join(heed.work, "missing.heed"), "--vocab"], "", 1, "inspect --vocab of a missing file")
    help_text = run_ok(heed.cmd + ["tokenize", "--help"])
    for word in ("--decode", "--side", "\\xNN", "tab"):
        check(word in help_text, "tokenize --help does not mention %s" % word)
    check("\\xNN" in run_ok(heed.cmd + ["inspect", "--help"]), "inspect --help does not explain the escaping")


def score_text(heed, source_dir, marian):
    """`heed score` on plain text cuts both sides with the model's tokenizers: its log-probs equal
    `heed score --tokens` on MarianTokenizer's pieces of the same sentences (reference.json)."""
    ref = read_json(os.path.join(source_dir, "tests/fixtures/marian/tiny-en-de/reference.json"))
    pairs = list(zip(ref["sentences"], ref["targets"]))
    text = "".join("%s ||| %s\n" % (s["text"], t["text"]) for s, t in pairs)
    # The pieces without MarianTokenizer's </s>: score adds the end token itself.
    tokens = "".join("%s ||| %s\n" % (" ".join(s["pieces"][:len(s["ids"]) - 1]),
                                       " ".join(t["pieces"][:len(t["ids"]) - 1])) for s, t in pairs)
    limits = ["--max-source-len", "64", "--max-len", "64"]
    from_text = run_ok(heed.cmd + ["score", "-m", marian] + limits, text)
    from_tokens = run_ok(heed.cmd + ["score", "-m", marian, "--tokens"] + limits, tokens)
    check(len(from_text.split("\n")) == len(pairs) + 1, "score: one line per pair: %r" % from_text)
    check(from_text == from_tokens, "score of text %r != score of the library's pieces %r" % (from_text, from_tokens))


def main():
    emu, heed_path, source_dir, shared, work = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    heed = Heed(shlex.split(emu) + [heed_path], work)
    whitespace_models(heed, shared)
    sentencepiece_models(heed, source_dir)
    stories = bpe_models(heed, source_dir, shared)
    output_format(heed, os.path.join(work, "marian.heed"), stories)
    errors(heed, os.path.join(work, "marian.heed"))
    score_text(heed, source_dir, os.path.join(work, "marian.heed"))
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("tokenize CLI: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
