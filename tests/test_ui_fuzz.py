"""Every route of the workbench fuzzed with bad fields, in-process (Starlette's TestClient).

The contract for every request, whatever its body, query or path: never a 500; an error is
a JSON object whose `error` is one line (the CLI's message); nothing unexpected reaches the
server's log. The fields are replaced one or two at a time, at every depth of a request
that would otherwise be good, by the kinds of input that broke the server: digits that are
not ASCII ("²", "①", "٣"), "--5", 5,000-digit numbers, 1e400, NaN and Infinity, nesting
100,000 deep, lone surrogates, wrong types, huge strings. No run is started: the app runs
with a stand-in run manager that records the command line a run would have had.

ILP_PYRAMID_FUZZ_EXAMPLES sets the examples per route (default BOUNDED).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilp_pyramid.puzzles.sudoku_cube.generate import generate
from ilp_pyramid.ui.runs import Run, RunManager

BOUNDED = 25
EXAMPLES = int(os.environ.get("ILP_PYRAMID_FUZZ_EXAMPLES", BOUNDED))
MAX_ERROR_CHARS = 500


class Raw:
    """A JSON token written as it is (json.dumps cannot write 1e400, NaN or a lone
    surrogate's escape the way a hostile client can)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __repr__(self) -> str:
        return f"Raw({self.token[:30]!r})"


def encode(value: Any) -> bytes:
    """`value` as JSON text, every Raw as its token."""
    raws: list[str] = []

    def placeholder(item: Any) -> Any:
        if isinstance(item, Raw):
            raws.append(item.token)
            return f"\x00raw{len(raws) - 1}\x00"
        if isinstance(item, dict):
            return {key: placeholder(v) for key, v in item.items()}
        if isinstance(item, list):
            return [placeholder(v) for v in item]
        return item

    text = json.dumps(placeholder(value))
    for k, token in enumerate(raws):
        text = text.replace(json.dumps(f"\x00raw{k}\x00"), token)
    return text.encode("utf-8", "surrogatepass")


class StandInRuns(RunManager):
    """Runs that end at once with exit 2 (a page reading a done run, its listing, its
    state); `started` holds each command line."""

    def __init__(self) -> None:
        super().__init__()
        self.cores = 2
        self.started: list[list[str]] = []

    async def start(self, session, args, files=None, *_, jobs: int = 1, **__) -> Run:
        argv = [str(a) for a in (args(min(jobs, 2)) if callable(args) else args)]
        self.started.append(argv)
        run = Run(f"run{len(self.started)}", session, argv, Path("."))
        run.kept = gzip.compress(b"# listing\nA/BB/CCC\nA/CC/BBB\n")
        run.done = True
        run.add({"type": "done", "exit": 2, "stopped": False, "seconds": 0.0,
                 "result": None, "error": "not run in this test"})
        self.runs[run.id] = run
        return run


FACES = generate(3, 8).state.to_dict()
TRIANGLE_GIVEN = {"B": [[0, 0], [0, 1], [1, 1], [0, 2], [1, 2]]}
ROWS = {"top": ["x.", "xx"], "front": ["xx", "x."], "side": ["x.", "xx"]}
# Each POST route and a request it would take: the fuzz breaks it one field at a time.
POSTS: dict[str, dict[str, Any]] = {
    "/api/bel/solve": {"n": 3, "engine": "auto", "time_limit": 60},
    "/api/bel/open": {"text": "N=1\n1 1 1\n"},
    "/api/iq/board": {"cells": [[0, 0], [1, 0], [0, 1]]},
    "/api/iq/check": {"board": "triangle", "given": TRIANGLE_GIVEN,
                      "draft": {"letter": "A", "cells": [[0, 3], [1, 3]], "pin": False}},
    "/api/iq/solve": {"board": "triangle", "given": TRIANGLE_GIVEN, "solver": "dlx",
                      "time_limit": 10},
    "/api/iq/count": {"board": "triangle", "given": TRIANGLE_GIVEN, "time_limit": 10},
    "/api/sudoku-cube/check": {"faces": FACES},
    "/api/sudoku-cube/parse": {"text": "\n".join(f"{face}: {' '.join(tokens)}"
                                                 for face, tokens in FACES.items())},
    "/api/sudoku-cube/example": {"seed": 4, "scramble": 6},
    "/api/sudoku-cube/solve": {"faces": FACES, "solver": "highs", "parity": "model",
                               "symmetric": "8", "time_limit": 10},
    "/api/sudoku-cube/steps": {"faces": FACES, "moves": "R U2 F'", "target": FACES},
    "/api/views/check": {"n": 2, **ROWS},
    "/api/views/battery": {"number": 157},
    "/api/views/solve": {"n": 2, **ROWS, "solver": "highs", "time_limit": 10},
    "/api/runs/run1/stop": {},
}
GETS = ["/", "/iq", "/sudoku-cube", "/views", "/bel", "/favicon.ico", "/static/common.js",
        "/api/bel/options", "/api/iq/setup", "/api/views/options", "/api/sudoku-cube/layout",
        "/api/runs/run1", "/api/runs/run1/events", "/api/iq/listing/run1"]

HOSTILE_STRINGS = ["²", "①", "٣", "１２", "--5", "-", "5" * 5000, "1e400", "-1e400", "NaN",
                   "inf", "Infinity", "0x10", "1_000", " 7 ", "", " ", "\x00", "\u202e",
                   "9" * 19, "-9223372036854775809", "2147483648", "1e3", "1.5", "true",
                   "x" * 200_000, "../../etc/passwd", "/tmp/x", "A", "a", "AB", "R U", "5^"]
URL_STRINGS = [s for s in HOSTILE_STRINGS if len(s) <= 5000]  # a URL holds no 200 kB
HOSTILE_TOKENS = [Raw("1e400"), Raw("-1e400"), Raw("1e999999"), Raw("NaN"), Raw("Infinity"),
                  Raw("-Infinity"), Raw("1" * 5000), Raw("-" + "9" * 40), Raw('"\\ud800"'),
                  Raw('"a\\udfffb"'), Raw('{"\\udc80": 1}'), Raw('["\\ud83d"]'),
                  Raw("[" * 100_000 + "]" * 100_000), Raw('{"a":' * 5000 + "1" + "}" * 5000),
                  Raw("1.0e-400"), Raw("-0")]
HOSTILE_VALUES = [None, True, False, 0, -1, 1, 10**18, -10**18, 2**31, 1.5, 1e300, -0.0,
                  [], {}, [[]], [[0, 0]], [[-1, 99]], [[0, 0, 0]], {"a": 1}, {"B": 1},
                  {"B": [1, 2]}, {"B": [[0, 0]], "b": [[0, 0]]}, ["x"] * 50, [1] * 10_000,
                  {"cells": 1}, {"letter": [], "cells": {}}, {"U": ["5^"] * 9}]
hostile = st.one_of(st.sampled_from(HOSTILE_STRINGS), st.sampled_from(HOSTILE_TOKENS),
                    st.sampled_from(HOSTILE_VALUES), st.text(max_size=12),
                    st.integers(min_value=-(10**30), max_value=10**30),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.recursive(st.none() | st.booleans() | st.integers(-5, 20)
                                 | st.text(max_size=3),
                                 lambda inner: st.lists(inner, max_size=4)
                                 | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                                 max_leaves=12))
HOSTILE_BODIES = [b"", b" ", b"null", b"[]", b"7", b'"text"', b"[" * 100_000, b"{" * 100,
                  b'{"a": NaN}', b'{"n": 1e400}', b'{"text": "\\ud800"}', b"\xff\xfe\x00",
                  b'{"n": 3', b'{"n": 3}}', "{\"n\": \"²\"}".encode(), b"\x00" * 100,
                  b'{"n": ' + b"9" * 5000 + b"}", b"1" * 1_100_000]


def paths(value: Any, here: tuple = ()) -> list[tuple]:
    """Every place in a request a field could be broken: each key and index, at every depth
    (a face's nine stickers only by the face and its first sticker)."""
    found = [here] if here else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:2]):
            found += paths(item, (*here, index))
    return found


def broken(body: Any, path: tuple, bad: Any) -> Any:
    """`body` with the field at `path` replaced by `bad` (a copy)."""
    copy = json.loads(json.dumps(body))
    if not path:
        return bad
    where = copy
    for step in path[:-1]:
        where = where[step]
    where[path[-1]] = bad
    return copy


def assert_one_line_answer(response, where: str) -> None:
    assert response.status_code < 500, (where, response.status_code, response.text[:300])
    if response.status_code >= 400:
        message = response.json()["error"]
        assert isinstance(message, str) and message, where
        assert "\n" not in message and "\r" not in message, (where, message)
        assert len(message) <= MAX_ERROR_CHARS and "Traceback" not in message, where


@pytest.fixture(scope="module")
def fuzz_client():
    from starlette.testclient import TestClient

    from ilp_pyramid.ui.app import create_app

    runs = StandInRuns()
    with TestClient(create_app("127.0.0.1", 8765, runs=runs),
                    base_url="http://127.0.0.1:8765") as client:
        assert client.get("/").status_code == 200
        client.runs = runs
        yield client


@pytest.fixture(autouse=True)
def _no_logged_errors(caplog):
    """Whatever the fuzz sends, the server logs nothing: no internal error, no traceback."""
    with caplog.at_level(logging.INFO):
        yield
    logged = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert logged == [], [r.getMessage() for r in logged][:3]


def _post(client, path: str, body: bytes):
    return client.post(path, content=body, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("route", list(POSTS))
def test_no_bad_field_of_a_post_route_is_a_500(fuzz_client, route):
    body = POSTS[route]
    places = paths(body) + [("unknown",)]
    mutation = st.tuples(st.sampled_from(places), hostile)

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(mutation, min_size=1, max_size=2))
    def check(mutations):
        request = body
        for path, bad in mutations:
            try:
                request = broken(request, path, bad)
            except (KeyError, IndexError, TypeError):
                continue  # an earlier mutation took this place away
        response = _post(fuzz_client, route, encode(request))
        assert_one_line_answer(response, f"{route} {mutations!r:.300}")

    check()


@pytest.mark.parametrize("route", list(POSTS))
def test_no_bad_body_of_a_post_route_is_a_500(fuzz_client, route):
    for body in HOSTILE_BODIES:
        assert_one_line_answer(_post(fuzz_client, route, body), f"{route} {body[:40]!r}")


@settings(max_examples=EXAMPLES * 2, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.sampled_from(GETS), st.dictionaries(st.sampled_from(["page", "size", "x"]),
                                              st.one_of(st.sampled_from(URL_STRINGS),
                                                        st.text(max_size=8)),
                                              max_size=2))
def test_no_bad_query_of_a_get_route_is_a_500(fuzz_client, route, query):
    assert_one_line_answer(fuzz_client.get(route, params=query), f"{route} {query!r:.200}")


@settings(max_examples=EXAMPLES * 2, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["/api/runs/{}", "/api/runs/{}/events", "/api/iq/listing/{}",
                        "/api/runs/{}/stop"]),
       st.one_of(st.sampled_from(URL_STRINGS), st.text(min_size=1, max_size=30)))
def test_no_bad_run_id_is_a_500(fuzz_client, route, run_id):
    path = route.format(quote(run_id, safe=""))
    answer = (fuzz_client.post(path, json={}) if path.endswith("/stop")
              else fuzz_client.get(path))
    assert_one_line_answer(answer, f"{route} {run_id!r:.100}")


# --- the inputs the issue reported, each once -------------------------------------------

REPORTED = [
    ("/api/bel/solve", '{"n": "²"}', "n must be a whole number from 1 to 12"),
    ("/api/bel/solve", '{"n": "①"}', "n must be a whole number from 1 to 12"),
    ("/api/bel/solve", '{"n": "--5"}', "n must be a whole number from 1 to 12"),
    ("/api/bel/solve", '{"n": "%s"}' % ("5" * 5000), "n must be a whole number from 1 to 12"),
    ("/api/bel/solve", '{"n": 3, "time_limit": 1e400}', "the number '1e400' is out of range"),
    ("/api/bel/solve", '{"n": 3, "time_limit": "1e400"}', "time_limit must be a number"),
    ("/api/bel/solve", "[" * 100_000, "malformed JSON: nested deeper than 32 levels"),
    ("/api/views/check", "[" * 100_000, "malformed JSON: nested deeper than 32 levels"),
    ("/api/bel/open", '{"text": "\\ud800"}', "the request is not Unicode text"),
    ("/api/iq/check", '{"board": "triangle", "given": {"a": 1}, '
                      '"draft": {"letter": "B", "cells": [[0, 0]]}}',
     "piece a: cells must be a list of [x, y] integer lists"),
    ("/api/iq/check", '{"board": "triangle", "given": {"a": 1}}',
     "piece a: cells must be a list of [x, y] integer lists"),
    ("/api/views/check", '{"n": "²", "top": [], "front": [], "side": []}',
     "n must be a whole number from 1 to 8"),
    ("/api/sudoku-cube/example", '{"seed": "①"}', "seed must be a whole number"),
    ("/api/sudoku-cube/example", '{"scramble": "%s"}' % ("9" * 5000),
     "scramble must be a whole number"),
]


@pytest.mark.parametrize(("route", "body", "message"), REPORTED)
def test_each_reported_bad_field_is_a_400_with_one_line(fuzz_client, route, body, message):
    answer = _post(fuzz_client, route, body.encode("utf-8", "surrogatepass"))
    assert answer.status_code == 400, answer.text[:300]
    assert answer.json()["error"].startswith(message), answer.json()
    assert "\n" not in answer.json()["error"]


@pytest.mark.parametrize("page", ["²", "①", "--5", "9" * 5000, "1e400"])
def test_a_bad_listing_page_is_a_400(fuzz_client, page):
    # A run of its own: with the tests spread over workers, no other test's run is there.
    count = _post(fuzz_client, "/api/iq/count", json.dumps(POSTS["/api/iq/count"]).encode())
    assert count.status_code == 200, count.text[:300]
    answer = fuzz_client.get(f"/api/iq/listing/{count.json()['run']}", params={"page": page})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("page must be a whole number")


def test_an_unexpected_exception_is_a_one_line_500_and_one_logged_line(
        fuzz_client, monkeypatch, caplog):
    """A bug in a route: the page gets one line, the log one line and no traceback."""
    from ilp_pyramid.ui.pages import views

    def broken_check(_views):
        raise ZeroDivisionError("a bug\nover two lines")

    monkeypatch.setattr(views, "describe_views", broken_check)
    with caplog.at_level(logging.INFO, logger="ilp_pyramid.ui"):
        answer = fuzz_client.post("/api/views/check", json={"n": 2, **ROWS})
    assert answer.status_code == 500
    assert answer.json() == {"error": "internal error (logged on the server)"}
    records = [r for r in caplog.records if r.name == "ilp_pyramid.ui"]
    assert len(records) == 1 and records[0].exc_info is None
    line = records[0].getMessage()
    assert "\n" not in line and "ZeroDivisionError: a bug over two lines" in line
    caplog.clear()  # the autouse check is for the fuzz: this one was asked for
