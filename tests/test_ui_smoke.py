"""The workbench's frame: pages served, guard, runs started, followed and stopped."""

from __future__ import annotations

import json
import time

import pytest

from tests.proctools import gone


def test_index_lists_every_page(ui_client):
    text = ui_client.get("/").text
    for slug in ("iq", "sudoku-cube", "views", "bel"):
        assert f'href="/{slug}"' in text
        assert ui_client.get(f"/{slug}").status_code == 200


def test_foreign_host_and_origin_are_refused(ui_client):
    assert ui_client.get("/", headers={"Host": "evil.example:8765"}).status_code == 403
    assert ui_client.get("/", headers={"Host": "127.0.0.1:9999"}).status_code == 403
    assert ui_client.post("/api/runs/x/stop", json={},
                          headers={"Origin": "http://evil.example"}).status_code == 403
    assert ui_client.get("/", headers={"Host": "localhost:8765"}).status_code == 200


def test_a_run_streams_progress_and_stops(ui_client):
    app = ui_client.app
    runs = app.state.runs
    session = ui_client.cookies.get("ilp_pyramid_session")
    # N=6 is open: the search is still going when Stop comes, however fast the machine.
    run = ui_client.portal.call(runs.start, session, ["solve", "6", "--json", "--jobs", "1"])
    # Watched through its state: Starlette's test client at the lower bound (0.41) hands a
    # streamed answer over only once it is complete (the real server streams:
    # tests/test_ui_server.py).
    deadline = time.monotonic() + 120
    while sum(e["type"] == "progress" for e in run.events) < 2:
        assert time.monotonic() < deadline and not run.done, run.events
        state = ui_client.get(f"/api/runs/{run.id}").json()
        time.sleep(0.1)
    assert state["run"] == run.id and not state["done"]
    assert ui_client.post(f"/api/runs/{run.id}/stop", json={}).status_code == 200
    with ui_client.stream("GET", f"/api/runs/{run.id}/events") as events:
        sent = [json.loads(line[6:]) for line in events.iter_lines() if line.startswith("data: ")]
    kinds = [event["type"] for event in sent]
    assert kinds.count("progress") >= 2 and kinds[-1] == "done" and kinds.count("done") == 1
    assert sent[-1]["exit"] == 130 and sent[-1]["stopped"]
    # The run's own session (not this process's children: a whole test run keeps others,
    # a multiprocessing fork server among them).
    assert gone({run.child.pid}) == set()


@pytest.mark.browser
def test_the_index_opens_in_chromium(ui_server, browser_page):
    browser_page.goto(ui_server.url + "/")
    assert browser_page.locator("ul.pages li").count() == 4


def test_no_icon_is_no_error(ui_client):
    assert ui_client.get("/favicon.ico").status_code == 204
