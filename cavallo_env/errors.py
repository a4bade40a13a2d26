"""The error types of the package, in one leaf module (it imports nothing of the package).

- ``ViewError``    a view that is malformed or contradicts itself (``cavallo_env.<game>.views``)
- ``RecordError``  a record that is malformed or disagrees with the rules (``cavallo_env.records``)
- ``BotSpecError`` a bot spec that names no bot or has a bad argument (``cavallo_env.bots``)

and the small helpers the games use to build their messages (``short_repr``,
``require``, ``unreadable``).  Each class is also importable from the module
named above, where it used to live.
"""

from __future__ import annotations


class ViewError(ValueError):
    """A view that is malformed or contradicts itself; the message says how."""


class RecordError(ValueError):
    """A record that is malformed or disagrees with the rules.

    ``move`` is the 1-based move number (None for problems outside the moves),
    ``seat`` the seat of that move when known, ``line`` the JSONL line number,
    ``deal`` the 1-based deal of a record that holds several (a Scopa match).
    """

    def __init__(self, reason: str, move: int | None = None, seat: int | None = None, line: int | None = None,
                 deal: int | None = None):
        self.reason, self.move, self.seat, self.line, self.deal = reason, move, seat, line, deal
        where = []
        if line is not None:
            where.append(f"line {line}")
        if deal is not None:
            where.append(f"deal {deal}")
        if move is not None:
            where.append(f"move {move}")
        if seat is not None:
            where.append(f"seat {seat}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


class BotSpecError(ValueError):
    """A bot spec string that names no bot or has a bad argument."""


def short_repr(value, limit: int = 60) -> str:
    """A short repr for an error message that never fails (huge ints included)."""
    if value.__class__ is int and value.bit_length() > 128:
        return f"<an int of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # pragma: no cover - defensive
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def require(view, keys) -> None:
    """``ViewError`` naming the first of ``keys`` the view lacks (a bot's quick
    check before it reads the fields it uses, without checking the whole view)."""
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    for key in keys:
        if key not in view:
            raise ViewError(f"the view has no {key!r}")


def unreadable(e: Exception, title: str) -> ViewError:
    """The ``ViewError`` for an error raised while a bot read a view's fields."""
    return ViewError(f"not a valid {title} view ({type(e).__name__}: {str(e)[:80]})")
