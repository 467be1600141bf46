"""The workbench's bounds: connections, cores, time, sessions, and what its answers reveal.

A real server at a 200-descriptor limit outlives 260 idle connections (silent, stopped
inside their headers, promising a body never sent, leaving mid-body) and keeps its terminal
quiet; every answer carries the security headers; the runs' cores stay within the machine's;
a run nobody watches any more, or past its time limit, is stopped; a cookie the server did
not issue is no session; no answer names a server path; the engines offered are the
installed ones.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
import pytest

from ilp_pyramid import extras, machine
from ilp_pyramid.backends import solvers
from ilp_pyramid.ui import server, web
from ilp_pyramid.ui.guard import SECURITY_HEADERS
from ilp_pyramid.ui.runs import ABANDON_SECONDS, STOP_GRACE_SECONDS, RunManager
from tests.proctools import gone
from tests.ui_support import done_event, run_events, session_client, start_ui, stop_ui

STATIC = Path(web.__file__).parent / "static"
DESCRIPTORS = 200
IDLE_CONNECTIONS = 260
# Run the server under a descriptor limit: set it, then exec the command (as prlimit does).
LIMITED = (sys.executable, "-c", "import os, resource, sys; n = int(sys.argv[1]); "
           "resource.setrlimit(resource.RLIMIT_NOFILE, (n, n)); os.execv(sys.argv[2], "
           "sys.argv[2:])", str(DESCRIPTORS))
LONG_RUN = {"n": 6, "time_limit": 600}  # open: the search runs until stopped


# --- connections ---------------------------------------------------------------------------

def _drain(stream, into: list[str]) -> threading.Thread:
    thread = threading.Thread(target=lambda: into.extend(stream), daemon=True)
    thread.start()
    return thread


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server ended this connection (EOF, a reset, or an answer then EOF)."""
    sock.setblocking(False)
    try:
        while data := sock.recv(65536):
            if b"HTTP/1.1 4" not in data:
                return False
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


@pytest.mark.slow  # run by CI's stage 8 (.ci/run): the default suite stays under 4 minutes
def test_idle_connections_do_not_take_the_server_at_a_200_descriptor_limit():
    served = start_ui(prefix=LIMITED)
    err: list[str] = []
    drain = _drain(served.process.stderr, err)
    host = f"127.0.0.1:{served.port}"
    kinds = [b"",  # connects, sends nothing
             f"GET / HTTP/1.1\r\nHost: {host}\r\nX-Slow: ".encode(),  # stops in its headers
             f"POST /api/bel/solve HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
             "application/json\r\nContent-Length: 1000\r\n\r\n{".encode()]  # body never sent
    idle: list[socket.socket] = []
    try:
        began = time.monotonic()
        for k in range(IDLE_CONNECTIONS):
            sock = socket.create_connection(("127.0.0.1", served.port), timeout=5)
            sock.sendall(kinds[k % 3])
            idle.append(sock)
        for _ in range(10):  # clients that leave mid-body: nothing to log
            with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
                sock.sendall(kinds[2])
        assert time.monotonic() - began < 60
        asked = time.monotonic()
        answer = httpx2.get(served.url + "/api/bel/options", timeout=10)
        # answered while the stalled connections are held, not once they are cut
        assert answer.status_code == 200 and time.monotonic() - asked < server.HEADER_SECONDS
        assert len(os.listdir(f"/proc/{served.process.pid}/fd")) < DESCRIPTORS - 20
        # The server ends every stalled connection itself: silent or inside its headers
        # after HEADER_SECONDS, a body that does not come with a 408 after BODY_SECONDS.
        deadline = time.monotonic() + max(server.HEADER_SECONDS, web.BODY_SECONDS) + 10
        while time.monotonic() < deadline and not all(_closed_by_server(s) for s in idle):
            time.sleep(0.5)
        assert all(_closed_by_server(s) for s in idle)
        assert httpx2.get(served.url + "/api/bel/options", timeout=10).status_code == 200
    finally:
        for sock in idle:
            sock.close()
        code = stop_ui(served)
        drain.join(5)
    assert code == 130
    assert "Traceback" not in "".join(err) and len(err) <= 3, "".join(err[:20])


def test_the_connection_cap_stays_below_the_descriptor_limit():
    for limit in (200, 1024, 4096, 65536):
        cap = server.connection_cap(limit)
        assert server.MIN_CONNECTIONS <= cap <= min(server.MAX_CONNECTIONS,
                                                    limit - server.RESERVED_DESCRIPTORS)


def test_a_body_that_does_not_come_is_a_408_that_closes_the_connection(monkeypatch):
    from ilp_pyramid.ui.app import create_app

    monkeypatch.setattr(web, "BODY_SECONDS", 0.2)
    app, sent = create_app("127.0.0.1", 8765), []

    async def never() -> dict:
        await asyncio.sleep(30)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/api/bel/solve",
             "raw_path": b"/api/bel/solve", "query_string": b"", "root_path": "",
             "server": ("127.0.0.1", 8765), "client": ("127.0.0.1", 40000),
             "headers": [(b"host", b"127.0.0.1:8765"), (b"content-length", b"100")]}
    asyncio.run(asyncio.wait_for(app(scope, never, send), 10))
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert b"did not arrive" in sent[1]["body"]


# --- what every answer says --------------------------------------------------------------

def test_every_answer_carries_the_security_headers(ui_client, monkeypatch):
    from ilp_pyramid.ui.pages import views

    answers = [ui_client.get(path) for path in (
        "/", "/iq", "/sudoku-cube", "/views", "/bel", "/static/common.js", "/static/bel.css",
        "/favicon.ico", "/api/bel/options", "/api/iq/setup", "/api/views/options",
        "/api/sudoku-cube/layout", "/api/runs/nosuch", "/nosuch", "/static/nosuch.js")]
    answers += [ui_client.post("/api/views/check", json={"n": 1, "top": ["x"],
                                                         "front": ["x"], "side": ["x"]}),
                ui_client.post("/api/bel/solve", json={"n": "²"}),
                ui_client.post("/api/bel/options", json={}),
                ui_client.get("/", headers={"Host": "evil.example:8765"})]
    monkeypatch.setattr(views, "describe_views", lambda _views: 1 / 0)
    answers.append(ui_client.post("/api/views/check", json={"n": 1, "top": ["x"],
                                                            "front": ["x"], "side": ["x"]}))
    assert {a.status_code for a in answers} >= {200, 204, 400, 403, 404, 405, 500}
    for answer in answers:
        for name, value in SECURITY_HEADERS:
            assert answer.headers.get(name.decode()) == value.decode(), (answer.url, name)
    policy = answers[0].headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    # The pages keep to it: no inline script, style or handler (the policy would block it
    # and the page break), no other site's assets.
    for page in STATIC.glob("*.html"):
        text = page.read_text()
        scripts = re.findall(r"<script\b[^>]*>", text)
        assert all('src="/static/' in tag for tag in scripts), page.name
        assert re.search(r"<script\b[^>]*>\s*[^<\s]", text) is None, page.name
        assert re.search(r"\sstyle=|<style\b|\son[a-z]+=|javascript:", text) is None, page.name
        assert re.search(r"(src|href)=\"(https?:)?//", text) is None, page.name


def test_no_answer_names_a_server_path(ui_client):
    board = {"cells": [[x, y] for x in range(3) for y in range(2)]}
    bodies = []
    for route, body in (("/api/iq/solve", {"board": board, "given": {}, "solver": "dlx"}),
                        ("/api/iq/count", {"board": "pyramid4",
                                           "given": {"b": [[0, 0, 0]], "j": [[0, 0, 3]]}}),
                        ("/api/bel/solve", {"n": 1})):
        started = ui_client.post(route, json=body)
        assert started.status_code == 200, started.text
        run = started.json()["run"]
        done = done_event(ui_client, run)
        assert done["exit"] in (0, 1), done
        bodies += [started.text, str(done), ui_client.get(f"/api/runs/{run}").text]
    bodies.append(ui_client.get(f"/api/iq/listing/{run}").text)
    opened = ui_client.post("/api/bel/open", json={"text": "no solution here"})
    assert opened.status_code == 400
    bodies.append(opened.text)
    for text in bodies:
        assert "/tmp/" not in text and tempfile.gettempdir() not in text, text[:300]
        assert "ilp-pyramid-ui-" not in text, text[:300]


# --- cores, time, sessions ---------------------------------------------------------------

def _as(client, token: str):
    """The client's requests from now on come from session `token`."""
    client.cookies.set(web.SESSION_COOKIE, token, domain="127.0.0.1")
    return client


def test_the_runs_cores_stay_within_the_budget(ui_client, stub_children):
    """Two Bel N=6 runs: each started with --jobs from the budget, their sum within the
    cores; a third session waits. The budget is 3 cores here, whatever the machine has.
    The children are stand-ins: what is checked is the server's budget, and its stop."""
    assert RunManager().cores == machine.cores()
    manager = ui_client.app.state.runs
    manager.cores = 3
    sessions = [ui_client.app.state.sessions.new() for _ in range(3)]
    started = []
    try:
        for token in sessions[:2]:
            answer = _as(ui_client, token).post("/api/bel/solve", json=LONG_RUN)
            assert answer.status_code == 200, answer.text
            started.append(answer.json())
        third = _as(ui_client, sessions[2]).post("/api/bel/solve", json=LONG_RUN)
        assert third.status_code == 409 and "cores" in third.json()["error"]
    finally:
        for token, run in zip(sessions, started, strict=False):
            _as(ui_client, token).post(f"/api/runs/{run['run']}/stop", json={})
    jobs = [run["jobs"] for run in started]
    assert jobs == [2, 1] and sum(jobs) <= manager.cores
    assert [run["args"] for run in started] == stub_children  # what the children were given
    for run in started:
        args = run["args"]
        assert args[args.index("--jobs") + 1] == str(run["jobs"])
        assert args[-2:] == ["--time-limit", "600"]
    assert gone({run.child.pid for run in manager.runs.values()}) == set()


def test_a_run_without_a_time_limit_gets_the_default(ui_client):
    options = ui_client.get("/api/bel/options").json()
    assert options["default_time_limit"] == web.DEFAULT_TIME_LIMIT
    for route in ("/api/iq/setup", "/api/views/options", "/api/sudoku-cube/layout"):
        assert ui_client.get(route).json()["default_time_limit"] == web.DEFAULT_TIME_LIMIT
    answer = ui_client.post("/api/bel/solve", json={"n": 1})
    assert answer.json()["args"][-2:] == ["--time-limit", f"{web.DEFAULT_TIME_LIMIT:g}"]
    assert answer.json()["time_limit"] == web.DEFAULT_TIME_LIMIT
    assert done_event(ui_client, answer.json()["run"])["exit"] == 0


def test_a_run_past_its_time_limit_is_stopped(ui_client, stub_children):
    # A stand-in child: the server's watch is checked (the closed event stream's test stops a
    # real run).
    manager = ui_client.app.state.runs
    manager.overtime_seconds = 0.2
    session = ui_client.cookies.get(web.SESSION_COOKIE)
    # No --time-limit on the command: only the server's watch can end it.
    run = ui_client.portal.call(lambda: manager.start(
        session, ["solve", "6", "--json", "--jobs", "1"], seconds=0.5))
    done = done_event(ui_client, run.id)
    assert done["stopped"] and done["why"] == "overtime" and done["exit"] == 130
    assert done["seconds"] >= 0.5  # not before its time: the watch, past the run's seconds
    assert gone({run.child.pid}) == set()


def test_a_closed_event_stream_stops_its_run(ui_server):
    client = session_client(ui_server)
    try:
        answer = client.post("/api/bel/solve", json=LONG_RUN)
        run = answer.json()["run"]
        events = run_events(client, run)
        assert next(events)["type"] == "progress"
        events.close()  # the page went away
        closed = time.monotonic()
        deadline = closed + ABANDON_SECONDS + STOP_GRACE_SECONDS + 10
        while time.monotonic() < deadline and not client.get(f"/api/runs/{run}").json()["done"]:
            time.sleep(0.2)
        state = client.get(f"/api/runs/{run}").json()
        assert state["done"] and state["stopped"], state
        assert state["last"]["why"] == "abandoned" and state["last"]["exit"] == 130
        assert time.monotonic() - closed >= ABANDON_SECONDS - 0.5
    finally:
        client.close()


def test_an_unknown_session_cookie_gets_no_run_and_a_new_session(ui_client):
    _as(ui_client, "made-up-by-a-script")
    answer = ui_client.post("/api/bel/solve", json={"n": 2})
    assert answer.status_code == 400 and answer.json()["error"] == "no session: reload the page"
    assert ui_client.app.state.runs.runs == {}
    page = ui_client.get("/bel")
    issued = page.cookies.get(web.SESSION_COOKIE)
    assert issued and issued != "made-up-by-a-script" and len(issued) >= 32
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


# --- the engines offered ---------------------------------------------------------------

def test_the_engines_offered_are_the_installed_solvers(ui_client, monkeypatch):
    missing = {"gurobipy", "ortools", "pyscipopt"}
    available = extras.available
    monkeypatch.setattr(extras, "available", lambda module: module not in missing
                        and available(module))
    mip = solvers.names("mip", installed=True)
    assert "gurobi" not in mip and "scip" not in mip and "highs" in mip
    bel = [e["name"] for e in ui_client.get("/api/bel/options").json()["engines"]]
    assert {f"exact:{name}" for name in mip} <= set(bel)
    assert not {"exact:gurobi", "exact:scip", "exact:cpsat", "lns+scip"} & set(bel)
    iq = ui_client.get("/api/iq/setup").json()["solvers"]
    assert set(mip) <= set(iq) and not {"gurobi", "scip", "cpsat"} & set(iq)
    sat = solvers.names("sat", installed=True, aliases=False)  # by their linear search
    assert ui_client.get("/api/views/options").json()["solvers"] == [*mip, *sat, "rc2"]
    short_sat = [name for name in solvers.names("sat", installed=True) if name not in sat]
    assert ui_client.get("/api/sudoku-cube/layout").json()["solvers"] == [*mip, *short_sat]
    refused = ui_client.post("/api/views/solve", json={"number": 157, "solver": "gurobi"})
    assert refused.status_code == 400 and "solver must be one of" in refused.json()["error"]
