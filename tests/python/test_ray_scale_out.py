"""samples/python/ray_translate_embed.py on a local Ray cluster of two CPUs (Ray Data's
map_batches over a callable class, one per worker): its translations and embeddings equal those
of one process calling heed.Translator and heed.Embedder on the whole corpus."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import heed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "samples/python/ray_translate_embed.py")
# Arabic names, one character per token: the transliteration model's input.
NAMES = ["آ ت ز م و ن", "آ ز ا", "م ح م د", "ع ب د ا ل ل ه", "ف ا ط م ة", "ع ل ي", "ح س ن", "ز ي ن ب",
         "ي و س ف", "م ر ي م", "خ ا ل د", "س ا ر ة", "ع م ر", "ل ي ل ى", "ك ر ي م", "ن و ر"]


@pytest.fixture(scope="module")
def models(shared, tmp_path_factory):
    out = tmp_path_factory.mktemp("ray-models")
    translation, embedding = str(out / "aren.heed"), str(out / "bert.heed")
    heed.convert(os.path.join(shared, "models/ct2/aren-transliteration"), translation)
    heed.convert(os.path.join(ROOT, "tests/fixtures/hf-bert/model"), embedding)
    return translation, embedding


def run_sample(translation, embedding, corpus, output):
    # Ray's sockets live under its temporary folder: a short path keeps them under the 107-byte limit.
    ray_temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_ENABLE_UV_RUN_RUNTIME_ENV="0")
    try:
        return subprocess.run([sys.executable, SAMPLE, "--translation-model", translation, "--embedding-model", embedding,
                               "--input", corpus, "--output", output, "--workers", "2", "--batch-size", "4",
                               "--ray-temp-dir", ray_temp, "--report-memory"],
                              capture_output=True, text=True, timeout=600, env=env)
    finally:
        shutil.rmtree(ray_temp, ignore_errors=True)


def test_ray_data_translates_and_embeds_as_one_process(models, tmp_path):
    translation, embedding = models
    corpus, output = tmp_path / "corpus.txt", tmp_path / "out.jsonl"
    corpus.write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    p = run_sample(translation, embedding, str(corpus), str(output))
    assert p.returncode == 0, p.stderr[-4000:]
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [(row["id"], row["text"]) for row in rows] == list(enumerate(NAMES))
    assert [row["translation"] for row in rows] == heed.Translator(translation).translate_text(NAMES)
    got = np.array([row["embedding"] for row in rows], dtype=np.float32)
    assert np.array_equal(got, heed.Embedder(embedding).encode(NAMES))
    workers = re.findall(r"^worker (\d+): VmRSS", p.stderr, re.M)
    assert 1 <= len(set(workers)) <= 2, p.stderr[-4000:]  # each worker opened the models once
