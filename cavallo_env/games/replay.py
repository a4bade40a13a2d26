"""The steps every game's record replay takes, each with the ``RecordError`` of its first problem.

A record (docs/contract.md) is a JSON object with a ``format``; a deal holds
``moves`` of ``{"seat", "play"}`` (the capture games add ``"capture"``: card
names sorted by id) and, once it is over, a ``result`` that must be exactly
what the moves give.  ``Replay`` checks those shared parts and words their
errors the same way in every game; each game's ``records.py`` checks its deal
and its result's keys and plays the moves through its engine.
"""

from __future__ import annotations

from ..errors import RecordError, short_repr
from .base import same_json


class Replay:
    """The replay of one record: ``line`` (of a JSONL file) and ``deal`` (1-based, for a record of
    several deals) locate its errors; ``show`` writes a stated value into a message."""

    __slots__ = ("line", "deal", "show")

    def __init__(self, line: int | None = None, show=short_repr):
        self.line = line
        self.deal = None
        self.show = show

    def error(self, reason: str, move: int | None = None, seat: int | None = None) -> RecordError:
        return RecordError(reason, move=move, seat=seat, line=self.line, deal=self.deal)

    def header(self, record, fmt: str) -> None:
        """``record`` is a JSON object of format ``fmt``."""
        if not isinstance(record, dict):
            raise self.error(f"a record must be a JSON object, got {type(record).__name__}")
        got = record.get("format")
        if got != fmt or not isinstance(got, str):
            raise self.error(f"unknown format {self.show(got)}, expected {fmt!r}")

    def moves(self, holder: dict, limit: int, unit: str = "moves") -> list:
        """The ``moves`` list of ``holder``: a list of at most ``limit`` entries."""
        moves = holder.get("moves")
        if not isinstance(moves, list):
            raise self.error(f"'moves' must be a list, got {type(moves).__name__}")
        if len(moves) > limit:
            raise self.error(f"{len(moves)} moves, but a deal has only {limit} {unit}", move=limit + 1)
        return moves

    def seat(self, mv, i: int, expected: int, num_seats: int, keys: str) -> int:
        """The seat of move ``i`` (an object with ``keys``), which must be ``expected``."""
        if not isinstance(mv, dict):
            raise self.error(f"a move must be an object with {keys}, got {type(mv).__name__}", move=i)
        seat = mv.get("seat")
        if seat.__class__ is not int:
            seats = "0 or 1" if num_seats == 2 else f"0..{num_seats - 1}"
            raise self.error(f"'seat' must be an int ({seats}), got {self.show(seat)}", move=i)
        if seat != expected:
            raise self.error(f"wrong seat order: seat {self.show(seat)} moved, seat {expected} was to play",
                             move=i, seat=seat if 0 <= seat < num_seats else None)
        return seat

    def capture(self, mv: dict, i: int, seat: int, card_of) -> tuple[list, list]:
        """``(ids, names)`` of move ``i``'s ``capture``: card names, distinct and sorted by id.

        ``card_of(name)`` is the id of a card name; its ``ValueError`` says what is wrong.
        """
        names = mv.get("capture")
        if not isinstance(names, list):
            raise self.error("'capture' must be a list of card names", move=i, seat=seat)
        try:
            capture = [card_of(n) for n in names]
        except ValueError as e:
            raise self.error(str(e), move=i, seat=seat) from None
        if len(set(capture)) != len(capture):
            raise self.error("a card appears twice in the capture", move=i, seat=seat)
        if capture != sorted(capture):
            raise self.error("the capture is not sorted by card id", move=i, seat=seat)
        return capture, names

    def end(self, holder: dict, done: bool, played: int, limit: int, unit: str = "moves",
            what: str = "the record") -> bool:
        """Whether ``holder`` (``what``) states a result, which it must exactly when its deal is ``done``."""
        if "result" in holder:
            if not done:
                raise self.error(f"{what} states a result but has only {played} of {limit} {unit}", move=played + 1)
            return True
        if done:
            raise self.error(f"the deal is complete ({limit} {unit}) but has no 'result'")
        return False

    def same(self, stated: dict, actual: dict, keys, owner: str = "", source: str = "the moves",
             compare=None) -> None:
        """``stated`` (a stated result, or ``owner``'s part of one) has all of ``keys``, and those of
        ``compare`` (default: ``keys``) are ``actual``'s (ints as ints)."""
        for key in keys:
            if key not in stated:
                lack = f"{owner} has no {key!r}" if owner else f"no {key!r}"
                raise self.error(f"wrong result: {lack} ({source} give {actual[key]!r})")
        for key in keys if compare is None else compare:
            if not same_json(stated[key], actual[key]):
                who = f"{owner} " if owner else ""
                raise self.error(f"wrong result: {who}{key} is {self.show(stated[key])}, "
                                 f"{source} give {actual[key]!r}")

    def only(self, stated: dict, keys, where: str = "'result'", prefix: str = "") -> None:
        """``stated`` has no key but ``keys``."""
        extra = [k for k in stated if k not in keys]
        if extra:
            raise self.error(f"{prefix}unknown key(s) in {where}: {', '.join(self.show(k) for k in extra)}")

    def breakdown(self, stated, actual: list, keys, side: str) -> None:
        """A stated ``breakdown``: two objects (``side`` 0 and 1) of exactly ``keys``, as ``actual``."""
        if not isinstance(stated, list) or len(stated) != 2:
            raise self.error(f"wrong result: 'breakdown' must be a list of two objects ({side} 0, {side} 1)")
        for k in (0, 1):
            if not isinstance(stated[k], dict):
                raise self.error(f"wrong result: the breakdown of {side} {k} must be an object")
            self.same(stated[k], actual[k], keys, owner=f"{side} {k}")
            self.only(stated[k], keys, f"the breakdown of {side} {k}", "wrong result: ")

    def result_object(self, stated, what: str = "'result'") -> dict:
        """A stated result must be a JSON object."""
        if not isinstance(stated, dict):
            raise self.error(f"{what} must be an object, got {type(stated).__name__}")
        return stated
