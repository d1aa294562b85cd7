"""The parts of CTranslate2's Python API that ordinary scripts (Argos Translate among them) use,
each compared with the real ctranslate2 package on the same model folders: empty sources,
replace_unknowns, batch_type "tokens", generator scores, the *_iterable methods, the module
functions, compute types, unload/load; and heed's own promises beside them (one session's memory
whatever the beams, no converted copy left behind, a callback calling its own translator)."""
import os
import subprocess
import sys
import threading

import ctranslate2
import pytest

import heed

SOURCES = [["آ", "ت", "ز", "م", "و", "ن"], ["آ", "ز", "ا"], ["م", "ح", "م", "د"], ["ع", "ب", "د", "ا", "ل", "ل", "ه"]]


@pytest.fixture(scope="module")
def aren(shared):
    return os.path.join(shared, "models/ct2/aren-transliteration")


@pytest.fixture(scope="module")
def both(aren):
    return ctranslate2.Translator(aren), heed.Translator(aren)


def outputs(results):
    return [(r.hypotheses, [round(s, 3) for s in r.scores]) for r in results]


def test_empty_sources_translate_and_score_as_ctranslate2(both):
    ct2, ours = both
    for batch in ([SOURCES[0], []], [[]], [[], []], []):
        kwargs = dict(beam_size=2, return_scores=True)
        assert outputs(ours.translate_batch(batch, **kwargs)) == outputs(ct2.translate_batch(batch, **kwargs))
    targets = [["a", "t"], ["a"]]
    for sources in ([SOURCES[0], []], [[], []]):
        want = [(r.tokens, [round(p, 3) for p in r.log_probs]) for r in ct2.score_batch(sources, targets)]
        got = [(r.tokens, [round(p, 3) for p in r.log_probs]) for r in ours.score_batch(sources, targets)]
        assert got == want


MORE_SOURCES = SOURCES + [["ك", "ر", "ي", "م"], ["ف", "ا", "ط", "م", "ة"]]


@pytest.mark.parametrize("beam_size", [1, 2, 3, 5])
def test_return_alternatives_as_ctranslate2(both, beam_size):
    """Each alternative continued by the call's search (greedy at beam 1, beam search above: the
    default beam 2 included), with CTranslate2's scores, prefixes, n-best and length penalties."""
    ct2, ours = both
    prefixes = [["a"], [], ["m"], ["a", "b"], ["k"], []]
    for kwargs in ({}, dict(num_hypotheses=3), dict(num_hypotheses=6, length_penalty=0.5),
                   dict(num_hypotheses=2, target_prefix=prefixes, length_penalty=2.0),
                   dict(num_hypotheses=4, target_prefix=prefixes, max_decoding_length=4),
                   dict(num_hypotheses=3, min_decoding_length=7, length_penalty=0)):
        kwargs.update(beam_size=beam_size, return_alternatives=True, return_scores=True)
        assert outputs(ours.translate_batch(MORE_SOURCES, **kwargs)) == outputs(ct2.translate_batch(MORE_SOURCES, **kwargs)), kwargs
    default = dict(return_alternatives=True, num_hypotheses=3, return_scores=True)
    assert outputs(ours.translate_batch(SOURCES, **default)) == outputs(ct2.translate_batch(SOURCES, **default))


def test_replace_unknowns_as_argos_translate_calls_it(both):
    ct2, ours = both
    # A target prefix forces the unknown token; replace_unknowns puts the source token it attends to.
    kwargs = dict(target_prefix=[["<unk>"], []], beam_size=2, replace_unknowns=True)
    want = ct2.translate_batch([["م", "ح"], SOURCES[1]], **kwargs)
    got = ours.translate_batch([["م", "ح"], SOURCES[1]], **kwargs)
    assert [r.hypotheses for r in got] == [r.hypotheses for r in want]
    assert got[0].hypotheses[0][0] == "م"
    kept = ours.translate_batch([["م", "ح"]], target_prefix=[["<unk>"]], beam_size=2)
    assert kept[0].hypotheses[0][0] == "<unk>"


@pytest.mark.parametrize("max_batch_size", [1, 5, 12, 100])
def test_batch_type_tokens_splits_without_changing_results(both, max_batch_size):
    ct2, ours = both
    kwargs = dict(beam_size=3, num_hypotheses=2, return_scores=True, max_batch_size=max_batch_size,
                  batch_type="tokens")
    assert outputs(ours.translate_batch(SOURCES, **kwargs)) == outputs(ct2.translate_batch(SOURCES, **kwargs))
    with pytest.raises(ValueError, match="batch_type"):
        ours.translate_batch(SOURCES, batch_type="sentences")


def test_batches_count_tokens_with_padding():
    from heed import _batching
    lengths = [[0] * n for n in (3, 1, 4, 2, 9)]
    # budget 8 tokens: [3, 1] -> 2 x 3 = 6; + 4 -> 3 x 4 = 12 > 8; [4, 2] -> 8; [9] alone.
    assert _batching.batches(lengths, 8, "tokens") == [[0, 1], [2, 3], [4]]
    assert _batching.batches(lengths, 2, "examples") == [[0, 1], [2, 3], [4]]
    assert _batching.batches(lengths, 0, "tokens") == [[0, 1, 2, 3, 4]]


def test_iterables_equal_the_batch_calls(both):
    _, ours = both
    want = outputs(ours.translate_batch(SOURCES, beam_size=2, return_scores=True))
    assert outputs(ours.translate_iterable(iter(SOURCES), max_batch_size=3, beam_size=2, return_scores=True)) == want
    targets = [["a"], ["b", "c"], [], ["d"]]
    want = [r.log_probs for r in ours.score_batch(SOURCES, targets)]
    assert [r.log_probs for r in ours.score_iterable(iter(SOURCES), iter(targets), max_batch_size=3)] == want


def test_generator_scores_and_iterables_as_ctranslate2(shared):
    model = os.path.join(shared, "models/ct2/onmt-lm")
    with open(os.path.join(shared, "data/lm-prompts/src-gen.txt"), encoding="utf-8") as f:
        prompts = [line.split() for line in f.read().split("\n")[:3]]
    ct2, ours = ctranslate2.Generator(model, compute_type="float32"), heed.Generator(model, compute_type="float32")
    kwargs = dict(max_length=10, disable_unk=True, include_prompt_in_result=False, return_scores=True)
    for prompt in prompts:  # one per call: CTranslate2 pads batches of prompts of different lengths
        want, got = ct2.generate_batch([prompt], **kwargs)[0], ours.generate_batch([prompt], **kwargs)[0]
        assert got.scores[0] == pytest.approx(want.scores[0], abs=1e-4)  # divided by the length, end token included
    # The prompt in the result counts in the length (a prompt that ends within max_length both ways).
    kwargs["include_prompt_in_result"] = True
    want, got = ct2.generate_batch([prompts[0]], **kwargs)[0], ours.generate_batch([prompts[0]], **kwargs)[0]
    assert got.sequences == want.sequences
    assert got.scores[0] == pytest.approx(want.scores[0], abs=1e-4)
    batch = [r.sequences for r in ours.generate_batch(prompts, max_length=4)]
    assert [r.sequences for r in ours.generate_iterable(iter(prompts), max_batch_size=2, max_length=4)] == batch
    with_start = [["<s>"] + p for p in prompts] + [[], ["<s>"]]
    want = [(r.tokens, [round(p, 3) for p in r.log_probs]) for r in ct2.score_batch(with_start)]
    assert [(r.tokens, [round(p, 3) for p in r.log_probs]) for r in ours.score_iterable(with_start)] == want


def test_module_functions_and_attributes_as_ctranslate2(aren, shared):
    assert heed.get_cuda_device_count() == ctranslate2.get_cuda_device_count() == 0
    assert heed.get_supported_compute_types("cpu") >= ctranslate2.get_supported_compute_types("cpu") - {"int16"}
    device = "cuda" if heed.get_cuda_device_count() > 0 else "cpu"  # the usual line
    assert device == "cpu"
    for module in (ctranslate2, heed):
        with pytest.raises(ValueError, match="not a valid logging level"):
            module.set_log_level(7)
    level = heed.get_log_level()
    heed.set_log_level(20)
    assert heed.get_log_level() == 20
    heed.set_log_level(level)
    assert heed.contains_model(aren) and not heed.contains_model(os.path.dirname(aren))
    for model in ("aren-transliteration", "aren-transliteration-i8"):
        path = os.path.join(shared, "models/ct2", model)
        want, got = ctranslate2.Translator(path), heed.Translator(path)
        assert (got.device, got.device_index, got.compute_type) == (want.device, want.device_index, want.compute_type)
        assert ctranslate2.Translator(path, compute_type="auto").compute_type == \
            heed.Translator(path, compute_type="auto").compute_type


@pytest.mark.parametrize("compute_type", ["int8_float16", "int8_bfloat16", "int16", "bfloat16"])
def test_compute_types_without_a_cpu_kernel_are_refused_as_ctranslate2_does(aren, compute_type):
    with pytest.raises(ValueError) as want:
        ctranslate2.Translator(aren, compute_type=compute_type)
    with pytest.raises(ValueError) as got:
        heed.Translator(aren, compute_type=compute_type)
    assert str(got.value) == str(want.value)


def test_compute_type_on_a_heed_file_warns_and_keeps_its_weights(aren, tmp_path):
    path = str(tmp_path / "aren.heed")
    heed.convert(aren, path, quantize="float32")
    with pytest.warns(UserWarning, match="keeps the weights it was converted with"):
        translator = heed.Translator(path, compute_type="int8")
    assert translator.compute_type == "float32"


def test_unload_and_load_model(aren):
    want = ctranslate2.Translator(aren).translate_batch(SOURCES[:1])[0].hypotheses
    translator = heed.Translator(aren)
    translator.unload_model()
    assert not translator.model_is_loaded
    # CTranslate2's words ("The model for this translator was unloaded"); its own unload is
    # asynchronous, so it is not raced here.
    with pytest.raises(RuntimeError, match="The model for this translator was unloaded"):
        translator.translate_batch(SOURCES[:1])
    translator.load_model()
    assert translator.model_is_loaded
    assert translator.translate_batch(SOURCES[:1])[0].hypotheses == want


def test_set_random_seed_repeats_sampling(aren):
    translator = heed.Translator(aren)
    kwargs = dict(beam_size=1, sampling_topk=0, sampling_temperature=1.5)
    runs = []
    for seed in (7, 7, 8):
        heed.set_random_seed(seed)
        runs.append([r.hypotheses for r in translator.translate_batch(SOURCES * 4, **kwargs)])
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_a_callback_calling_its_own_translator_raises_instead_of_deadlocking(aren):
    translator = heed.Translator(aren)
    errors = []

    def callback(step):
        try:
            translator.translate_batch(SOURCES[:1])
        except RuntimeError as e:
            errors.append(str(e))
        return True  # stop

    worker = threading.Thread(target=lambda: translator.translate_batch(SOURCES[:1], beam_size=1, callback=callback))
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "translate_batch deadlocked in its own callback"
    assert errors and "callback cannot call" in errors[0]


MEMORY_SCRIPT = r"""
import sys
import heed
def anon_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon:"))
before = anon_kib()
translator = heed.Translator(sys.argv[1])
sources = [["م", "ح", "م", "د"]] * 16
for beam in [int(b) for b in sys.argv[2].split(",")]:
    translator.translate_batch(sources, beam_size=beam, num_hypotheses=1, max_decoding_length=8)
print(anon_kib() - before)
"""


def test_memory_is_one_session_at_the_largest_beam_whatever_came_before(aren, tmp_path):
    """Growing beams re-plan one arena (CTranslate2 keeps one too): memory after beams
    1, 2, 4, ..., 64 and back is within 10 % of a translator that only ran beam 64. A CTranslate2
    folder is read once (converted in memory), not once per session."""
    def anon(beams):
        out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, aren, beams], capture_output=True, text=True,
                             env=dict(os.environ, TMPDIR=str(tmp_path)))
        assert out.returncode == 0, out.stderr
        return int(out.stdout)
    largest = anon("64")
    sequence = anon("1,2,5,4,8,13,16,32,64,3,64")
    assert sequence <= 1.1 * largest + 2048, (sequence, largest)
    assert os.listdir(tmp_path) == []  # the converted copy is gone once the model is open
