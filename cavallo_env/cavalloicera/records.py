"""Cavalloìcera game records (docs/contract.md, "Game record"): write, replay and check.

A record is plain JSON: the deal by names, every move, and once the deal is
over its result.  ``replay`` re-plays a record through the engine and reports
the first thing that is wrong (by move number, seat and reason) as a
``RecordError``; it never lets a traceback from inside the engine escape.
The file helpers and the replay of any game's record are in ``cavallo_env.records``.
"""

from __future__ import annotations

from ..errors import RecordError
from ..errors import short_repr as _short
from ..games.base import same_json as _same
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
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}", line=line)
    fmt = record.get("format")
    if fmt != FORMAT:
        raise RecordError(f"unknown format {str(fmt)[:80]!r}, expected {FORMAT!r}", line=line)
    try:
        state = CavalloiceraState(*parse_deal(record))
    except ValueError as e:
        raise RecordError(str(e), line=line) from None
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise RecordError("'moves' must be a list", line=line)
    if len(moves) > NUM_TURNS:
        raise RecordError(f"{len(moves)} moves, but a deal has only {NUM_TURNS}", move=NUM_TURNS + 1, line=line)
    for i, mv in enumerate(moves, start=1):
        expected = state.current
        if not isinstance(mv, dict):
            raise RecordError("a move must be an object with 'seat', 'play' and 'capture'", move=i, line=line)
        seat = mv.get("seat")
        if seat != expected or isinstance(seat, bool):
            raise RecordError(f"wrong seat order: seat {seat!r} moved, seat {expected} was to play",
                              move=i, seat=seat if isinstance(seat, int) else None, line=line)
        cap_names = mv.get("capture")
        if not isinstance(cap_names, list):
            raise RecordError("'capture' must be a list of card names", move=i, seat=seat, line=line)
        try:
            card = card_id(mv.get("play"))
            capture = [card_id(n) for n in cap_names]
        except ValueError as e:
            raise RecordError(str(e), move=i, seat=seat, line=line) from None
        if len(set(capture)) != len(capture):
            raise RecordError("a card appears twice in the capture", move=i, seat=seat, line=line)
        if capture != sorted(capture):
            raise RecordError("capture is not sorted by card id", move=i, seat=seat, line=line)
        why = state.check_move(card, capture)
        if why is not None:
            raise RecordError(f"illegal move {NAMES[card]} taking {cap_names}: {why}", move=i, seat=seat, line=line)
        state.play(card, tuple(capture))
    if "result" in record:
        if not state.done:
            raise RecordError(f"the record states a result but has only {len(moves)} of {NUM_TURNS} moves",
                              move=len(moves) + 1, line=line)
        _check_result(record["result"], state.result(), line)
    elif state.done:
        raise RecordError(f"the deal is complete ({NUM_TURNS} moves) but has no 'result'", line=line)
    return state


RESULT_KEYS = ("team_points", "breakdown", "cards", "winner")


def _check_result(stated, actual: dict, line) -> None:
    """The stated result must be exactly ``actual``: every key present, no other key, ints as ints."""
    if not isinstance(stated, dict):
        raise RecordError(f"'result' must be an object, got {type(stated).__name__}", line=line)
    for key in RESULT_KEYS:
        if key not in stated:
            raise RecordError(f"wrong result: no {key!r} (the moves give {actual[key]!r})", line=line)
    for key in ("team_points", "cards", "winner"):
        if not _same(stated[key], actual[key]):
            raise RecordError(f"wrong result: {key} is {_short(stated[key])}, the moves give {actual[key]!r}",
                              line=line)
    bd = stated["breakdown"]
    if not isinstance(bd, list) or len(bd) != 2:
        raise RecordError("wrong result: 'breakdown' must be a list of two teams", line=line)
    for team in (0, 1):
        if not isinstance(bd[team], dict):
            raise RecordError(f"wrong result: the breakdown of team {team} must be an object", line=line)
        for key in BREAKDOWN_KEYS:
            if key not in bd[team]:
                raise RecordError(f"wrong result: team {team} has no {key!r} (the moves give "
                                  f"{actual['breakdown'][team][key]!r})", line=line)
            got = bd[team][key]
            if not _same(got, actual["breakdown"][team][key]):
                raise RecordError(f"wrong result: team {team} {key} is {_short(got)}, the moves give "
                                  f"{actual['breakdown'][team][key]!r}", line=line)
        extra = [k for k in bd[team] if k not in BREAKDOWN_KEYS]
        if extra:
            raise RecordError(f"wrong result: unknown key(s) in the breakdown of team {team}: "
                              f"{', '.join(_short(k) for k in extra)}", line=line)
    extra = [k for k in stated if k not in RESULT_KEYS]
    if extra:
        raise RecordError(f"unknown key(s) in 'result': {', '.join(_short(k) for k in extra)}", line=line)
