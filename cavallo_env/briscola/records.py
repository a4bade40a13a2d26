"""Briscola game records (docs/contract.md, "Briscola"): write, replay and check.

``{"format": "briscola-record/1", "deck", "hands": [[3 names] x2], "trump",
"stock": [33 names, top first, without the trump card], "leader",
"moves": [{"seat", "play"}], "result": {"points": [p0, p1], "tricks": [t0, t1],
"winner": 0 | 1 | null}}``; ``result`` is present once the deal is over.
Replaying checks every move and the stated result and reports the first wrong
thing by move number, seat and reason (``RecordError``), whatever the input.
"""

from __future__ import annotations

from ..errors import RecordError
from ..errors import short_repr as _short
from ..games.base import same_json as _same
from .cards import DECKS, NAMES, card_id
from .engine import NUM_MOVES, BriscolaState, parse_deal

FORMAT = "briscola-record/1"
RESULT_KEYS = ("points", "tricks", "winner")


def to_record(state: BriscolaState) -> dict:
    """The record of a deal so far; includes ``result`` once the deal is over."""
    names = NAMES[state.deck]
    hands, trump, stock, leader = state.initial
    rec = {
        "format": FORMAT,
        "deck": state.deck,
        "hands": [[names[c] for c in h] for h in hands],
        "trump": names[trump],
        "stock": [names[c] for c in stock],
        "leader": leader,
        "moves": [{"seat": s, "play": names[c]} for s, c in state.moves],
    }
    if state.done:
        rec["result"] = state.result()
    return rec


def replay(record, *, line: int | None = None) -> BriscolaState:
    """Replay a record, checking every move and the stated result.

    Returns the final ``BriscolaState``; raises ``RecordError`` at the first
    problem.  A record without ``result`` is a deal in progress: it must have
    fewer than all 40 moves (a complete deal states its result).
    """
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}", line=line)
    fmt = record.get("format")
    if fmt != FORMAT or not isinstance(fmt, str):
        raise RecordError(f"unknown format {_short(fmt)}, expected {FORMAT!r}", line=line)
    deck = record.get("deck")
    if not isinstance(deck, str) or deck not in DECKS:
        raise RecordError(f"'deck' must be one of {', '.join(map(repr, DECKS))}, got {_short(deck)}", line=line)
    try:
        state = BriscolaState(*parse_deal(record, deck, extra_keys_ok=True), deck=deck)
    except ValueError as e:
        raise RecordError(f"bad deal: {e}", line=line) from None
    except (TypeError, RecursionError, OverflowError) as e:  # pragma: no cover - defensive
        raise RecordError(f"bad deal: {type(e).__name__}", line=line) from None
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise RecordError(f"'moves' must be a list, got {type(moves).__name__}", line=line)
    if len(moves) > NUM_MOVES:
        raise RecordError(f"{len(moves)} moves, but a deal has only {NUM_MOVES}", move=NUM_MOVES + 1, line=line)
    names = NAMES[deck]
    for i, mv in enumerate(moves, start=1):
        expected = state.current
        if not isinstance(mv, dict):
            raise RecordError(f"a move must be an object with 'seat' and 'play', got {type(mv).__name__}",
                              move=i, line=line)
        seat = mv.get("seat")
        if seat.__class__ is not int:
            raise RecordError(f"'seat' must be an int (0 or 1), got {_short(seat)}", move=i, line=line)
        if seat != expected:
            raise RecordError(f"wrong seat order: seat {_short(seat)} moved, seat {expected} was to play",
                              move=i, seat=seat if seat in (0, 1) else None, line=line)
        if "play" not in mv:
            raise RecordError("the move has no 'play'", move=i, seat=seat, line=line)
        try:
            card = card_id(mv["play"], deck)
        except ValueError as e:
            raise RecordError(str(e), move=i, seat=seat, line=line) from None
        why = state.check_move(card)
        if why is not None:
            raise RecordError(f"illegal move {names[card]}: {why}", move=i, seat=seat, line=line)
        state.play(card)
    if "result" in record:
        if not state.done:
            raise RecordError(f"the record states a result but has only {len(moves)} of {NUM_MOVES} moves",
                              move=len(moves) + 1, line=line)
        _check_result(record["result"], state.result(), line)
    elif state.done:
        raise RecordError(f"the deal is complete ({NUM_MOVES} moves) but has no 'result'", line=line)
    return state


def _check_result(stated, actual: dict, line) -> None:
    if not isinstance(stated, dict):
        raise RecordError(f"'result' must be an object, got {type(stated).__name__}", line=line)
    for key in RESULT_KEYS:
        if key not in stated:
            raise RecordError(f"wrong result: no {key!r} (the moves give {actual[key]!r})", line=line)
        if not _same(stated[key], actual[key]):
            raise RecordError(f"wrong result: {key} is {_short(stated[key])}, the moves give {actual[key]!r}",
                              line=line)


__all__ = ["FORMAT", "RecordError", "to_record", "replay"]
