"""`ilp-pyramid ui` as a user runs it: a real server process, real runs below it.

Loopback by default, a foreign Host or Origin refused, a taken port is bad input, Ctrl-C
and SIGTERM end the server and its runs within 2 s with nothing left, Stop ends a run with
nothing left, one run per session, a request over the size cap refused, stdout untouched.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from ilp_pyramid.ui.web import MAX_BODY_BYTES
from tests.proctools import gone, live_children, signal_and_time
from tests.ui_support import run_events, session_client, start_ui, stop_ui

EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}
# An open case: the search runs until stopped (or this limit, far past any test).
LONG_RUN = {"n": 6, "time_limit": 600}


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on `port` (from /proc/net/tcp{,6})."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def start_long_run(client) -> tuple[str, Iterator[dict]]:
    """A Bel N=6 solve under way: its id, and its events, open as a page's are, the first
    progress event read."""
    answer = client.post("/api/bel/solve", json=LONG_RUN)
    assert answer.status_code == 200, answer.text
    run_id = answer.json()["run"]
    events = run_events(client, run_id)
    first = next(events)
    assert first["type"] == "progress", first  # a done event here: it did not run
    return run_id, events


def test_it_listens_on_loopback_by_default():
    served = start_ui()
    try:
        assert served.url.startswith("http://127.0.0.1:")
        assert listening_addresses(served.port) == {"0100007F"}  # 127.0.0.1, nothing else
    finally:
        stop_ui(served)


def test_the_real_server_refuses_a_foreign_host_and_origin(ui_server):
    client = session_client(ui_server)
    try:
        port = ui_server.port
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}"):
            answer = client.get("/bel", headers={"Host": host})
            assert answer.status_code == 403 and "refused" in answer.text, host
        # A page of another site posting to this one (the cookie alone would let it in).
        answer = client.post("/api/bel/solve", json={"n": 2},
                             headers={"Origin": "http://evil.example"})
        assert answer.status_code == 403
        assert client.post("/api/bel/solve", json={"n": 2},
                           headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert client.get("/bel", headers={"Host": host}).status_code == 200
    finally:
        client.close()


def test_a_taken_port_is_bad_input():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "ilp_pyramid", "ui", "--no-browser",
                               "--port", str(port)], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot listen on 127.0.0.1:{port}")


# SIGTERM under `slow` (CI's stage 8): the server's handler takes both signals alike.
@pytest.mark.parametrize("signum", [
    signal.SIGINT, pytest.param(signal.SIGTERM, marks=pytest.mark.slow)])
def test_a_signal_stops_the_server_and_its_run_within_2_s(signum):
    served = start_ui()
    try:
        client = session_client(served)
        _, events = start_long_run(client)  # its event stream open, as a page's would be
        runs = live_children(served.process.pid)
        assert len(runs) == 1  # the run's CLI process, in a session of its own
        code, seconds = signal_and_time(served.process, signum)
        events.close()
        client.close()
        left = gone({served.process.pid, *runs})
        assert code == EXIT[signum] and seconds < 2.0, (code, seconds)
        assert left == set()
        assert served.process.stdout.read() == ""
        err = served.process.stderr.read()
        assert "Traceback" not in err and err.strip().splitlines()[-1].startswith(
            "error: interrupted"), err
    finally:
        stop_ui(served)


def test_stop_ends_the_run_and_leaves_no_process(ui_server):
    client = session_client(ui_server)
    try:
        run_id, events = start_long_run(client)
        runs = live_children(ui_server.process.pid)
        assert len(runs) == 1
        stopped = client.post(f"/api/runs/{run_id}/stop", json={})
        assert stopped.status_code == 200
        # The page's open stream ends with the done event.
        done = [e for e in events if e["type"] == "done"]
        assert done[0]["exit"] == 130 and done[0]["stopped"]
        assert gone(runs) == set()
        assert live_children(ui_server.process.pid) == set()
    finally:
        client.close()


def test_one_run_per_session(ui_server):
    client, other = session_client(ui_server), session_client(ui_server)
    try:
        run_id, events = start_long_run(client)
        events.close()
        again = client.post("/api/bel/solve", json={"n": 2})
        assert again.status_code == 409 and "already" in again.json()["error"]
        assert client.post("/api/bel/open", json={"text": "x"}).status_code == 409
        # Another session (another tab, another browser) has its own.
        theirs = other.post("/api/bel/solve", json={"n": 2})
        assert theirs.status_code == 200, theirs.text
        [done] = [e for e in run_events(other, theirs.json()["run"]) if e["type"] == "done"]
        assert done["exit"] == 0
        client.post(f"/api/runs/{run_id}/stop", json={})
        assert [e["exit"] for e in run_events(client, run_id) if e["type"] == "done"] == [130]
        # Its run over, the session may start the next one.
        assert client.post("/api/bel/solve", json={"n": 1}).status_code == 200
    finally:
        client.close()
        other.close()


def test_a_request_over_the_size_cap_is_refused(ui_server):
    client = session_client(ui_server)
    try:
        body = b'{"text": "' + b"1" * MAX_BODY_BYTES + b'"}'
        answer = client.post("/api/bel/open", content=body,
                             headers={"Content-Type": "application/json"})
        assert answer.status_code == 400 and "too large" in answer.json()["error"]

        def chunks():  # no Content-Length: the cap holds as the body streams in
            yield b'{"text": "'
            for _ in range(MAX_BODY_BYTES // 65536 + 1):
                yield b"1" * 65536
            yield b'"}'

        answer = client.post("/api/bel/open", content=chunks(),
                             headers={"Content-Type": "application/json"})
        assert answer.status_code == 400 and "too large" in answer.json()["error"]
        assert live_children(ui_server.process.pid) == set()  # nothing was started
    finally:
        client.close()


def test_stdout_stays_empty():
    served = start_ui()
    client = session_client(served)
    try:
        answer = client.post("/api/bel/solve", json={"n": 2})
        [done] = [e for e in run_events(client, answer.json()["run"]) if e["type"] == "done"]
        assert done["exit"] == 0 and done["result"]["solution"]
    finally:
        client.close()
        code = stop_ui(served)
    assert code == 130
    assert served.process.stdout.read() == ""


def test_on_every_address_an_ip_is_its_address_and_a_name_is_not():
    from starlette.testclient import TestClient

    from ilp_pyramid.ui.app import create_app

    with TestClient(create_app("0.0.0.0", 8765), base_url="http://192.168.1.5:8765") as client:
        assert client.get("/").status_code == 200  # the machine called by one of its IPs
        for host in ("127.0.0.1:8765", "localhost:8765", "[fe80::1]:8765"):
            assert client.get("/", headers={"Host": host}).status_code == 200, host
        # A rebinding page's name, another port: refused.
        for host in ("evil.example:8765", "192.168.1.5:8766", "192.168.1.5"):
            assert client.get("/", headers={"Host": host}).status_code == 403, host
        # Its own page posts from the address it was opened by; another's page is refused.
        same = {"Origin": "http://192.168.1.5:8765"}
        assert client.post("/api/bel/solve", json={"n": 0}, headers=same).status_code == 400
        for origin in ("http://10.0.0.7:8765", "http://evil.example"):
            assert client.post("/api/bel/solve", json={"n": 0},
                               headers={"Origin": origin}).status_code == 403, origin
