"""Bots: anything with ``choose(view) -> move dict`` (docs/contract.md).

``make(spec, seed=None)`` builds one from a string:
``random``, ``greedy``, ``heuristic``, ``ismcts:<iterations>``, ``policy:<path>``
(``policy:default`` is the shipped model).  Bots keep no state between calls
beyond their seeded random generator, so a server can call one for any seat at
any time.
"""

from __future__ import annotations

from .base import Bot, BotSpecError, make, register, registered, split_specs

__all__ = ["Bot", "BotSpecError", "make", "register", "registered", "split_specs"]
