"""Hostile clients on loopback, bounded in number and time: slow headers, slow bodies, chunked
floods, header floods and conflicting framing all at once. Throughout, /health is answered within
1 s (a protocol deadline: the attackers must not hold the threads that read requests), the
server's resident memory grows by less than 64 MiB, and SIGTERM ends the server within 2 s while
the attackers are still connected. First against a default server (the issue's numbers: 40 slow
bodies, 40 slow headers, a translation by a trained model answered within 1 s too), then with a
short read timeout so that the attackers are cut off and come back. Then the connection cap and
the keep-alive limit, each alone."""
import multiprocessing
import os
import socket
import threading
import time

import requests

SECONDS = 8
SLOW_HEADERS = 20
SLOW_BODIES = 40
RSS_CEILING_KIB = 64 * 1024
HEAD = b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # close: reset
    return s


def trickle(port, stop, first, then):
    """Sends `first`, then `then` one byte every 0.5 s, reconnecting whenever the server cuts it off."""
    while not stop.is_set():
        try:
            with connect(port) as s:
                s.sendall(first)
                for byte in then:
                    if stop.wait(0.5):
                        return
                    s.sendall(bytes([byte]))
        except OSError:
            stop.wait(0.1)


def flood(port, stop, head, piece):
    """Sends `head`, then `piece` over and over as fast as the server takes it, reconnecting."""
    while not stop.is_set():
        try:
            with connect(port) as s:
                s.sendall(head)
                sent = 0
                while not stop.is_set() and sent < (64 << 20):
                    s.sendall(piece)
                    sent += len(piece)
        except OSError:
            stop.wait(0.05)


def framing(port, stop):
    body = b'{"q": "a", "source": "en", "target": "de"}'
    bad = [b"Content-Length: 42\r\nContent-Length: 43\r\n", b"Content-Length: 42\r\nTransfer-Encoding: chunked\r\n"]
    i = 0
    while not stop.is_set():
        try:
            with connect(port) as s:
                s.sendall(HEAD + bad[i % 2] + b"\r\n" + body)
                while s.recv(4096):
                    pass
        except OSError:
            pass
        i += 1
        stop.wait(0.02)


def attackers(port, stop, slow_headers=SLOW_HEADERS, slow_bodies=SLOW_BODIES):
    jobs = [(trickle, (port, stop, b"GET /health HTTP/1.1\r\n", b"X-Slow: " + b"a" * 100)) for _ in range(slow_headers)]
    jobs += [(trickle, (port, stop, HEAD + b"Content-Length: 200\r\n\r\n", b" " * 200)) for _ in range(slow_bodies)]
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    jobs += [(flood, (port, stop, HEAD + b"Transfer-Encoding: chunked\r\n\r\n", chunk))] * 2
    jobs += [(flood, (port, stop, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Flood: 1\r\n" * 4096))] * 2
    jobs += [(framing, (port, stop))] * 2
    threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in jobs]
    for t in threads:
        t.start()
    return threads


def attack_process(port, stop, slow_headers, slow_bodies):
    """The attackers in a process of their own, so that their threads do not slow the measuring one."""
    local = threading.Event()
    threads = attackers(port, local, slow_headers, slow_bodies)
    stop.wait()
    local.set()
    for thread in threads:
        thread.join(timeout=10)


def timed(call):
    t = time.time()
    r = call()
    return r, time.time() - t


def sigterm_seconds(server):
    t = time.time()
    server.process.send_signal(15)
    server.process.wait(timeout=10)
    return time.time() - t


ISSUE_SECONDS = 12  # past the default 10 s read timeout, so the slow clients get their 408 too


def test_default_server_under_attack_answers_health_and_translations(start, aren):
    # The issue's numbers against a server with no tuned flags: 40 slow-body and 40 slow-header
    # clients, chunked and header floods, conflicting framing. A trained model (../shared's
    # transliteration model: its own tests give آ ت ز م و ن -> a t z m o n) translates throughout.
    server = start(["-m", aren, "--lang", "ar-en"])
    body = {"q": "آ ت ز م و ن", "source": "ar", "target": "en"}
    assert requests.post(server.url + "/translate", json=body, timeout=30).json() == {"translatedText": "a t z m o n"}
    before = server.rss_kib()
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    attack = context.Process(target=attack_process, args=(server.port, stop, 40, 40), daemon=True)
    attack.start()
    worst_health = worst_translation = 0.0
    peak = before
    rounds = 0
    end = time.time() + ISSUE_SECONDS
    while time.time() < end:
        r, took = timed(lambda: requests.get(server.url + "/health", timeout=5))
        assert r.status_code == 200
        worst_health = max(worst_health, took)
        r, took = timed(lambda: requests.post(server.url + "/translate", json=body, timeout=5))
        assert r.status_code == 200 and r.json() == {"translatedText": "a t z m o n"}, r.text
        worst_translation = max(worst_translation, took)
        peak = max(peak, server.rss_kib())
        rounds += 1
        time.sleep(0.1)
    took = sigterm_seconds(server)
    stop.set()
    attack.join(timeout=15)
    print("%d rounds: health worst %.3f s, translation worst %.3f s, rss %d -> %d KiB (+%d), SIGTERM %.2f s" %
          (rounds, worst_health, worst_translation, before, peak, peak - before, took))
    assert worst_health < 1.0, "/health took %.2f s while attackers ran" % worst_health
    assert worst_translation < 1.0, "a translation took %.2f s while attackers ran" % worst_translation
    if not os.environ.get("HEED_SANITIZED"):  # AddressSanitizer's quarantine keeps freed memory resident
        assert peak - before < RSS_CEILING_KIB, "resident memory grew from %d to %d KiB" % (before, peak)
    assert server.process.returncode == 0 and took < 2.0, "SIGTERM took %.2f s" % took
    log = server.log_text()
    for status in ['"status":408', '"status":413', '"status":431', '"status":400']:
        assert status in log, status


def test_health_answered_memory_bounded_sigterm_prompt(start, models):
    # Reading a request may take 2 s here (10 s by default), so the slow attackers are cut off and
    # come back several times within the run.
    server = start(["-m", models["argos"], "--read-timeout-ms", "2000"])
    requests.post(server.url + "/translate", json={"q": "Hello.", "source": "en", "target": "de"}, timeout=30)
    before = server.rss_kib()
    stop = threading.Event()
    threads = attackers(server.port, stop)
    slowest, peak = 0.0, before
    end = time.time() + SECONDS
    while time.time() < end:
        t = time.time()
        r = requests.get(server.url + "/health", timeout=5)
        slowest = max(slowest, time.time() - t)
        assert r.status_code == 200
        peak = max(peak, server.rss_kib())
        time.sleep(0.1)
    assert slowest < 1.0, "/health took %.2f s while attackers ran" % slowest
    if not os.environ.get("HEED_SANITIZED"):  # AddressSanitizer's quarantine keeps freed memory resident
        assert peak - before < RSS_CEILING_KIB, "resident memory grew from %d to %d KiB" % (before, peak)
    t = time.time()
    server.process.send_signal(15)
    server.process.wait(timeout=10)
    took = time.time() - t
    stop.set()
    for thread in threads:
        thread.join(timeout=10)
    assert server.process.returncode == 0 and took < 2.0, "SIGTERM took %.2f s" % took
    log = server.log_text()
    for status in ['"status":408', '"status":413', '"status":431', '"status":400']:
        assert status in log, status
    print("health slowest %.3f s, rss %d -> %d KiB, SIGTERM %.2f s" % (slowest, before, peak, took))


def test_connection_cap_drops_oldest_idle(start, models):
    server = start(["-m", models["argos"], "--max-connections", "4"])
    idle = [connect(server.port) for _ in range(4)]
    time.sleep(0.3)
    sessions = [requests.Session() for _ in range(3)]  # each keeps its connection open, idle, after its answer
    for session in sessions:  # each new connection displaces the oldest idle one
        assert session.get(server.url + "/health", timeout=5).status_code == 200
    closed = 0
    for s in idle:
        s.settimeout(2)
        try:
            closed += s.recv(1) == b""
        except (socket.timeout, OSError):
            pass
        s.close()
    assert closed == 3, "%d of the idle connections were closed" % closed
    for session in sessions:
        session.close()


def test_idle_keep_alive_is_closed(start, models):
    server = start(["-m", models["argos"], "--keep-alive-ms", "500"])
    with connect(server.port) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(0.2)
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
        s.settimeout(5)
        t = time.time()
        assert s.recv(1) == b""
        assert time.time() - t < 2
