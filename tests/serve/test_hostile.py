"""Hostile clients on loopback, bounded in number and time: slow headers, slow bodies, chunked
floods, header floods and conflicting framing all at once. Throughout, /health is answered within
1 s (a protocol deadline: the attackers must not hold the threads that read requests), the
server's resident memory grows by less than 64 MiB, and SIGTERM ends the server within 2 s while
the attackers are still connected. Then the connection cap and the keep-alive limit, each alone."""
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


def attackers(port, stop):
    jobs = [(trickle, (port, stop, b"GET /health HTTP/1.1\r\n", b"X-Slow: " + b"a" * 100)) for _ in range(SLOW_HEADERS)]
    jobs += [(trickle, (port, stop, HEAD + b"Content-Length: 200\r\n\r\n", b" " * 200)) for _ in range(SLOW_BODIES)]
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    jobs += [(flood, (port, stop, HEAD + b"Transfer-Encoding: chunked\r\n\r\n", chunk))] * 2
    jobs += [(flood, (port, stop, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Flood: 1\r\n" * 4096))] * 2
    jobs += [(framing, (port, stop))] * 2
    threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in jobs]
    for t in threads:
        t.start()
    return threads


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
