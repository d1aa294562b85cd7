"""The vocabulary shortlist (use_vmap) against CTranslate2's own use_vmap, on heed's demo model (a
real trained Transformer, float32) with a map that leaves some words out."""
import os
import shutil

import ctranslate2
import pytest

import heed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "demo/numbers-en-de")

# English number words -> their German parts. "seven", "seventeen" and "seventy" have no line, so
# sentences with them decode over a vocabulary that lacks their translations.
VMAP = """one\tein eins
two\tzwei
three\tdrei
four\tvier
five\tfünf
twenty\tzwanzig und
forty\tvierzig und
hundred\thundert
thousand\ttausend
twenty one\tein und zwanzig
\tund
"""
SOURCES = [["twenty", "three"], ["one", "hundred", "one"], ["seven", "thousand", "two"], ["forty", "five"],
           ["twenty", "one", "thousand", "seventy", "four"]]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """CTranslate2's folder with vmap.txt beside model.bin (how CTranslate2 finds a map), and heed's
    conversion of the same folder and map."""
    work = tmp_path_factory.mktemp("vmap")
    folder = work / "ct2"
    shutil.copytree(DEMO, folder)
    (folder / "vmap.txt").write_text(VMAP, encoding="utf-8")
    model = str(work / "demo-vmap.heed")
    summary = heed.convert(DEMO, model, quantize="float32", vmap=str(folder / "vmap.txt"))
    assert summary["vmap"]["keys"] == 10
    plain = str(work / "demo.heed")
    heed.convert(DEMO, plain, quantize="float32")
    return str(folder), model, plain


@pytest.mark.parametrize("beam", [1, 3])
def test_use_vmap_gives_ctranslate2s_hypotheses_and_scores(models, beam):
    folder, model, _ = models
    want = ctranslate2.Translator(folder).translate_batch(SOURCES, beam_size=beam, num_hypotheses=beam,
                                                          use_vmap=True, return_scores=True)
    got = heed.Translator(model).translate_batch(SOURCES, beam_size=beam, num_hypotheses=beam, use_vmap=True,
                                                 return_scores=True)
    for w, g in zip(want, got):
        assert g.hypotheses == w.hypotheses
        assert g.scores == pytest.approx(w.scores, abs=1e-4)
    # The map changes what a sentence with an unmapped word can become, and every score.
    full = heed.Translator(model).translate_batch(SOURCES, beam_size=beam, return_scores=True)
    assert full[2].hypotheses[0] != got[2].hypotheses[0]
    assert all(s.scores[0] != f.scores[0] for s, f in zip(got, full))


def test_use_vmap_needs_a_map(models):
    _, _, plain = models
    with pytest.raises(ValueError, match="no vocabulary map"):
        heed.Translator(plain).translate_batch(SOURCES, use_vmap=True)


def test_a_ctranslate2_folder_brings_its_vmap_txt(models):
    """heed.Translator over a CTranslate2 folder converts it with the vmap.txt beside model.bin."""
    folder, _, _ = models
    want = ctranslate2.Translator(folder).translate_batch(SOURCES, beam_size=2, use_vmap=True)
    got = heed.Translator(folder).translate_batch(SOURCES, beam_size=2, use_vmap=True)
    assert [g.hypotheses for g in got] == [w.hypotheses for w in want]
