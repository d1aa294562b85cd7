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
    """One byte a second: the connection is closed once the request took longer than --read-timeout-ms
    (the whole request: the clock runs from its first byte, through the headers and the body)."""
    request = b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
    with socket.create_connection(("127.0.0.1", keyed.port), timeout=10) as s:
        start = time.time()
        closed = False
        answer = b""
        for byte in request + b"{" * 500:
            try:
                s.sendall(bytes([byte]))
                part = s.recv(4096, socket.MSG_DONTWAIT)
                answer += part
                if part == b"" or b" 408 " in answer:
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
    head = b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
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


def raw(server, data, timeout=10, half_close=True):
    """Sends `data` on a new connection; returns everything the server answers until it closes.
    half_close: the client then shuts its side down, which tells the server it has gone (a request
    being translated is cancelled, as a disconnect): a request that should be answered keeps it
    open and asks `Connection: close` instead."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as s:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        answer = b""
        while True:
            try:
                part = s.recv(65536)
            except ConnectionResetError:
                break
            if not part:
                break
            answer += part
        return answer


def status_of(answer):
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else None


HEAD = b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
BODY = json.dumps(TRANSLATE).encode()


@pytest.mark.parametrize("framing,status", [
    (b"Content-Length: %d\r\nContent-Length: %d\r\n" % (len(BODY), len(BODY) + 1), 400),
    (b"Content-Length: %d, %d\r\n" % (len(BODY), len(BODY) - 1), 400),
    (b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % len(BODY), 400),
    (b"Transfer-Encoding: chunked\r\nContent-Length: %d\r\n" % len(BODY), 400),
    (b"Transfer-Encoding: gzip, chunked\r\n", 501),
    (b"Content-Length: -1\r\n", 400),
    (b"Content-Length : %d\r\n" % len(BODY), 400),
])
def test_conflicting_framing_is_400(server, framing, status):
    """Two framings of one body are how requests are smuggled: refused, whatever order they come in."""
    assert status_of(raw(server, HEAD + framing + b"\r\n" + BODY)) == status
    healthy(server)


def test_same_content_length_twice_is_one(server):
    answer = raw(server, HEAD + b"Connection: close\r\nContent-Length: %d\r\nContent-Length: %d\r\n\r\n"
                 % (len(BODY), len(BODY)) + BODY, half_close=False)
    assert status_of(answer) == 200, answer


def chunked(body, size):
    return b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size]) for i in range(0, len(body), size)) + b"0\r\n\r\n"


def test_chunked_body_within_limit_is_read(server):
    answer = raw(server, HEAD + b"Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(BODY, 7),
                 half_close=False)
    assert status_of(answer) == 200 and b"translatedText" in answer, answer


def test_chunked_body_over_limit_is_413(server):
    """2 MiB chunked against the 1 MiB default: 413, and the server did not keep reading it."""
    answer = raw(server, HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(b"x" * (2 << 20), 65536))
    assert status_of(answer) == 413, answer[:200]
    answer = raw(server, HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"7fffffff\r\n")  # one huge chunk declared
    assert status_of(answer) == 413, answer[:200]
    healthy(server)


def test_header_limits_are_431(server):
    many = b"".join(b"X-A%d: 1\r\n" % i for i in range(65))
    assert status_of(raw(server, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n")) == 431
    big = b"X-Big: " + b"a" * 20000 + b"\r\n"
    assert status_of(raw(server, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big + b"\r\n")) == 431
    endless = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-B: 1\r\n" * 100000  # never ends: cut at the limit
    assert status_of(raw(server, endless)) == 431
    healthy(server)


def test_post_without_length_has_an_empty_body(server):
    """No Content-Length and not chunked: an empty body (RFC 9112 6.3), not "read until the client closes"."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(HEAD + b"\r\n")
        assert status_of(s.recv(65536)) == 400


def test_second_server_on_the_same_port_fails(heed_cli, server, models):
    """No SO_REUSEPORT: a second server on a port in use exits with an error naming the port."""
    import subprocess
    p = subprocess.run([heed_cli, "serve", "-m", models["argos"], "--port", str(server.port)],
                       capture_output=True, timeout=120)
    message = p.stderr.decode()
    assert p.returncode != 0 and str(server.port) in message and "in use" in message, message
    healthy(server)


@pytest.mark.parametrize("key", ["", " ", "\t"])
def test_blank_api_key_refused_at_start(heed_cli, models, key):
    import subprocess
    p = subprocess.run([heed_cli, "serve", "-m", models["argos"], "--port", "0", "--api-key", key],
                       capture_output=True, timeout=120)
    assert p.returncode != 0 and "blank key" in p.stderr.decode(), p.stderr.decode()


def test_host_check(server, start, models):
    """Bound to loopback: Host must be the address, localhost or --allowed-host (DNS rebinding)."""
    for host in ["127.0.0.1", "127.0.0.1:%d" % server.port, "localhost", "LOCALHOST:1", "[::1]:5000"]:
        assert requests.get(server.url + "/health", headers={"Host": host}, timeout=10).status_code == 200, host
    for host in ["evil.example", "evil.example:%d" % server.port, "127.0.0.1.evil.example"]:
        r = requests.get(server.url + "/health", headers={"Host": host}, timeout=10)
        assert r.status_code == 403 and "not served here" in r.json()["error"], host
    r = post(server, "/v1/embeddings", json={"model": "bert", "input": "a"}, headers={"Host": "evil.example"})
    assert r.status_code == 403 and "message" in r.json()["error"]
    named = start(["-m", models["argos"], "--allowed-host", "heed.lan"])
    assert requests.get(named.url + "/health", headers={"Host": "heed.lan:80"}, timeout=10).status_code == 200
    assert requests.get(named.url + "/health", headers={"Host": "evil.example"}, timeout=10).status_code == 403


def test_cors_as_libretranslate(server, start, models):
    r = post(server, "/translate", json=TRANSLATE)
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"
    r = post(server, "/translate", json={"q": 5})
    assert r.status_code == 400 and r.headers["Access-Control-Allow-Origin"] == "*"  # errors too
    assert requests.get(server.url + "/languages", timeout=10).headers["Access-Control-Allow-Origin"] == "*"
    pre = requests.options(server.url + "/translate", headers={"Origin": "http://a.example",
                           "Access-Control-Request-Method": "POST"}, timeout=10)
    assert pre.status_code == 204 and "POST" in pre.headers["Access-Control-Allow-Methods"]
    assert "Content-Type" in pre.headers["Access-Control-Allow-Headers"]
    r = post(server, "/v1/embeddings", json={"model": "bert", "input": "a"})
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers
    assert "Access-Control-Allow-Origin" not in requests.get(server.url + "/health", timeout=10).headers
    asked = start(["-m", models["argos"], "-m", models["bert"], "--cors-origin", "http://a.example",
                   "--v1-cors-origin", "http://b.example"])
    assert post(asked, "/translate", json=TRANSLATE).headers["Access-Control-Allow-Origin"] == "http://a.example"
    r = post(asked, "/v1/embeddings", json={"model": "bert", "input": "a"})
    assert r.headers["Access-Control-Allow-Origin"] == "http://b.example"


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "application/jsonx"])
def test_v1_takes_json_only(server, content_type):
    """What a page can post cross-origin without a preflight is refused on /v1 (415)."""
    headers = {"Content-Type": content_type} if content_type else {}
    data = json.dumps({"model": "bert", "input": "a"}).encode()
    s = requests.Session()
    req = requests.Request("POST", server.url + "/v1/embeddings", data=data, headers=headers).prepare()
    if content_type is None:
        req.headers.pop("Content-Type", None)
    r = s.send(req, timeout=30)
    assert r.status_code == 415, (content_type, r.status_code, r.text)
    assert post(server, "/translate", data=TRANSLATE).status_code == 200  # LibreTranslate takes forms


def test_encoding_format_not_a_string_is_400(server):
    for value in [5, ["float"], {"a": 1}, True]:
        r = post(server, "/v1/embeddings", json={"model": "bert", "input": "a", "encoding_format": value})
        assert r.status_code == 400, (value, r.status_code)


def test_refused_requests_log_no_earlier_request(start, models):
    """A request httplib refuses before routing (an unknown method) logs its own line, not the model
    and text of the request the same connection's thread served before."""
    logged = start(["-m", models["argos"], "--log-text"])
    first = HEAD + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY
    answer = raw(logged, first + b"BREW /pot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.count(b"HTTP/1.1 ") == 2, answer
    time.sleep(0.2)
    line = [l for l in logged.log_lines() if l.get("endpoint", "").startswith("BREW")][-1]
    assert line["status"] == 400 and "model" not in line and "text" not in line, line


def test_slow_body_is_cut_off(keyed):
    """Headers at once, then the body a byte at a time: the read deadline covers the body too (408)."""
    with socket.create_connection(("127.0.0.1", keyed.port), timeout=10) as s:
        s.sendall(HEAD + b"Content-Length: 1000\r\n\r\n")
        start = time.time()
        answer = b""
        while time.time() - start < 8:
            try:
                s.sendall(b" ")
                answer += s.recv(4096, socket.MSG_DONTWAIT)
                if answer.endswith(b"}"):
                    break
            except BlockingIOError:
                pass
            except OSError:
                break
            time.sleep(0.2)
        assert status_of(answer) == 408 and time.time() - start < 4, (answer, time.time() - start)
    healthy(keyed)


def test_two_models_for_one_language_pair_refused_at_start(heed_cli, models, tmp_path):
    import shutil
    import subprocess
    copy = str(tmp_path / "argos-copy.heed")
    shutil.copy(models["argos"], copy)
    p = subprocess.run([heed_cli, "serve", "-m", models["argos"], "-m", copy, "--port", "0"], capture_output=True, timeout=120)
    message = p.stderr.decode()
    assert p.returncode != 0 and models["argos"] in message and copy in message and "en-de" in message, message


@pytest.mark.parametrize("content_type,body", [
    ("multipart/form-data; boundary=xx", b"garbage"),
    ("multipart/form-data", b"--xx\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\na\r\n--xx--\r\n"),
    ("multipart/form-data; boundary=xx", b"--xx\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\na"),
    ("multipart/form-data; boundary=xx", b"--xx\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n\xff\r\n--xx--\r\n"),
])
def test_malformed_multipart_is_400(server, content_type, body):
    r = post(server, "/translate", data=body, headers={"Content-Type": content_type})
    assert r.status_code == 400 and "Invalid request" in r.json()["error"], r.text
    healthy(server)


def test_mutated_multipart_bodies_are_answered(server):
    """httplib's multipart parser on bodies cut, flipped and repeated from a valid one (a fixed seed):
    each gets 200 or 400, and the server stays up."""
    import random
    boundary = b"heedboundary"
    valid = b"".join(b"--" + boundary + b'\r\nContent-Disposition: form-data; name="' + name + b'"\r\n\r\n' + value + b"\r\n"
                     for name, value in [(b"q", b"Hello world."), (b"source", b"en"), (b"target", b"de")]) + b"--" + boundary + b"--\r\n"
    rng = random.Random(1234)
    statuses = set()
    for _ in range(300):
        body = bytearray(valid)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(body))
            action = rng.randrange(3)
            if action == 0:
                body[i] = rng.randrange(256)
            elif action == 1:
                del body[i:i + rng.randint(1, 20)]
            else:
                body[i:i] = body[i:i + rng.randint(1, 40)] * rng.randint(1, 50)
        r = post(server, "/translate", data=bytes(body),
                 headers={"Content-Type": "multipart/form-data; boundary=" + boundary.decode()})
        assert r.status_code in (200, 400), (r.status_code, r.text, bytes(body))
        statuses.add(r.status_code)
    assert statuses == {200, 400}
    healthy(server)
