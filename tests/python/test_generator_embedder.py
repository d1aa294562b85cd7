"""heed.Generator, heed.Embedder, heed.convert and heed.inspect against the heed command line and
CTranslate2's Generator."""
import json
import os

import ctranslate2
import numpy as np
import pytest

import heed


@pytest.fixture(scope="module")
def stories(shared, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("stories") / "stories.heed")
    heed.convert(os.path.join(shared, "models/llama2c/stories260k"), path)
    return path


def test_generate_text_and_tokens_equal_the_command_line(stories, run):
    cli = run("generate", "-m", stories, "--prompt", "Once upon a time", "--max-len", "32")
    generator = heed.Generator(stories)
    assert generator.generate_text("Once upon a time", max_length=32) == cli.rstrip("\n")
    start = ["\n<s>\n"]  # llama2.c's start token as its vocabulary writes it
    steps = list(generator.generate_tokens(start, max_length=8))
    assert len(steps) == 8 and steps[-1].is_last and not any(s.is_last for s in steps[:-1])
    batch = generator.generate_batch([start], max_length=8, include_prompt_in_result=False)
    assert batch[0].sequences_ids[0] == [s.token_id for s in steps]


def test_generate_batch_equals_ctranslate2(shared):
    model = os.path.join(shared, "models/ct2/onmt-lm")
    with open(os.path.join(shared, "data/lm-prompts/src-gen.txt"), encoding="utf-8") as f:
        prompts = [line.split() for line in f.read().split("\n")[:3]]
    kwargs = dict(max_length=10, disable_unk=True, include_prompt_in_result=False, return_scores=True)
    ct2, ours = ctranslate2.Generator(model, compute_type="float32"), heed.Generator(model, compute_type="float32")
    for prompt in prompts:  # one per call: CTranslate2 pads batches of prompts of different lengths
        want = ct2.generate_batch([prompt], **kwargs)[0]
        got = ours.generate_batch([prompt], **kwargs)[0]
        assert got.sequences[0] == [t for t in want.sequences[0] if t != "</s>"]


def test_generate_tokens_equals_ctranslate2(shared):
    """generate_tokens with return_log_prob, one prompt and a batch, against CTranslate2's own
    (float32): the same tokens, log-probs within 1e-4, batch ids and is_last per prompt."""
    model = os.path.join(shared, "models/ct2/onmt-lm")
    with open(os.path.join(shared, "data/lm-prompts/src-gen.txt"), encoding="utf-8") as f:
        prompts = [["<s>"] + line.split() for line in f.read().split("\n")[:2]]
    kwargs = dict(max_length=8, disable_unk=True, return_log_prob=True)
    ct2, ours = ctranslate2.Generator(model, compute_type="float32"), heed.Generator(model, compute_type="float32")
    for batch in ([prompts[0]], prompts):
        want = [s for b in batch for s in ct2.generate_tokens(b, **kwargs)]  # one prompt at a time
        got = list(ours.generate_tokens(batch if len(batch) > 1 else batch[0], **kwargs))
        want_ids = [(s.token_id, s.is_last) for s in want]
        assert [(s.token_id, s.is_last) for s in got] == want_ids
        assert np.allclose([s.log_prob for s in got], [s.log_prob for s in want], atol=1e-4)
        assert [s.batch_id for s in got] == sorted(s.batch_id for s in got)
        assert len({s.batch_id for s in got}) == len(batch)
    assert all(s.log_prob is None for s in ours.generate_tokens(prompts[0], max_length=2))


def test_a_loop_over_generate_tokens_cannot_call_its_generator(stories):
    generator = heed.Generator(stories)
    start = ["\n<s>\n"]
    want = [s.token_id for s in generator.generate_tokens(start, max_length=40)]
    got, errors = [], []
    for step in generator.generate_tokens(start, max_length=40):
        got.append(step.token_id)
        if step.step == 0:  # the generation is still running: the worker waits one step ahead
            for call in (lambda: generator.generate_batch([start], max_length=2),
                         lambda: next(generator.generate_tokens(start, max_length=2))):
                with pytest.raises(RuntimeError, match="nor a loop over generate_tokens") as e:
                    call()
                errors.append(e)
    assert len(errors) == 2 and got == want and len(want) > 4
    steps = generator.generate_tokens(start, max_length=40)
    next(steps)
    steps.close()  # stops the worker, which gives the lock back
    assert [s.token_id for s in generator.generate_tokens(start, max_length=40)] == want


def test_generator_bad_arguments(stories):
    generator = heed.Generator(stories)
    with pytest.raises(ValueError, match="beam_size"):
        generator.generate_batch([["\n<s>\n"]], beam_size=4)
    with pytest.raises(ValueError, match="max_length"):
        generator.generate_batch([["\n<s>\n"]], max_length=0)
    with pytest.raises(TypeError):
        generator.generate_text(42)
    assert [(r.tokens, r.log_probs) for r in generator.score_batch([[], ["\n<s>\n"]])] == [([], [])] * 2
    with pytest.raises(ValueError, match="offset"):
        generator.score_batch([["\n<s>\n"]], offset=1)
    with pytest.raises(ValueError, match="spin_microseconds"):
        heed.Generator(stories, spin_microseconds=1000001)
    spinning = heed.Generator(stories, intra_threads=2, spin_microseconds=0)
    assert spinning.generate_text("Once upon a time", max_length=32) == \
        generator.generate_text("Once upon a time", max_length=32)


def test_score_batch_equals_ctranslate2(shared):
    """Generator.score_batch on the OpenNMT LM against CTranslate2's own, in float32: sequences
    with and without the start token, an end token inside, one of a single token, more sequences
    than heed scores per call."""
    model = os.path.join(shared, "models/ct2/onmt-lm")
    with open(os.path.join(shared, "data/lm-prompts/src-gen.txt"), encoding="utf-8") as f:
        prompts = [line.split() for line in f.read().split("\n")[:6]]
    sequences = [["<s>"] + p for p in prompts] + [prompts[0], ["<s>", "the", "</s>", "cat"], ["<s>"]]
    want = ctranslate2.Generator(model, compute_type="float32").score_batch(sequences)
    got = heed.Generator(model, compute_type="float32").score_batch(sequences)
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert g.tokens == w.tokens
        assert np.allclose(g.log_probs, w.log_probs, atol=1e-4)


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bert") / "bert.heed")
    heed.convert(os.path.join(os.path.dirname(__file__), "../fixtures/hf-bert/model"), path)
    return path


def test_embeddings_equal_the_command_line(bert, run):
    texts = ["Hello world.", "A longer sentence about embeddings on small devices.", "a"]
    for pooling, flags in ((None, []), ("cls", ["--pooling", "cls"])):
        cli = run("embed", "-m", bert, *flags, stdin="\n".join(texts) + "\n")
        want = np.array([json.loads(line)["embedding"] for line in cli.split("\n")[:-1]], dtype=np.float32)
        got = heed.Embedder(bert).encode(texts, pooling=pooling)
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.allclose(got, want, atol=1e-6)
    assert heed.Embedder(bert).encode([]).shape == (0, heed.Embedder(bert).dimension)
    with pytest.raises(ValueError):
        heed.Embedder(bert).encode(texts, pooling="max")
    spinning = heed.Embedder(bert, intra_threads=2, spin_microseconds=0)
    assert np.array_equal(spinning.encode(texts), heed.Embedder(bert).encode(texts))
    with pytest.raises(ValueError, match="spin_microseconds"):
        heed.Embedder(bert, spin_microseconds=1000001)


def test_sentence_transformers_encode_arguments(bert, capsys):
    """sentence-transformers' encode arguments give today's vectors: batches of any size, a
    prompt, a single str, normalize_embeddings, a progress bar; similarity is the cosine."""
    embedder = heed.Embedder(bert)
    texts = ["Hello world.", "A longer sentence about embeddings on small devices.", "a", "b c", "Thanks!"]
    want = embedder.encode(texts)
    for batch_size in (1, 2, 32):
        assert np.array_equal(embedder.encode(texts, batch_size=batch_size, show_progress_bar=True), want)
    assert "Batches" in capsys.readouterr().err  # tqdm's bar on stderr
    assert np.array_equal(embedder.encode(texts[1]), want[1])
    assert embedder.encode(texts[1]).shape == (embedder.dimension,)
    assert np.array_equal(embedder.encode(texts, prompt="query: "), embedder.encode(["query: " + t for t in texts]))
    unit = embedder.encode(texts, normalize_embeddings=True)
    assert np.allclose(unit, want / np.linalg.norm(want, axis=1, keepdims=True), atol=1e-6)
    cosine = np.array([[np.dot(x, y) / np.linalg.norm(x) / np.linalg.norm(y) for y in want[:2]] for x in want])
    assert np.allclose(embedder.similarity(want, want[:2]), cosine, atol=1e-6)
    for bad in (dict(convert_to_tensor=True), dict(convert_to_numpy=False), dict(prompt_name="query"),
                dict(output_value="token_embeddings"), dict(precision="int8"), dict(device="cuda")):
        with pytest.raises(ValueError, match=next(iter(bad))):
            embedder.encode(texts, **bad)
    with pytest.raises(ValueError, match="batch_size"):
        embedder.encode(texts, batch_size=0)


def test_convert_refuses_integers_the_file_cannot_hold(tmp_path):
    source = os.path.join(os.path.dirname(__file__), "../fixtures/hf-bert/model")
    for name in ("activation_block", "outlier_channels", "group_size"):
        with pytest.raises(ValueError, match="%s must be at most 4294967295" % name):
            heed.convert(source, str(tmp_path / "big.heed"), **{name: 2**32})
    assert not os.path.exists(tmp_path / "big.heed")


def test_convert_and_inspect(bert, tmp_path):
    info = heed.inspect(bert)
    assert info["family"] == "TransformerEncoderOnly"
    assert info["tokenizer"]["kind"] and info["tensors"]
    assert any(t["activation_block"] == 32 for t in info["tensors"])
    assert any(t["outlier_channels"] == 8 for t in info["tensors"])  # the encoders' default
    summary = heed.convert(os.path.join(os.path.dirname(__file__), "../fixtures/hf-bert/model"), str(tmp_path / "o.heed"),
                           outlier_channels=2, calibration=os.path.join(os.path.dirname(__file__), "../fixtures/hf-bert/model/vocab.txt"))
    assert summary["outlier_channels"] == 2 and summary["outlier_layers"] > 0
    assert summary["check_lines"] > 0 and 0.99 < summary["check_lowest_cosine"] <= summary["check_mean_cosine"] <= 1.0
    assert {t["outlier_channels"] for t in heed.inspect(str(tmp_path / "o.heed"))["tensors"]} == {0, 2}
    with pytest.raises(ValueError):
        heed.convert(os.path.join(os.path.dirname(__file__), "../fixtures/hf-bert/model"), str(tmp_path / "x.heed"),
                     outlier_channels=65)
    with pytest.raises(ValueError):
        heed.convert(os.path.join(os.path.dirname(__file__), "../fixtures/hf-bert/model"), str(tmp_path / "x.heed"),
                     quantize="int4")
    with pytest.raises(Exception):
        heed.convert(str(tmp_path / "missing"), str(tmp_path / "y.heed"))
    assert not (tmp_path / "y.heed").exists()


def test_the_package_ships_its_types():
    """Typing stubs beside the modules, naming every public name (and the module marked typed)."""
    here = os.path.dirname(heed.__file__)
    with open(os.path.join(here, "__init__.pyi"), encoding="utf-8") as f:
        stubs = f.read()
    for name in heed.__all__:
        assert ("class %s" % name) in stubs or ("def %s(" % name) in stubs, name
    assert os.path.exists(os.path.join(here, "py.typed"))
    assert os.path.exists(os.path.join(here, "_heed.pyi"))
