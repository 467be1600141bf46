"""Shared by the workbench's tests: a real `ilp-pyramid ui` process, a Starlette test client
on the app, and a headless Chromium page (Debian's /usr/bin/chromium driven by Playwright;
no browser is ever downloaded).

tests/conftest.py makes the fixtures `ui_server`, `ui_client` and `browser_page` available
to every test module; `phone()` is the same Chromium as a 390 px wide phone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

CHROMIUM = os.environ.get("ILP_PYRAMID_CHROMIUM", "/usr/bin/chromium")
# As root in a container, Chromium needs --no-sandbox; the rest keep it from reaching out
# to the network this machine does not have (each attempt is refused and logged).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]


@dataclass
class Served:
    url: str  # http://127.0.0.1:PORT (no trailing slash)
    process: subprocess.Popen

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


def start_ui(*args: str, timeout: float = 30.0, prefix: tuple[str, ...] = ()) -> Served:
    """`ilp-pyramid ui --no-browser --port 0 ARGS`, in its own group, once it serves;
    `prefix` goes before the command (e.g. `prlimit --nofile=...`)."""
    process = subprocess.Popen(
        [*prefix, sys.executable, "-m", "ilp_pyramid", "ui", "--no-browser", "--port", "0",
         *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        start_new_session=True, text=True)
    deadline = time.monotonic() + timeout
    line = ""
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        found = re.search(r"serving (http://\S+?)/? ", line)
        if found:
            return Served(found.group(1), process)
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"ilp-pyramid ui did not start: {line!r}")


def stop_ui(served: Served) -> int:
    if served.process.poll() is None:
        served.process.send_signal(signal.SIGINT)
        try:
            served.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(served.process.pid, signal.SIGKILL)
            served.process.wait()
    return served.process.returncode


def session_client(served: Served):
    """An httpx2 client of the real server with a session (the cookie the index page sets);
    close it after use."""
    import httpx2

    client = httpx2.Client(base_url=served.url, timeout=30.0)
    assert client.get("/").status_code == 200
    return client


def run_events(client, run_id: str) -> Iterator[dict]:
    """The run's server-sent events as they come (progress ..., then done)."""
    import json

    with client.stream("GET", f"/api/runs/{run_id}/events", timeout=60.0) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                yield json.loads(line[6:])


def done_event(client, run_id: str) -> dict:
    """The run's `done` event (its events read to the end)."""
    for event in run_events(client, run_id):
        if event["type"] == "done":
            return event
    raise AssertionError("the run's events ended without a done event")


@pytest.fixture
def ui_server() -> Iterator[Served]:
    served = start_ui()
    try:
        yield served
    finally:
        stop_ui(served)


@pytest.fixture
def ui_client():
    """The app in-process (Starlette's TestClient), as http://127.0.0.1:8765, with a session
    cookie from the index page."""
    from starlette.testclient import TestClient

    from ilp_pyramid.ui.app import create_app

    with TestClient(create_app("127.0.0.1", 8765), base_url="http://127.0.0.1:8765") as client:
        assert client.get("/").status_code == 200
        yield client


# What a run's child, `python -m ilp_pyramid ...`, is replaced with where a test checks what the
# server does around runs (its core budget, its watch), not a run: an interpreter that loads
# nothing, waits, and ends as the CLI does on SIGINT or SIGTERM. Real runs of every page's
# engines, and their stops, are the other tests'.
STUB_CHILD = """import signal, sys, time
def stop(signum, frame):
    print("error: interrupted", file=sys.stderr)
    sys.exit(130 if signum == signal.SIGINT else 143)
signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
time.sleep(600)
"""


@pytest.fixture
def stub_children(monkeypatch) -> list:
    """Runs the server starts get STUB_CHILD for a child; the list gets each run's arguments."""
    import asyncio

    real = asyncio.create_subprocess_exec
    started: list = []

    async def stand_in(program, *args, **options):
        if args[:2] == ("-m", "ilp_pyramid"):
            started.append(list(args[2:]))
            args = ("-S", "-c", STUB_CHILD)
        return await real(program, *args, **options)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", stand_in)
    return started


@contextlib.contextmanager
def chromium_page(**options) -> Iterator:
    """A fresh page in headless Chromium with Playwright's context `options` (skipped
    nowhere: a missing browser is a failure, the `browser` marker keeps these tests out of
    the default run)."""
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        raise AssertionError(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, **options)
        try:
            yield context.new_page()
        finally:
            context.close()


@pytest.fixture
def browser_page():
    """A fresh page in headless Chromium, 1280 x 900."""
    with chromium_page(viewport={"width": 1280, "height": 900}) as page:
        yield page


# A phone: 390 x 844 CSS pixels at 3 device pixels each, touch, and a mobile browser's
# viewport rules (without a viewport tag, a page is laid out 980 px wide and shrunk).
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3,
         "is_mobile": True, "has_touch": True}
# Runs before every page's own scripts (Playwright's init script is not the page's, so the
# page's Content-Security-Policy does not apply to it): every violation the page causes.
WATCH_CSP = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.cspViolations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI || "inline"} ` +
    `(${e.sourceFile}:${e.lineNumber})`));
"""


@dataclass
class Phone:
    page: Any
    console: list[str]  # the console's errors and warnings

    def csp_violations(self) -> list[str]:
        """The page's Content-Security-Policy violations: its events and the console's lines."""
        seen = self.page.evaluate("() => window.cspViolations || []")
        return seen + [line for line in self.console if "Content Security Policy" in line]


@contextlib.contextmanager
def phone() -> Iterator[Phone]:
    """A fresh page in headless Chromium as a 390 px wide phone, watching for CSP
    violations."""
    with chromium_page(**PHONE) as page:
        console: list[str] = []
        page.on("console", lambda message: console.append(message.text)
                if message.type in ("error", "warning") else None)
        page.add_init_script(WATCH_CSP)
        yield Phone(page, console)


SCREENSHOTS_VARIABLE = "ILP_PYRAMID_SCREENSHOTS"
# The phone's pictures (tests/test_ui_phone.py) go to a folder of their own: the README's
# renewal (ILP_PYRAMID_SCREENSHOTS=docs) takes the desktop ones only.
PHONE_SCREENSHOTS_VARIABLE = "ILP_PYRAMID_PHONE_SCREENSHOTS"


def drag_turns_the_scene(page, start: tuple[int, int], to: tuple[int, int]) -> bool:
    """Drag on the 3-D view from `start` to `to` (pixels inside the canvas): did the picture
    change?"""
    picture = "document.getElementById('scene').toDataURL()"
    before = page.evaluate(picture)
    box = page.locator("#scene").bounding_box()
    page.mouse.move(box["x"] + start[0], box["y"] + start[1])
    page.mouse.down()
    page.mouse.move(box["x"] + to[0], box["y"] + to[1], steps=5)
    page.mouse.up()
    return page.evaluate(picture) != before


def screenshot(page, name: str, variable: str = SCREENSHOTS_VARIABLE) -> None:
    """Save the page as `name` in the folder ILP_PYRAMID_SCREENSHOTS (or `variable`) names
    (docs/ when the README's pictures are renewed: `ILP_PYRAMID_SCREENSHOTS=docs pytest -m
    browser`); a test run without it writes nothing."""
    folder = os.environ.get(variable)
    if folder:
        page.screenshot(path=os.path.join(folder, name), full_page=True)
