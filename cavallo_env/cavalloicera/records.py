"""Cavalloìcera game records (docs/contract.md, "Game record"): write, replay and check.

A record is plain JSON: the deal by names, every move, and once the deal is
over its result.  ``replay`` re-plays a record through the engine and reports
the first thing that is wrong (by move number, seat and reason) as a
``RecordError``; it never lets a traceback from inside the engine escape.
The file helpers and the replay of any game's record are in ``cavallo_env.records``.
"""

from __future__ import annotations

from ..errors import RecordError  # noqa: F401  (re-exported: replay raises it)
from ..games.replay import Replay
from .cards import NAMES, card_id
from .engine import BREAKDOWN_KEYS, NUM_TURNS, CavalloiceraState, parse_deal

FORMAT = "cavalloicera-record/1"


def to_record(state: CavalloiceraState) -> dict:
    """The record of a deal so far; includes ``result`` once the deal is over."""
    rec = {
        "format": FORMAT,
        "dealer": state.dealer,
        "hands": [[NAMES[c] for c in h] for h in state.initial_hands],
        "table": [NAMES[c] for c in state.initial_table],
        "moves": [{"seat": s, "play": NAMES[c], "capture": [NAMES[t] for t in cap]} for s, c, cap in state.moves],
    }
    if state.done:
        rec["result"] = state.result()
    return rec


def replay(record, *, line: int | None = None) -> CavalloiceraState:
    """Replay a record, checking every move and the stated result.

    Returns the final ``CavalloiceraState``.  Raises ``RecordError`` at the first
    problem.  A record without ``result`` is a deal in progress: it must have
    fewer than all 48 moves (a complete deal states its result).
    """
    steps = Replay(line)
    steps.header(record, FORMAT)
    try:
        state = CavalloiceraState(*parse_deal(record))
    except ValueError as e:
        raise steps.error(str(e)) from None
    moves = steps.moves(record, NUM_TURNS)
    for i, mv in enumerate(moves, start=1):
        seat = steps.seat(mv, i, state.current, 4, "'seat', 'play' and 'capture'")
        capture, cap_names = steps.capture(mv, i, seat, card_id)
        try:
            card = card_id(mv.get("play"))
        except ValueError as e:
            raise steps.error(str(e), move=i, seat=seat) from None
        why = state.check_move(card, capture)
        if why is not None:
            raise steps.error(f"illegal move {NAMES[card]} taking {cap_names}: {why}", move=i, seat=seat)
        state.play(card, tuple(capture))
    if steps.end(record, state.done, len(moves), NUM_TURNS):
        _check_result(steps, record["result"], state.result())
    return state


RESULT_KEYS = ("team_points", "breakdown", "cards", "winner")


def _check_result(steps: Replay, stated, actual: dict) -> None:
    """The stated result must be exactly ``actual``: every key present, no other key, ints as ints."""
    steps.result_object(stated)
    steps.same(stated, actual, RESULT_KEYS, compare=("team_points", "cards", "winner"))
    steps.breakdown(stated["breakdown"], actual["breakdown"], BREAKDOWN_KEYS, "team")
    steps.only(stated, RESULT_KEYS)
