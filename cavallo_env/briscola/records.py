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
from ..games.replay import Replay
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
    steps = Replay(line)
    steps.header(record, FORMAT)
    deck = record.get("deck")
    if not isinstance(deck, str) or deck not in DECKS:
        raise steps.error(f"'deck' must be one of {', '.join(map(repr, DECKS))}, got {_short(deck)}")
    try:
        state = BriscolaState(*parse_deal(record, deck, extra_keys_ok=True), deck=deck)
    except ValueError as e:
        raise steps.error(f"bad deal: {e}") from None
    except (TypeError, RecursionError, OverflowError) as e:  # pragma: no cover - defensive
        raise steps.error(f"bad deal: {type(e).__name__}") from None
    moves = steps.moves(record, NUM_MOVES)
    names = NAMES[deck]
    for i, mv in enumerate(moves, start=1):
        seat = steps.seat(mv, i, state.current, 2, "'seat' and 'play'")
        if "play" not in mv:
            raise steps.error("the move has no 'play'", move=i, seat=seat)
        try:
            card = card_id(mv["play"], deck)
        except ValueError as e:
            raise steps.error(str(e), move=i, seat=seat) from None
        why = state.check_move(card)
        if why is not None:
            raise steps.error(f"illegal move {names[card]}: {why}", move=i, seat=seat)
        state.play(card)
    if steps.end(record, state.done, len(moves), NUM_MOVES):
        steps.same(steps.result_object(record["result"]), state.result(), RESULT_KEYS)
    return state


__all__ = ["FORMAT", "RecordError", "to_record", "replay"]
