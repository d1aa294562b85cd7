"""Bad and hostile requests to `heed serve`: each gets its documented status (or its connection is
dropped) and the server answers the next request."""
import concurrent.futures
import json
import socket
import time

import pytest
import requests

TRANSLATE = {"q": "Hello world.", "source": "en", "target": "de"}


@pytest.fixture(scope="module")
def keyed(start, models):
    """A server that needs a key, with short limits: reading a request 1.5 s, no queue."""
    return start(["-m", models["argos"], "-m", models["stories"], "--api-key", "s3cret", "--read-timeout-ms", "1500",
                  "--max-queue", "0", "--max-texts", "4", "--max-text-bytes", "100"])


def healthy(server):
    r = requests.get(server.url + "/health", timeout=10)
    assert r.status_code == 200 and r.json()["status"] == "ok"


def post(server, path, **kwargs):
    return requests.post(server.url + path, timeout=30, **kwargs)


@pytest.mark.parametrize("body,status", [
    (b"{not json", 400),
    (b"[1, 2]", 400),
    (json.dumps({"q": 5, "source": "en", "target": "de"}).encode(), 400),
    (json.dumps({"q": ["a", 3], "source": "en", "target": "de"}).encode(), 400),
    (json.dumps({"source": "en", "target": "de"}).encode(), 400),
    (json.dumps({"q": "a", "target": "de"}).encode(), 400),
    (json.dumps({"q": "a", "source": "en"}).encode(), 400),
    (json.dumps({"q": "a", "source": "de", "target": "en"}).encode(), 400),
    (json.dumps({"q": "a", "source": "auto", "target": "de"}).encode(), 400),
    (json.dumps({"q": "a", "source": "en", "target": "de", "format": "html"}).encode(), 400),
    (json.dumps({"q": "a", "source": "en", "target": "de", "alternatives": 99}).encode(), 400),
    (b'{"q": "\xff\xfe", "source": "en", "target": "de"}', 400),
])
def test_bad_translate_bodies(server, body, status):
    r = post(server, "/translate", data=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status and isinstance(r.json()["error"], str), r.text
    healthy(server)


def test_invalid_utf8_form_field(server):
    r = post(server, "/translate", data=b"q=%FF%FE&source=en&target=de",
             headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400
    healthy(server)


def test_ten_megabyte_body(server):
    r = post(server, "/translate", data=b"x" * (10 << 20), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    healthy(server)


def test_openai_errors(server):
    r = post(server, "/v1/embeddings", json={"model": "nope", "input": "a"})
    assert r.status_code == 404 and "message" in r.json()["error"]
    assert post(server, "/v1/embeddings", json={"model": "bert", "input": 5}).status_code == 400
    assert post(server, "/v1/embeddings", json={"model": "argos", "input": "a"}).status_code == 404  # not an encoder
    assert post(server, "/v1/completions", json={"model": "stories", "prompt": "a", "max_tokens": 0}).status_code == 400
    assert post(server, "/v1/completions", json={"model": "stories", "prompt": "a", "temperature": "hot"}).status_code == 400
    assert post(server, "/v1/completions", data=b"\x00\xff", headers={"Content-Type": "application/json"}).status_code == 400
    healthy(server)


def test_api_keys(keyed):
    assert post(keyed, "/translate", json=TRANSLATE).status_code == 403
    assert post(keyed, "/translate", json=dict(TRANSLATE, api_key="s3cre")).status_code == 403
    assert post(keyed, "/translate", json=dict(TRANSLATE, api_key="s3cret")).status_code == 200
    assert post(keyed, "/translate", data=dict(TRANSLATE, api_key="s3cret")).status_code == 200
    body = {"model": "stories", "prompt": "Once", "max_tokens": 4}
    assert post(keyed, "/v1/completions", json=body).status_code == 401
    assert post(keyed, "/v1/completions", json=body, headers={"Authorization": "Bearer s3cret"}).status_code == 200
    healthy(keyed)


def test_text_limits(keyed):
    key = {"api_key": "s3cret", "source": "en", "target": "de"}
    assert post(keyed, "/translate", json=dict(key, q=["a"] * 5)).status_code == 400
    assert post(keyed, "/translate", json=dict(key, q="a" * 101)).status_code == 400
    assert post(keyed, "/translate", json=dict(key, q=["a"] * 4)).status_code == 200


def test_slow_loris_is_cut_off(keyed):
    """One byte a second: the connection is closed once the request took longer than --read-timeout-ms."""
    request = b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
    with socket.create_connection(("127.0.0.1", keyed.port), timeout=10) as s:
        start = time.time()
        closed = False
        for byte in request + b"{" * 500:
            try:
                s.sendall(bytes([byte]))
                if s.recv(1, socket.MSG_DONTWAIT) == b"":
                    closed = True
                    break
            except BlockingIOError:
                pass
            except OSError:
                closed = True
                break
            time.sleep(0.1 if time.time() - start < 1 else 1.0)
            if time.time() - start > 8:
                break
        assert closed, "the server kept a slow client for %.1f s" % (time.time() - start)
        assert time.time() - start < 5
    healthy(keyed)


def test_client_gone_mid_stream(server):
    """A client that reads two events of a streamed completion and disconnects: the server goes on."""
    body = json.dumps({"model": "stories", "prompt": "Once upon a time", "max_tokens": 200, "stream": True}).encode()
    head = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(head % len(body) + body)
        received = b""
        while received.count(b"data: ") < 2:
            received += s.recv(4096)
    healthy(server)
    r = post(server, "/v1/completions", json={"model": "stories", "prompt": "Once", "max_tokens": 8})
    assert r.status_code == 200


def test_queue_full_is_429(keyed):
    """--max-queue 0 and one session: of requests sent together, those finding the session busy get 429."""
    headers = {"Authorization": "Bearer s3cret"}
    body = {"model": "stories", "prompt": "Once", "max_tokens": 256}
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda _: post(keyed, "/v1/completions", json=body, headers=headers).status_code, range(32)))
    assert set(statuses) == {200, 429}, statuses
    healthy(keyed)
