"""Bots run off the event loop: each bot on its own worker thread, each move under a time limit."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

from .. import budget


class BotTimeout(Exception):
    """A bot took longer than the move time limit (or too many moves wait for it)."""


class BotRunner:
    """A bot whose moves are computed on its own worker thread, off the event loop, under a time limit.

    Bots keep state (random streams, caches), so each bot has one thread and
    computes one move at a time; a slow bot delays only its own moves.  A
    move not started before its deadline is skipped, one past ``timeout``
    seconds raises ``BotTimeout`` (its answer, when it comes, is dropped), and
    more than ``max_waiting`` moves waiting raise ``BotTimeout`` at once.
    """

    def __init__(self, bot, timeout: float, name: str = "bot", max_waiting: int = 256):
        self.bot = bot
        self.timeout = timeout
        self.max_waiting = max_waiting
        self.waiting = 0
        self.executor = ThreadPoolExecutor(1, thread_name_prefix=f"cavallo-{name}")

    def _choose(self, view: dict, deadline: float) -> dict:
        left = deadline - time.monotonic()
        if left <= 0:  # its caller has given up: skip the work
            raise BotTimeout()
        try:  # the searches check the deadline: a late move is abandoned, not left running
            with budget.deadline(left):
                return self.bot.choose(view)
        except budget.OverBudget:
            raise BotTimeout() from None

    async def choose(self, view: dict) -> dict:
        if self.waiting >= self.max_waiting:
            raise BotTimeout()
        loop = asyncio.get_running_loop()
        self.waiting += 1
        try:
            job = loop.run_in_executor(self.executor, self._choose, view, time.monotonic() + self.timeout)
            return await asyncio.wait_for(job, self.timeout)
        except asyncio.TimeoutError:
            raise BotTimeout() from None
        finally:
            self.waiting -= 1
