"""Paths the Python package's tests read: the heed command line (HEED_CLI, the build's binary),
the repository and ../shared (HEED_SHARED_DIR). A missing one fails the test with its name: the
tests never skip."""
import os
import subprocess
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _required(variable, default, what):
    path = os.environ.get(variable, default)
    if not path or not os.path.exists(path):
        pytest.fail("%s is missing: set %s (expected at %s)" % (what, variable, path))
    return path


@pytest.fixture(scope="session")
def heed_cli():
    return _required("HEED_CLI", os.path.join(ROOT, "build/host/tools/heed"), "the heed command line")


@pytest.fixture(scope="session")
def shared():
    return _required("HEED_SHARED_DIR", os.path.join(ROOT, "..", "shared"), "the shared models folder")


@pytest.fixture(scope="session")
def run(heed_cli):
    def run(*args, stdin=""):
        p = subprocess.run([heed_cli] + list(args), input=stdin.encode("utf-8"), capture_output=True)
        assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
        return p.stdout.decode("utf-8")
    return run


@pytest.fixture(scope="session")
def argos_dir(tmp_path_factory):
    """The Argos fixture package unpacked (a CTranslate2 folder and its SentencePiece model)."""
    out = tmp_path_factory.mktemp("argos")
    with zipfile.ZipFile(os.path.join(ROOT, "tests/fixtures/argos/tiny-en-de.argosmodel")) as z:
        z.extractall(out)
    return str(out / "translate-en_de-1_0")
