"""The HTTP protocol ``cavallo serve`` gives uvicorn (TCP_NODELAY, the headers' deadline, a cap on
connections), the open files limit it is sized by, and overload logged once a minute."""

from __future__ import annotations

import json
import logging
import os
import socket
import time

try:  # the faster parser, when installed
    import httptools  # noqa: F401
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _BaseHTTP
except ImportError:
    from uvicorn.protocols.http.h11_impl import H11Protocol as _BaseHTTP

from .settings import ENV_READ_TIMEOUT, READ_TIMEOUT


class NoDelayHTTPProtocol(_BaseHTTP):
    """uvicorn's HTTP protocol (httptools when installed, else h11) with TCP_NODELAY on every connection,
    a deadline for each request's headers, and a quiet accept loop.

    With ``--workers > 1`` uvicorn binds the listening socket itself with
    protocol number 0, and asyncio then skips TCP_NODELAY on the connections it
    accepts: a response written in two parts (head, body) then waits ~40 ms for
    the client's delayed ACK.  ``cavallo serve`` uses this class for ``http``.

    A connection must deliver a request's complete headers within
    ``read_timeout`` seconds of opening, or of the first byte of a later
    request on it; else it gets 408 and is closed (uvicorn alone waits
    forever for a connection that sends nothing or half a request line, and
    its keep-alive timer is reset by every byte).  The body's own deadline is
    ``RequestGuard``'s.  The timeout is the uvicorn config's ``read_timeout``
    attribute when set (``cavallo serve`` sets it), else ``$CAVALLO_SERVE_READ_TIMEOUT``
    (its workers), else ``READ_TIMEOUT``.

    A process out of file descriptors cannot accept, and asyncio (3.11) then
    logs and reschedules its accept loop up to ``backlog`` times per attempt:
    megabytes of log a second and a busy loop.  So a connection past
    ``connection_cap()`` (the open files limit less a reserve) is answered 503
    and closed at once, and the accept errors that still come are logged once
    a minute with a count (``_quiet_accept_errors``).  ``cavallo serve`` sizes
    the backlog to the limit (``listen_backlog``): asyncio accepts up to a
    backlog of connections in one go, before any of them is counted here.
    """

    def connection_made(self, transport):
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # not TCP (a Unix socket)
                pass
        _quiet_accept_errors(self.loop)
        super().connection_made(transport)
        self._header_timer = None
        self._awaiting = False
        if len(self.connections) > connection_cap(self.config.backlog):
            _throttled("connections", logging.WARNING,
                       "refusing connections: %d open, the most this process's open files limit leaves room for "
                       "(ulimit -n; a reverse proxy's limit_conn keeps clients from holding them)",
                       len(self.connections))
            self._refuse_now(503, "the server has too many open connections: try again in a moment")
            return
        self._awaiting_headers(True)  # a connection that sends nothing is closed too

    def _refuse_now(self, status: int, detail: str) -> None:
        """Answer ``status`` outside any request (the client's bytes are not read) and close."""
        body = json.dumps({"detail": detail}).encode()
        reason = {408: b"Request Timeout", 503: b"Service Unavailable"}[status]
        self.transport.write(b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
                             b"connection: close\r\n\r\n%s" % (status, reason, len(body), body))
        self.transport.close()

    def _read_timeout(self) -> float:
        timeout = getattr(self.config, "read_timeout", None)
        if timeout is None:
            timeout = float(os.environ.get(ENV_READ_TIMEOUT) or READ_TIMEOUT)
        return timeout

    def _awaiting_headers(self, awaiting: bool) -> None:
        """Start the headers' deadline (if not running) when a request's headers are awaited, else stop it."""
        self._awaiting = awaiting
        if awaiting and self._header_timer is None:
            self._header_timer = self.loop.call_later(self._read_timeout(), self._header_deadline)
        elif not awaiting and self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    # httptools: its parser says when a request begins and when its headers are complete
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._awaiting_headers(True)

    def on_headers_complete(self) -> None:
        self._awaiting_headers(False)
        super().on_headers_complete()

    # h11: after its events are handled, the connection awaits headers when it is idle with bytes buffered
    def _h11_state(self) -> None:
        import h11  # lazy: only the h11 parser (no httptools) runs this

        self._awaiting_headers(self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0]))

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not hasattr(self, "parser") and not self.transport.is_closing():
            self._h11_state()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not hasattr(self, "parser") and not self.transport.is_closing():
            self._h11_state()  # a pipelined request's first bytes may wait in the buffer

    def connection_lost(self, exc):
        self._awaiting_headers(False)
        super().connection_lost(exc)

    def _header_deadline(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not self._awaiting:
            return
        self._refuse_now(408, f"the request's headers did not arrive within {self._read_timeout():g} s")


def _open_files_limit() -> int:
    import resource  # lazy: a Unix-only module

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


def listen_backlog() -> int:
    """The listening socket's backlog: 4096, or a sixteenth of the open files limit when that is smaller
    (asyncio accepts up to a backlog of connections at once, before the cap can close any)."""
    return min(4096, max(16, _open_files_limit() // 16))


def connection_cap(backlog: int) -> int:
    """The most connections one process keeps open: its open files limit less room for the connections
    accepted in a few turns of the accept loop (``4 * backlog``) and 64 descriptors for everything else."""
    return max(16, _open_files_limit() - 4 * backlog - 64)


def raise_open_files_limit(most: int = 65536) -> None:
    """Raise this process's soft open files limit to its hard limit (at most ``most``), as a server should."""
    import resource  # lazy: a Unix-only module

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = most if hard == resource.RLIM_INFINITY else min(hard, most)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            pass


#: seconds between two log lines about one kind of overload (the rest are counted)
LOG_EVERY = 60.0
_LOGGED: dict = {}


def _throttled(kind: str, level: int, message: str, *args) -> None:
    """Log ``message`` about ``kind`` at most once every ``LOG_EVERY`` seconds, with how many times it happened."""
    now = time.monotonic()
    last, count = _LOGGED.get(kind, (None, 0))
    count += 1
    if last is None or now - last >= LOG_EVERY:
        logging.getLogger("uvicorn.error").log(level, message + " (%d time(s) since the last report)", *args, count)
        last, count = now, 0
    _LOGGED[kind] = (last, count)


def _quiet_accept_errors(loop) -> None:
    """Log asyncio's "socket.accept() out of system resource" (too many open files) once a minute, with a
    count, instead of at every turn of the accept loop; other errors go to the loop's handler as before."""
    previous = loop.get_exception_handler()
    if getattr(previous, "quiet_accept", False):
        return

    def handler(loop, context):
        if context.get("message") != "socket.accept() out of system resource":
            return previous(loop, context) if previous else loop.default_exception_handler(context)
        _throttled("accept", logging.ERROR, "cannot accept connections: %s (raise the open files limit, ulimit -n, "
                   "or put a reverse proxy that limits connections in front)", context.get("exception"))

    handler.quiet_accept = True
    loop.set_exception_handler(handler)
