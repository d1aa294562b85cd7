"""heed.Translator against CTranslate2 itself (the ctranslate2 package, on the same model folders)
and against the heed command line."""
import os
import re
import threading

import ctranslate2
import pytest

import heed

SOURCES = [["آ", "ت", "ز", "م", "و", "ن"], ["آ", "ز", "ا"], ["م", "ح", "م", "د"], ["ع", "ب", "د", "ا", "ل", "ل", "ه"]]


@pytest.fixture(scope="module")
def aren(shared):
    return os.path.join(shared, "models/ct2/aren-transliteration")


def ct2_compatible_script(ct2, model_dir, **options):
    """Written against CTranslate2's documented API only."""
    translator = ct2.Translator(model_dir, device="cpu", **options)
    nbest = translator.translate_batch(SOURCES, beam_size=4, num_hypotheses=2, return_scores=True)
    prefixed = translator.translate_batch(SOURCES[:2], target_prefix=[["e"], []], beam_size=2)
    greedy = translator.translate_batch(SOURCES, beam_size=1, max_decoding_length=4)
    scored = translator.score_batch(SOURCES[:2], [["a", "t", "z", "m", "o", "n"], ["a", "z", "z", "a"]])
    return ([(r.hypotheses, r.scores) for r in nbest], [r.hypotheses for r in prefixed],
            [r.hypotheses for r in greedy], [s.log_probs for s in scored])


@pytest.mark.parametrize("model", ["aren-transliteration", "aren-transliteration-i8"])
def test_import_heed_as_ctranslate2_gives_ctranslate2s_outputs(shared, model):
    model_dir = os.path.join(shared, "models/ct2", model)
    # int8: CTranslate2 runs the stored int8 weights with float32 activations (compute_type
    # "float32"), what heed's int8 approximates with activations quantized per row; scores
    # measured up to 0.006 apart, the bound leaves margin. Not CTranslate2's own int8: its
    # activation quantization depends on the CPU (on an AVX2-only AMD EPYC it gave "mohmem" for
    # "mahmad", scores 0.24 lower; on AVX-512 machines it matched heed within 0.013).
    int8 = model.endswith("i8")
    want = ct2_compatible_script(ctranslate2, model_dir, **({"compute_type": "float32"} if int8 else {}))
    got = ct2_compatible_script(heed, model_dir)
    tolerance = 0.05 if int8 else 1e-4
    for (h1, s1), (h2, s2) in zip(want[0], got[0]):
        assert h1 == h2
        assert s1 == pytest.approx(s2, abs=tolerance)
    assert want[1] == got[1]
    assert want[2] == got[2]
    for lp1, lp2 in zip(want[3], got[3]):
        assert lp1 == pytest.approx(lp2, abs=tolerance)


def test_argos_folder_and_text(argos_dir, run, tmp_path):
    """An Argos package's CTranslate2 folder as Argos Translate passes it, and its .heed conversion
    translating text as `heed translate` does."""
    pieces = [["▁", "H", "e", "ll", "o", "▁w", "or", "l", "d", "."]]
    want = ctranslate2.Translator(os.path.join(argos_dir, "model")).translate_batch(pieces, beam_size=1,
                                                                                   max_decoding_length=12)
    got = heed.Translator(os.path.join(argos_dir, "model")).translate_batch(pieces, beam_size=1, max_decoding_length=12)
    assert got[0].hypotheses == want[0].hypotheses
    model = str(tmp_path / "argos.heed")
    heed.convert(os.path.join(os.path.dirname(__file__), "../fixtures/argos/tiny-en-de.argosmodel"), model)
    texts = ["Hello world.", "The weather is nice today."]
    cli = run("translate", "-m", model, "--beam", "1", "--max-len", "12", stdin="\n".join(texts) + "\n").split("\n")[:-1]
    assert heed.Translator(model).translate_text(texts, beam_size=1, max_decoding_length=12) == cli


def test_nbest_and_scores_equal_the_command_line(aren, run, tmp_path):
    model = str(tmp_path / "aren.heed")
    heed.convert(aren, model, quantize="float32")
    cli = run("translate", "-m", model, "--tokens", "--beam", "4", "--n-best", "3", "--with-scores",
              stdin="".join(" ".join(s) + "\n" for s in SOURCES)).split("\n")[:-1]
    results = heed.Translator(model).translate_batch(SOURCES, beam_size=4, num_hypotheses=3, return_scores=True)
    lines = []
    for i, r in enumerate(results):
        for tokens, score in zip(r.hypotheses, r.scores):
            lines.append((i, " ".join(tokens), score))
    assert [(int(c.split(" ||| ")[0]), c.split(" ||| ")[1]) for c in cli] == [(i, t) for i, t, _ in lines]
    for c, (_, _, score) in zip(cli, lines):
        assert float(c.split(" ||| ")[2]) == pytest.approx(score, abs=1e-5)


def test_convert_stores_a_vmap(aren, shared, tmp_path):
    """CTranslate2's converters' vmap= argument: the mapping file goes into the .heed file."""
    vmap = tmp_path / "vmap.txt"
    vmap.write_text("م\tm\nم ح\tm h a\n\ta e\nZZ\ta\nح\th QQ\n", encoding="utf-8")
    model = str(tmp_path / "aren-vmap.heed")
    summary = heed.convert(aren, model, vmap=vmap)
    assert summary["vmap"] == {"keys": 3, "max_ngram": 2, "candidates": 5, "always": 2, "dropped_ngrams": 1,
                               "dropped_targets": 1}
    assert heed.inspect(model)["vocab_map"] == {"keys": 3, "max_ngram": 2, "candidates": 5, "always": 2}
    plain = str(tmp_path / "plain.heed")
    assert "vmap" not in heed.convert(aren, plain)
    assert "vocab_map" not in heed.inspect(plain)
    with pytest.raises(ValueError, match="needs a translation model"):
        heed.convert(os.path.join(shared, "models/ct2/onmt-lm"), str(tmp_path / "lm.heed"), vmap=str(vmap))
    vmap.write_text("a b\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="vmap.txt:1: no tab"):
        heed.convert(aren, str(tmp_path / "bad.heed"), vmap=str(vmap))


def test_four_threads_give_what_one_gives(aren):
    translator = heed.Translator(aren)
    want = [r.hypotheses for r in translator.translate_batch(SOURCES, beam_size=2, num_hypotheses=2)]
    got, errors = [None] * 4, []

    def work(k):
        try:
            for _ in range(5):
                got[k] = [r.hypotheses for r in translator.translate_batch(SOURCES, beam_size=2, num_hypotheses=2)]
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(g == want for g in got)


def test_spin_budget_changes_nothing_but_speed(aren):
    want = [r.hypotheses for r in heed.Translator(aren).translate_batch(SOURCES, beam_size=2, num_hypotheses=2)]
    for spin in (0, 5000):
        translator = heed.Translator(aren, intra_threads=2, spin_microseconds=spin)
        assert [r.hypotheses for r in translator.translate_batch(SOURCES, beam_size=2, num_hypotheses=2)] == want
    with pytest.raises(ValueError, match="spin_microseconds must be at most 1000000"):
        heed.Translator(aren, spin_microseconds=2000000)
    with pytest.raises(ValueError, match="spin_microseconds must be at least 0"):
        heed.Translator(aren, spin_microseconds=-1)
    with pytest.raises(TypeError, match="spin_microseconds must be an integer"):
        heed.Translator(aren, spin_microseconds=1.5)


def test_callback_streams_greedy_tokens(aren):
    steps = []
    result = heed.Translator(aren).translate_batch(SOURCES[:1], beam_size=1, callback=lambda s: steps.append(s))
    assert [s.token for s in steps if not s.is_last] == result[0].hypotheses[0]


def test_decoding_arguments_take_the_runtimes_ranges(aren):
    """translate_batch's and generate_batch's decoding arguments are the runtime's decoding options
    by name (heed/decode_option_keys.h): its ranges, NaN refused, the message naming the argument."""
    translator = heed.Translator(aren)
    refused = [("patience", float("nan"), "patience must be a finite number > 0 (got 'nan')"),
               ("length_penalty", float("inf"), "length_penalty must be a finite number (got 'inf')"),
               ("sampling_topp", 1.5, "sampling_topp must be a number in (0, 1] (got '1.5')"),
               ("repetition_penalty", 0, "repetition_penalty must be a finite number > 0 (1: off) (got '0')"),
               ("beam_size", 0, "beam_size must be a whole number >= 1 (got '0')"),
               ("num_hypotheses", -1, "num_hypotheses must be a whole number >= 1 (got '-1')"),
               ("min_decoding_length", -2, "min_decoding_length must be a whole number >= 0")]
    for name, value, message in refused:
        with pytest.raises(ValueError, match=re.escape(message)):
            translator.translate_batch(SOURCES, **{name: value})
    with pytest.raises(TypeError, match="beam_size must be an integer"):
        translator.translate_batch(SOURCES, beam_size=2.0)
    with pytest.raises(ValueError, match="sampling temperature must be above 0 when sampling"):
        translator.translate_batch(SOURCES, beam_size=1, sampling_topk=0, sampling_temperature=0)
    args = heed._heed.TranslateArgs()
    args.seed = 2**64 - 1  # set as digits: exact
    assert (args.seed, args.beam_size, args.max_decoding_length, args.use_vmap) == (2**64 - 1, 2, 256, False)
    args.patience = 2
    assert args.patience == 2.0 and isinstance(args.patience, float)


def test_bad_arguments_raise(aren, tmp_path):
    translator = heed.Translator(aren)
    with pytest.raises(TypeError):
        translator.translate_batch("not a list")
    with pytest.raises(TypeError):
        translator.translate_batch([["a", 3]])
    with pytest.raises(TypeError):
        translator.translate_batch(SOURCES, no_such_argument=1)
    with pytest.raises(TypeError):
        translator.translate_batch(SOURCES, beam_size="4")
    with pytest.raises(ValueError):
        translator.translate_batch(SOURCES, beam_size=0)
    with pytest.raises(ValueError, match="coverage_penalty"):
        translator.translate_batch(SOURCES, coverage_penalty=0.2)
    with pytest.raises(ValueError, match="not in the model's vocabulary"):
        translator.translate_batch(SOURCES, end_token="no-such-token")
    with pytest.raises(ValueError, match="device"):
        heed.Translator(aren, device="cuda")
    with pytest.raises(RuntimeError, match="Unable to open"):  # CTranslate2's type and words
        heed.Translator(str(tmp_path / "missing.heed"))
    broken = tmp_path / "broken.heed"
    broken.write_bytes(b"not a model at all")
    with pytest.raises(RuntimeError):
        heed.Translator(str(broken))
