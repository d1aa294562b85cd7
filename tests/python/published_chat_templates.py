"""The chat templates Llama 3.1/3.2/3.3 Instruct and Qwen2.5 Instruct publish, as llama.cpp keeps
them in models/templates/ (copied from the models' tokenizer_config.json) and as the PyPI sdist
llama-cpp-python 0.3.36 vendors them. The sdist is fetched once from PyPI's file host (its URL from
the index's JSON simple API, its SHA-256 pinned here), and only the four .jinja files are kept, in
build/chat-templates (CI's network reaches the Python package index). Not `pip download`: that
would build the sdist's metadata, which takes minutes."""
import hashlib
import json
import os
import tarfile
import urllib.request

import pytest

from conftest import ROOT

CACHE = os.path.join(ROOT, "build", "chat-templates")
SDIST = "llama_cpp_python-0.3.36.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
INDEX = "https://pypi.org/simple/llama-cpp-python/"
TEMPLATES_IN_SDIST = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/templates/"
TEMPLATES = {
    "llama3.1": "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "llama3.2": "meta-llama-Llama-3.2-3B-Instruct.jinja",
    "llama3.3": "meta-llama-Llama-3.3-70B-Instruct.jinja",
    "qwen2.5": "Qwen-Qwen2.5-7B-Instruct.jinja",
}


def _sdist_url():
    request = urllib.request.Request(INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        files = json.load(answer)["files"]
    return next(f["url"] for f in files if f["filename"] == SDIST)


def _download_sdist(path):
    digest = hashlib.sha256()
    with urllib.request.urlopen(_sdist_url(), timeout=120) as answer, open(path + ".part", "wb") as out:
        for block in iter(lambda: answer.read(1 << 20), b""):
            digest.update(block)
            out.write(block)
    if digest.hexdigest() != SDIST_SHA256:
        os.remove(path + ".part")
        raise ValueError("%s has SHA-256 %s, not %s" % (SDIST, digest.hexdigest(), SDIST_SHA256))
    os.replace(path + ".part", path)


def _extract_templates(sdist):
    wanted = {TEMPLATES_IN_SDIST + name: name for name in TEMPLATES.values()}
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar:
            if member.name in wanted and member.isfile():
                target = os.path.join(CACHE, wanted[member.name])
                with tar.extractfile(member) as source, open(target + ".part", "wb") as out:
                    out.write(source.read())
                os.replace(target + ".part", target)


def published_template(name):
    """The text of the template `name` publishes (a key of TEMPLATES), downloaded when not cached;
    a failed download fails the test that asked."""
    path = os.path.join(CACHE, TEMPLATES[name])
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        sdist = os.path.join(CACHE, SDIST)
        try:
            if not os.path.exists(sdist):
                _download_sdist(sdist)
            _extract_templates(sdist)
        except (OSError, ValueError, StopIteration, tarfile.TarError) as e:
            pytest.fail("could not fetch %s from PyPI (%s) for the published chat templates: %r" % (SDIST, INDEX, e))
        os.remove(sdist)  # 76 MB; the four templates are all the tests read
    with open(path, encoding="utf-8") as f:
        return f.read()
