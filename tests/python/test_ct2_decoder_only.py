"""`heed convert --from ct2` on CTranslate2's decoder-only Llama conversions (TransformerDecoderSpec
revision 8: grouped-query attention, rotary embeddings in either layout, RMSNorm, SwiGLU), checked
against the real ctranslate2 package: the folder is written by ctranslate2's own spec classes from the
trained llama2.c model stories260K (make_ct2_llama.py), and heed's greedy continuations must be
CTranslate2's token for token."""
import json
import os
import subprocess
import sys

import ctranslate2
import pytest
from ctranslate2.specs.attention_spec import RotaryScalingType

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_ct2_llama  # noqa: E402
import llama2c_reference  # noqa: E402  (tests/reference, on sys.path through make_ct2_llama)

PROMPTS = ["Once upon a time", "Lily and Ben went to the park.", "The little dog", "One day, a girl named Sue"]
MAX_LENGTH = 40


@pytest.fixture(scope="module", params=["halves", "pairs", "base-1e6"])
def ct2_llama(request, shared, tmp_path_factory):
    """A CTranslate2 Llama folder: rotary_interleave False with Hugging Face's rotate-half Q/K rows
    (what ct2-transformers-converter writes) or True with llama2.c's interleaved rows; base-1e6 is the
    first with rotary_base 1e6 (not what the model was trained with, but both runtimes must agree)."""
    out = tmp_path_factory.mktemp("ct2-llama-" + request.param) / "model"
    options = {"rotary_base": 1e6} if request.param == "base-1e6" else None
    return make_ct2_llama.write_ct2_llama(str(out), shared, interleave=request.param == "pairs", spec_options=options)


@pytest.fixture(scope="module")
def prompts(shared):
    """Each prompt as token strings after "<s>", encoded with llama2.c's BPE (tests/reference)."""
    _, _, tokens = make_ct2_llama.read_stories(shared)
    raw, scores = llama2c_reference.read_tokenizer(os.path.join(shared, make_ct2_llama.STORIES, "tok512.bin"),
                                                   len(tokens))
    return [[tokens[i] for i in llama2c_reference.bpe_encode(text, raw, scores)] for text in PROMPTS]


def ct2_continuations(path, prompts):
    generator = ctranslate2.Generator(path, compute_type="float32")
    results = generator.generate_batch([["<s>"] + p for p in prompts], max_length=MAX_LENGTH, sampling_topk=1,
                                       include_prompt_in_result=False, return_scores=True)
    return [r.sequences_ids[0] for r in results], [r.scores[0] for r in results]


def vocabulary_ids(path):
    with open(os.path.join(path, "vocabulary.json"), encoding="utf-8") as f:
        return {t: i for i, t in enumerate(json.load(f))}


def test_heed_convert_and_generate_match_ctranslate2(ct2_llama, prompts, run, tmp_path):
    model = str(tmp_path / "llama.heed")
    run("convert", "--from", "ct2", ct2_llama, "-o", model, "--quantize", "float32", "--quiet")
    expected, _ = ct2_continuations(ct2_llama, prompts)
    ids = vocabulary_ids(ct2_llama)
    for prompt, want in zip(prompts, expected):
        assert len(want) == MAX_LENGTH  # the stories model does not end its story this soon
        out = run("generate", "-m", model, "--prompt-ids", ",".join(str(ids[t]) for t in prompt),
                  "--max-len", str(MAX_LENGTH), "--ids")
        assert [int(x) for x in out.split()] == want, prompt


@pytest.mark.parametrize("options, named", [
    (dict(rotary_scaling_type=RotaryScalingType.Linear, rotary_scaling_factor=2.0), "rotary_scaling_type' is 0"),
    (dict(rotary_dim=4), "rotary_dim' is 4"),
    (dict(rotary_dim=None, alibi=True), "'decoder/alibi' is set"),
])
def test_unsupported_rotary_options_are_refused_naming_them(shared, heed_cli, tmp_path, options, named):
    out = str(tmp_path / "model")
    make_ct2_llama.write_ct2_llama(out, shared, spec_options=options)
    p = subprocess.run([heed_cli, "convert", "--from", "ct2", out, "-o", str(tmp_path / "x.heed"), "--quiet"],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    assert named in p.stderr
    assert not os.path.exists(tmp_path / "x.heed")


def test_heed_generator_reads_the_folder_as_ctranslate2_does(ct2_llama, prompts):
    """heed.Generator converts the folder itself; ids equal CTranslate2's, scores (cumulative
    log-probabilities) within float32 rounding."""
    import heed

    expected, expected_scores = ct2_continuations(ct2_llama, prompts)
    results = heed.Generator(ct2_llama).generate_batch([["<s>"] + p for p in prompts], max_length=MAX_LENGTH,
                                                       sampling_topk=1, include_prompt_in_result=False,
                                                       return_scores=True)
    for r, want, score in zip(results, expected, expected_scores):
        assert r.sequences_ids[0] == want
        assert r.scores[0] == pytest.approx(score, rel=1e-3, abs=1e-3)


@pytest.mark.parametrize("layout", ["halves", "pairs"])
def test_int8_weights_from_ctranslate2_are_read(shared, prompts, run, tmp_path, layout):
    """CTranslate2's int8 weights (per-row scales, reordered with their rows in the "halves"
    layout) are kept by heed: its continuations equal CTranslate2's on the same int8 weights
    (compute_type float32: CTranslate2 dequantizes them; its int8 compute rounds activations too)."""
    folder = make_ct2_llama.write_ct2_llama(str(tmp_path / "model"), shared, interleave=layout == "pairs",
                                            quantization="int8")
    model = str(tmp_path / "llama.heed")
    run("convert", "--from", "ct2", folder, "-o", model, "--quiet")
    expected, _ = ct2_continuations(folder, prompts)
    ids = vocabulary_ids(folder)
    for prompt, want in zip(prompts, expected):
        out = run("generate", "-m", model, "--prompt-ids", ",".join(str(ids[t]) for t in prompt),
                  "--max-len", str(MAX_LENGTH), "--ids")
        assert [int(x) for x in out.split()] == want, prompt
