"""`heed serve` started on a free loopback port over models converted in the test with `heed convert`
(the Argos fixture, the BERT fixture, llama2.c's stories260K from ../shared). Paths come from the
environment ctest sets (HEED_CLI, HEED_SHARED_DIR); a missing one fails the test: nothing skips."""
import json
import os
import signal
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _required(variable, what):
    path = os.environ.get(variable)
    if not path or not os.path.exists(path):
        pytest.fail("%s is missing: set %s (got %r)" % (what, variable, path))
    return path


@pytest.fixture(scope="session")
def heed_cli():
    return _required("HEED_CLI", "the heed command line")


@pytest.fixture(scope="session")
def run(heed_cli):
    def run(*args, stdin=""):
        p = subprocess.run([heed_cli] + list(args), input=stdin.encode("utf-8"), capture_output=True, timeout=300)
        assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
        return p.stdout.decode("utf-8")
    return run


@pytest.fixture(scope="session")
def models(run, tmp_path_factory):
    """The three models as .heed files: argos (en-de translation), bert (embeddings), stories (generation)."""
    shared = _required("HEED_SHARED_DIR", "the shared models folder")
    out = tmp_path_factory.mktemp("models")
    paths = {"argos": str(out / "argos.heed"), "bert": str(out / "bert.heed"), "stories": str(out / "stories.heed")}
    run("convert", os.path.join(ROOT, "tests/fixtures/argos/tiny-en-de.argosmodel"), "-o", paths["argos"], "--quiet")
    run("convert", os.path.join(ROOT, "tests/fixtures/hf-bert/model"), "-o", paths["bert"], "--quiet")
    run("convert", os.path.join(shared, "models/llama2c/stories260k"), "-o", paths["stories"], "--quiet")
    return paths


@pytest.fixture(scope="session")
def aren(run, tmp_path_factory):
    """A trained model from ../shared (Arabic -> English name transliteration) as a .heed file; its own
    test suite's facts give the expected outputs (../shared/README.md)."""
    shared = _required("HEED_SHARED_DIR", "the shared models folder")
    path = str(tmp_path_factory.mktemp("aren") / "aren.heed")
    run("convert", os.path.join(shared, "models/ct2/aren-transliteration"), "-o", path, "--quiet")
    return path


class Server:
    """A running `heed serve`; its stderr (the request log) goes to a file the tests can read."""

    def __init__(self, heed_cli, args, log_path):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen([heed_cli, "serve", "--port", "0"] + args, stderr=self.log)
        self.port = self._wait_for_port()
        self.url = "http://127.0.0.1:%d" % self.port

    def _wait_for_port(self):
        deadline = time.time() + 60
        while time.time() < deadline:
            assert self.process.poll() is None, "heed serve exited: " + self.log_text()
            for line in self.log_text().splitlines():
                if line.startswith("{") and json.loads(line).get("event") == "listening":
                    return json.loads(line)["port"]
            time.sleep(0.05)
        pytest.fail("heed serve did not start listening: " + self.log_text())

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def log_lines(self):
        return [json.loads(l) for l in self.log_text().splitlines() if l.startswith("{")]

    def rss_kib(self):
        with open("/proc/%d/status" % self.process.pid) as f:
            return int(next(l for l in f if l.startswith("VmRSS:")).split()[1])

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        self.log.close()
        return self.process.returncode


@pytest.fixture(scope="module")
def start(heed_cli, tmp_path_factory):
    """start(args) -> Server; every server started is stopped (SIGTERM) at the end of the module."""
    servers = []

    def start(args):
        server = Server(heed_cli, args, str(tmp_path_factory.mktemp("serve") / "stderr.log"))
        servers.append(server)
        return server
    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="module")
def server(start, models):
    """One server over all three models, two sessions each."""
    return start(["-m", models["argos"], "-m", models["bert"], "-m", models["stories"], "--max-concurrent", "2"])
