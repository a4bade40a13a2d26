"""Who a request comes from (``Clients``), and what every request must pass before the app sees it
(``RequestGuard``: another site's Origin, the Content-Type, the body's size and deadline)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from urllib.parse import urlsplit

from ..tables import shown
from .settings import API_VERSION


class Clients:
    """Who a request comes from: the key of the per-client table quota, and the scheme the client used.

    The key is the client's address (an IPv6 address by its /64, which one
    subscriber usually holds whole).  ``trusted`` names the reverse proxies
    (addresses or networks, or ``"*"`` for any peer) whose ``X-Forwarded-For``
    and ``X-Forwarded-Proto`` are believed: from them the client is the
    rightmost address of ``X-Forwarded-For`` that is not itself a trusted
    proxy (the one the proxy appended; what the client wrote to its left is not
    believed).  From any other peer those headers are ignored, so a client
    cannot choose its own key.  The key is an opaque string: a table token can
    take the address's place here without a change to ``TableStore``.
    """

    def __init__(self, trusted=()):
        if isinstance(trusted, str):
            trusted = [t for t in trusted.split(",") if t.strip()]
        self.any = False
        self.networks = []
        for item in trusted or ():
            item = str(item).strip()
            if item == "*":
                self.any = True
                continue
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"trust_proxy: {item!r} is not an IP address or network (or '*')") from None
        self.warned = False

    @property
    def trusting(self) -> bool:
        return self.any or bool(self.networks)

    def _trusted(self, host) -> bool:
        if self.any:
            return True
        address = _ip(host)
        return address is not None and any(address in n for n in self.networks)

    @staticmethod
    def _header(scope, name: bytes) -> str | None:
        values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]
        return ",".join(values) if values else None

    def _from_proxy(self, scope) -> bool:
        peer = (scope.get("client") or (None,))[0]
        return self.trusting and peer is not None and self._trusted(peer)

    def address(self, scope) -> str:
        """The client's address (``"-"`` when the connection has none, e.g. a Unix socket)."""
        peer = (scope.get("client") or (None,))[0]
        if self._from_proxy(scope):
            forwarded = self._header(scope, b"x-forwarded-for")
            if forwarded:
                for entry in reversed([e.strip() for e in forwarded.split(",")]):
                    if entry and not self._trusted(entry):
                        return entry
        elif not self.warned and self._header(scope, b"x-forwarded-for") is not None:
            self.warned = True
            logging.getLogger("uvicorn.error").warning(
                "a request came with X-Forwarded-For from %s, which is not a trusted proxy: the header is ignored "
                "and the client is that address (behind your own reverse proxy, start cavallo serve with "
                "--trust-proxy <its address>, else every visitor counts as one client)", shown(str(peer), 64))
        return "-" if peer is None else str(peer)

    def key(self, scope) -> str:
        """The client's key for the table quota: its address, an IPv6 one by its /64 network."""
        address = self.address(scope)
        ip = _ip(address)
        if ip is None:
            return shown(address, 64)
        if ip.version == 6:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip)

    def scheme(self, scope) -> str:
        """``http`` or ``https`` as the client used it (a trusted proxy's ``X-Forwarded-Proto``)."""
        if self._from_proxy(scope):
            proto = (self._header(scope, b"x-forwarded-proto") or "").split(",")[0].strip().lower()
            if proto in ("http", "https"):
                return proto
        return scope.get("scheme", "http")


def _ip(text):
    """``text`` as an IP address (an IPv4-mapped IPv6 one as IPv4; ``[v6]`` and a port allowed), else None."""
    text = str(text).strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _host_port(netloc: str, scheme: str):
    """``(host, port)`` of ``netloc`` (``host[:port]``), the scheme's port when none; None if malformed."""
    try:
        parts = urlsplit("//" + netloc)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower(), port or {"http": 80, "https": 443}.get(scheme)


def _json_media_type(value: bytes) -> bool:
    """Whether a Content-Type header says JSON: ``application/json``, with parameters or not."""
    return value.split(b";", 1)[0].strip().lower() == b"application/json"


class RequestGuard:
    """ASGI middleware: what every request must pass before the app sees it, cheapest first.

    1. A state-changing table request (``/v1/tables...`` by any method but
       GET and HEAD) that carries an ``Origin`` other than the page's own (the
       scheme, host and port the request came to, by its ``Host`` header) gets
       403: another site's page cannot play, open or close tables from a
       visitor's browser.
    2. A POST whose Content-Type is not ``application/json`` (parameters such
       as ``; charset=utf-8`` allowed) gets 415; so does one with a body and no
       Content-Type.  A browser sends such "simple" requests to any site without
       asking it first; a JSON one it must ask about, and this server says no.
    3. The body is read whole (and handed to the app in one piece) within
       ``read_timeout`` seconds, else 408; past ``limit`` bytes it gets 413,
       having read at most ``limit`` bytes of it.

    Every refusal is JSON ``{"detail": ...}`` and closes the connection.
    """

    def __init__(self, app, limit: int, read_timeout: float = 10.0, clients: Clients | None = None):
        self.app = app
        self.limit = limit
        self.read_timeout = read_timeout
        self.clients = clients or Clients()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method = scope.get("method", "GET")
        headers = scope.get("headers", ())
        ctype = None
        for name, value in headers:
            if name == b"content-length":
                try:
                    if int(value) > self.limit:
                        return await _refuse(send, 413, f"the request body is over the limit of {self.limit} bytes")
                except ValueError:
                    pass
            elif name == b"content-type":
                ctype = value
            elif name == b"origin" and method not in ("GET", "HEAD") and \
                    scope.get("path", "").startswith(f"/{API_VERSION}/tables"):
                why = self._foreign(scope, value.decode("latin-1"))
                if why:
                    return await _refuse(send, 403, why)
        if method == "POST" and ctype is not None and not _json_media_type(ctype):
            return await _refuse(send, 415, f"the body must be JSON sent as Content-Type: application/json, "
                                            f"got Content-Type {shown(ctype.decode('latin-1'))!r}")
        try:
            body = await asyncio.wait_for(self._read(receive), self.read_timeout)
        except asyncio.TimeoutError:
            return await _refuse(send, 408, f"the request body did not arrive within {self.read_timeout:g} s")
        if body is None:  # the client left
            return
        if body is _TOO_BIG:
            return await _refuse(send, 413, f"the request body is over the limit of {self.limit} bytes")
        if method == "POST" and ctype is None and body.strip():
            return await _refuse(send, 415, "the body must be JSON sent as Content-Type: application/json, "
                                            "and the request has no Content-Type")
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive):
        """The whole body, ``_TOO_BIG`` past ``limit`` bytes, None if the client left."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return _TOO_BIG
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _foreign(self, scope, origin: str) -> str | None:
        """Why a request with this ``Origin`` is refused (it is not the page's own), or None."""
        scheme = self.clients.scheme(scope)
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), None)
        if host is None and scope.get("server"):
            host = "%s:%s" % tuple(scope["server"])
        own = _host_port(host, scheme) if host else None
        try:
            parts = urlsplit(origin.strip())
        except ValueError:  # e.g. "http://[": not an origin at all, so not this site's
            parts = None
        if parts is not None and own is not None and parts.scheme.lower() == scheme:
            if _host_port(parts.netloc, scheme) == own:
                return None
        return (f"a table request from another site's page is refused: its Origin {shown(origin, 80)!r} is not "
                f"this site's {scheme}://{shown(host or '?', 80)}")


_TOO_BIG = object()


async def _refuse(send, status: int, detail: str) -> None:
    """A JSON error answered by the middleware, closing the connection (the body may be unread)."""
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
