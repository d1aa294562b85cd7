"""Prompts that hold the end token, as chat prompts do (each turn closes with it), and what
CTranslate2 returns with include_prompt_in_result: the real ctranslate2 package takes an end token
in a prompt or target prefix as an ordinary forced token, stops only on a generated one, counts
the prompt after its start token in max_length, and shows the start token unless it is the
model's. heed must give the same ids and scores (float32)."""
import os

import ctranslate2
import pytest

import heed

WORDS = "love Orlando Bloom and Miranda Kerr still".split()
PROMPTS = [
    WORDS,
    WORDS[:3] + ["</s>"] + WORDS[3:],  # an end token inside
    WORDS + ["</s>"],                   # and at the end, as a closed chat turn
    ["</s>"] + WORDS,                   # as the start token
    ["<unk>"] + WORDS,                  # this model's start token (its bos_token <s> is unknown)
    ["the"],
    ["</s>"],
]


@pytest.fixture(scope="module")
def generators(shared):
    path = os.path.join(shared, "models/ct2/onmt-lm")
    return (ctranslate2.Generator(path, compute_type="float32"),
            heed.Generator(path, compute_type="float32"))


def generations(generator, prompts, **kwargs):
    """One prompt per call: in a batch of prompts of different lengths CTranslate2's results depend
    on the other prompts, heed's do not (docs/python.md)."""
    results = [generator.generate_batch([p], return_scores=True, **kwargs)[0] for p in prompts]
    return [(r.sequences_ids, [round(s, 4) for s in r.scores]) for r in results]


@pytest.mark.parametrize("include_prompt", [True, False])
@pytest.mark.parametrize("end_token", [None, "still", ["and", "</s>"]])
def test_generator_prompts_with_end_tokens_as_ctranslate2(generators, include_prompt, end_token):
    ct2, ours = generators
    for max_length in (1, 3, 7, 8, 40):  # shorter and longer than the prompts
        kwargs = dict(max_length=max_length, sampling_topk=1, include_prompt_in_result=include_prompt,
                      end_token=end_token)
        want = generations(ct2, PROMPTS, **kwargs)
        assert generations(ours, PROMPTS, **kwargs) == want, kwargs
    # The prompts were continued past their end tokens, not stopped there.
    assert all(ids[0] for ids, _ in generations(ct2, PROMPTS, max_length=40, include_prompt_in_result=False))


def test_translator_target_prefix_with_the_end_token_as_ctranslate2(shared):
    path = os.path.join(shared, "models/ct2/aren-transliteration")
    ct2, ours = ctranslate2.Translator(path), heed.Translator(path)
    sources = [["آ", "ت", "ز", "م", "و", "ن"], ["م", "ح", "م", "د"]]
    prefixes = [["a", "</s>"], ["m", "</s>", "o"]]
    for kwargs in (dict(beam_size=1), dict(beam_size=3, num_hypotheses=2)):
        want = [(r.hypotheses, [round(s, 3) for s in r.scores])
                for r in ct2.translate_batch(sources, target_prefix=prefixes, return_scores=True, **kwargs)]
        assert all(len(h) > len(p) for r, p in zip(want, prefixes) for h in r[0])
        got = [(r.hypotheses, [round(s, 3) for s in r.scores])
               for r in ours.translate_batch(sources, target_prefix=prefixes, return_scores=True, **kwargs)]
        assert got == want
