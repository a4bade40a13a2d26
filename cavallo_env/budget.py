"""Budgets for work done on a request: a deadline the searches check, and caches bounded in bytes.

A leaf module (it imports nothing of the package), so every game's engine,
bot and search can use it.

**Deadlines.**  ``with deadline(seconds):`` sets a deadline for the code run
on this thread inside the block; every search loop calls ``check()``, which
raises ``OverBudget`` once the deadline has passed, so a move that is late is
abandoned where it stands instead of running on after its caller has given
up.  Outside such a block ``check()`` does nothing (training, evaluation and
tests run as before, bit for bit).  The service wraps every bot move in one
(``serve.BotRunner``).  The searches are also bounded by construction (each
has a node or iteration cap that the worst legal position stays within), so
the deadline is the second line, not the only one.

**Caches.**  ``ByteCache`` is a dict bounded by an estimate of the bytes its
values hold, not by their count: a crafted request can make one entry
thousands of times larger than a typical one, so a count says nothing about
memory.  Oldest entries go first.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

__all__ = ["OverBudget", "deadline", "check", "remaining", "ByteCache"]


class OverBudget(Exception):
    """A bot's move passed its deadline: the work was abandoned."""


_local = threading.local()


@contextmanager
def deadline(seconds: float | None):
    """Run the block with a deadline ``seconds`` from now (``None``: no deadline).

    Nested deadlines keep the earlier one.  The deadline belongs to the
    calling thread only.
    """
    outer = getattr(_local, "at", None)
    at = None if seconds is None else time.monotonic() + seconds
    if outer is not None and (at is None or outer < at):
        at = outer
    _local.at = at
    try:
        yield
    finally:
        _local.at = outer


def check() -> None:
    """Raise ``OverBudget`` when this thread's deadline has passed (cheap: call it in loops)."""
    at = getattr(_local, "at", None)
    if at is not None and time.monotonic() > at:
        raise OverBudget("the move passed its time budget")


def remaining() -> float | None:
    """Seconds left before this thread's deadline (``None``: no deadline)."""
    at = getattr(_local, "at", None)
    return None if at is None else at - time.monotonic()


class ByteCache:
    """A dict bounded by the estimated bytes of its entries; the oldest entries are dropped first.

    ``put(key, value, nbytes)`` takes the caller's estimate of what the entry
    holds (keys and values included).  An entry larger than a quarter of the
    budget is not kept at all.  Safe to share between threads for the simple
    get/put use of a memo (a lost entry only costs a recomputation).
    """

    __slots__ = ("max_bytes", "nbytes", "_data", "_lock")

    def __init__(self, max_mb: float):
        if not max_mb > 0:
            raise ValueError(f"a cache needs a positive size in MB, got {max_mb!r}")
        self.max_bytes = int(max_mb * 1024 * 1024)
        self.nbytes = 0
        self._data: dict = {}
        self._lock = threading.Lock()

    def get(self, key, default=None):
        hit = self._data.get(key)
        return default if hit is None else hit[0]

    def put(self, key, value, nbytes: int) -> None:
        if nbytes > self.max_bytes // 4:
            return
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.nbytes -= old[1]
            data = self._data
            while data and self.nbytes + nbytes > self.max_bytes:
                oldest = next(iter(data))
                self.nbytes -= data.pop(oldest)[1]
            data[key] = (value, nbytes)
            self.nbytes += nbytes

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        return key in self._data
