"""Argos Translate's own translation code (the argostranslate package from the Python package
index) on heed: the same script runs once on the real ctranslate2 package and once with
`sys.modules["ctranslate2"] = heed`, on an Argos package built from the project's fixture; the
translations and hypotheses' scores are compared.

argostranslate is installed without its dependencies (scripts/python-venv.sh): its sentence
splitters (stanza, spaCy, MiniSBD) download models from the network, so the script gives both runs
the same small stand-in splitter; everything from the tokenizer to the translator is Argos's own."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import json, re, sys, types

# Stand-ins for the sentence splitters argostranslate imports (their models come from the network).
class SBDetect:
    def __init__(self, lang, use_gpu=False):
        pass
    def sentences(self, text):
        return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
minisbd = types.ModuleType("minisbd")
minisbd.SBDetect = SBDetect
minisbd.models = types.SimpleNamespace(list_models=lambda: ["en"])
sys.modules["minisbd"] = minisbd
sys.modules["stanza"] = types.ModuleType("stanza")

if sys.argv[1] == "heed":
    import heed
    sys.modules["ctranslate2"] = heed

import argostranslate.package
import argostranslate.translate

argostranslate.package.install_from_path(sys.argv[2])
texts = json.loads(sys.argv[3])
languages = argostranslate.translate.get_installed_languages()
source = next(lang for lang in languages if lang.code == "en")
target = next(lang for lang in languages if lang.code == "de")
translation = source.get_translation(target)
out = {"translate": [argostranslate.translate.translate(t, "en", "de") for t in texts],
       "hypotheses": [[(h.value, round(h.score, 3)) for h in translation.hypotheses(t, num_hypotheses=3)]
                      for t in texts]}
print(json.dumps(out))
"""

TEXTS = ["Hello world.", "Hello world. The world is big!", "", "Hello.\n\nWorld, hello world?", "a " * 40]


def run_argos(backend, tmp_path):
    home = tmp_path / backend
    home.mkdir()
    # float32: Argos's default compute type "auto" is int8 in both, whose activation quantization
    # differs between the two (CTranslate2's own depends on the CPU), and the fixture is a tiny
    # random model where that changes the words. Each run's arguments are otherwise Argos's own.
    env = dict(os.environ, XDG_DATA_HOME=str(home), HOME=str(home), ARGOS_DEVICE_TYPE="cpu",
               ARGOS_COMPUTE_TYPE="float32")
    p = subprocess.run([sys.executable, "-c", SCRIPT, backend,
                        os.path.join(ROOT, "tests/fixtures/argos/tiny-en-de.argosmodel"), json.dumps(TEXTS)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_argos_translate_runs_unchanged_on_heed(tmp_path):
    try:
        import argostranslate  # noqa: F401
    except ImportError:
        pytest.fail("argostranslate is missing: scripts/python-venv.sh installs it (without its dependencies)")
    want = run_argos("ctranslate2", tmp_path)
    got = run_argos("heed", tmp_path)
    assert got["translate"] == want["translate"]
    assert any(want["translate"])  # the fixture translates to something
    for w, g in zip(want["hypotheses"], got["hypotheses"]):
        assert [v for v, _ in g] == [v for v, _ in w]
        assert [s for _, s in g] == pytest.approx([s for _, s in w], abs=0.01)
