"""Only the served address may talk to the server: a foreign Host header (DNS rebinding) or
a foreign Origin (another site's page posting to this one) gets 403 before any route runs;
and every answer tells the browser what the workbench's pages may do (`SecurityHeaders`)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

# The pages are the package's own files and talk to their own server only: no inline script
# or style (a script injected into a page could not run), no other site's assets, and no
# page of another site may frame them (clickjacking the Stop or Solve buttons).
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                           "img-src 'self'; connect-src 'self'; object-src 'none'; "
                           "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_unspecified(host: str) -> bool:
    """0.0.0.0 or ::, every address of the machine."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values the server answers: host:port, and every loopback name for
    the port when it listens on loopback or on every address (a browser may call it by
    any of them)."""
    names = list(LOOPBACK_NAMES) if is_loopback(host) or is_unspecified(host) else []
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names.append(shown)
    return frozenset(f"{name}:{port}".lower() for name in names)


class HostOriginGuard:
    """ASGI middleware: 403 unless Host is one of `hosts` and Origin, when sent, is
    http://<one of hosts>; a browser's cross-site fetch (Sec-Fetch-Site) is refused too.

    `any_address_port`: the server listens on every address (`--host 0.0.0.0`), so it is
    called by whatever address the machine has on the way from the browser: any IP literal
    with this port is its address too. A DNS-rebinding page needs a name that resolves to
    the server, and a name is still refused; the Origin must then be the Host itself."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str],
                 any_address_port: int | None = None) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)
        self.any_address_port = any_address_port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            reason = self.refusal(dict(scope["headers"]))
            if reason is not None:
                await _forbid(scope, receive, send, reason)
                return
        await self.app(scope, receive, send)

    def refusal(self, headers: dict[bytes, bytes]) -> str | None:
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if host not in self.hosts and not self._an_address(host):
            return f"refused: Host {host!r} is not this server's address"
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1").lower() not in (
                self.origins | {f"http://{host}"}):
            return "refused: a request from another site"
        if headers.get(b"sec-fetch-site", b"same-origin") not in (
                b"same-origin", b"none"):
            return "refused: a request from another site"
        return None

    def _an_address(self, host: str) -> bool:
        if self.any_address_port is None:
            return False
        name, _, port = host.rpartition(":")
        return port == str(self.any_address_port) and is_ip_literal(name)


async def _forbid(scope: Scope, receive: Receive, send: Send, reason: str) -> None:
    from starlette.responses import PlainTextResponse

    await PlainTextResponse(reason + "\n", status_code=403)(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: SECURITY_HEADERS on every answer (pages, API, static files, errors,
    the guard's 403), unless the answer already set one of them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in SECURITY_HEADERS
                            if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)
