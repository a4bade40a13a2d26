"""Scopa game records (``"scopa-record/1"``): write and replay-check.

A record is plain JSON::

    {"format": "scopa-record/1", "deck": "milanesi", "target": 11, "match": true,
     "deals": [{"dealer", "hands", "table", "stock",
                "moves": [{"seat", "play", "capture": [names sorted by id]}],
                "result": {"points": [p0, p1],
                           "breakdown": [{"scope", "most_cards", "most_money", "settebello", "primiera"} x2],
                           "cards": [c0, c1]}}],
     "result": {"totals": [t0, t1], "winner": 0 | 1 | null}}

A deal's ``result`` is present once the deal is over; the top-level
``result`` once the match is decided (``"match": false``: once its one deal is
over; the higher total wins, ``winner`` null for a drawn deal).  ``replay``
re-plays a record through the engine and reports the first thing that is
wrong as a ``RecordError`` (deal and move number, seat, reason); it never lets
a traceback escape, whatever the input.
"""

from __future__ import annotations

import random

from ..errors import RecordError
from ..games.base import same_json as _same
from ..briscola.cards import DECKS, IDS, NAMES
from .engine import BREAKDOWN_KEYS, MONEY_SUIT, NUM_PLAYS, TARGET, ScopaDeal, ScopaState, parse_deal
from .engine import show as _show

FORMAT = "scopa-record/1"

__all__ = ["FORMAT", "RecordError", "to_record", "deal_record", "replay"]


def _names(cards, names) -> list[str]:
    return [names[c] for c in cards]


def deal_record(deal: ScopaDeal, names, result: dict | None = None) -> dict:
    """One deal's record entry (``result`` once it is over)."""
    rec = {
        "dealer": deal.dealer,
        "hands": [_names(deal.initial_hands[0], names), _names(deal.initial_hands[1], names)],
        "table": _names(deal.initial_table, names),
        "stock": _names(deal.initial_stock, names),
        "moves": [{"seat": s, "play": names[c], "capture": [names[t] for t in cap]} for s, c, cap in deal.moves],
    }
    if deal.done:
        rec["result"] = result if result is not None else deal.result()
    return rec


def to_record(state: ScopaState) -> dict:
    """The record of a match (or single deal) so far; ``result`` once it is decided."""
    names = state.names
    deals = [deal_record(d, names, _copy_result(r)) for d, r in zip(state.deals, state.results)]
    if not state.deal.done:
        deals.append(deal_record(state.deal, names))
    rec = {"format": FORMAT, "deck": state.deck, "target": state.target, "match": state.match, "deals": deals}
    if state.done:
        rec["result"] = state.result()
    return rec


def _copy_result(r: dict) -> dict:
    return {"points": r["points"][:], "breakdown": [dict(b) for b in r["breakdown"]], "cards": r["cards"][:]}


def _is_int(x) -> bool:
    return x.__class__ is int


def replay(record, *, line: int | None = None) -> ScopaState:
    """Replay a record, checking every deal, move and stated result; returns the final ``ScopaState``.

    Checks: the format, deck, target and ``match`` flag; every deal's cards
    (``parse_deal``: 40 distinct cards, no three kings on the table); dealers
    alternating; every move (seat order, the card in hand, the capture legal);
    every deal before the last complete, with its stated result; each stated
    result; no deal after the match is won; a ``"match": false`` record has
    exactly one deal; the top-level result only once the match is decided, and
    right.  A record without a top-level result is a match in progress (one
    that is decided is an error).
    If its last deal is complete and the match goes on, the returned state
    continues with a next deal drawn from ``random.Random(0)``.
    """
    try:
        return _replay(record, line)
    except RecordError:
        raise
    except RecursionError:
        raise RecordError("the record is nested too deeply", line=line) from None


def _replay(record, line) -> ScopaState:
    def err(reason, deal=None, move=None, seat=None):
        return RecordError(reason, move=move, seat=seat, line=line, deal=deal)

    if not isinstance(record, dict):
        raise err(f"a record must be a JSON object, got {type(record).__name__}")
    fmt = record.get("format")
    if fmt != FORMAT:
        raise err(f"unknown format {_show(fmt)}, expected {FORMAT!r}")
    deck = record.get("deck")
    if deck.__class__ is not str or deck not in MONEY_SUIT:
        raise err(f"'deck' must be one of {', '.join(map(repr, DECKS))}, got {_show(deck)}")
    target = record.get("target")
    if not _is_int(target) or target != TARGET:
        raise err(f"'target' must be {TARGET}, got {_show(target)}")
    match = record.get("match")
    if match.__class__ is not bool:
        raise err(f"'match' must be true or false, got {_show(match)}")
    deals = record.get("deals")
    if not isinstance(deals, list) or not deals:
        raise err("'deals' must be a non-empty list of deals")
    if not match and len(deals) != 1:
        raise err(f"a single-deal record (\"match\": false) must hold exactly one deal, got {len(deals)}")
    names = NAMES[deck]
    ids = IDS[deck]
    state = None
    prev_dealer = None
    for k, d in enumerate(deals, start=1):
        if state is not None and state.done:
            raise err(f"the match was already won after deal {k - 1} (totals {state.totals}), "
                      f"but the record has {len(deals)} deals")
        if not isinstance(d, dict):
            raise err("a deal must be an object with 'dealer', 'hands', 'table', 'stock' and 'moves'", deal=k)
        try:
            dealer, hands, table, stock = parse_deal(d, deck)
        except ValueError as e:
            raise err(str(e), deal=k) from None
        if prev_dealer is not None and dealer == prev_dealer:
            raise err(f"the dealer must alternate: seat {prev_dealer} dealt deal {k - 1}, so seat {1 - dealer} "
                      f"deals deal {k}, not seat {dealer}", deal=k)
        prev_dealer = dealer
        deal = ScopaDeal(dealer, hands, table, stock, money=MONEY_SUIT[deck])
        if state is None:
            state = ScopaState(deal, deck, match, random.Random(0))
        else:
            state.start_deal(deal)
        moves = d.get("moves")
        if not isinstance(moves, list):
            raise err("'moves' must be a list of moves", deal=k)
        if len(moves) > NUM_PLAYS:
            raise err(f"{len(moves)} moves, but a deal has only {NUM_PLAYS} plays", deal=k, move=NUM_PLAYS + 1)
        for i, mv in enumerate(moves, start=1):
            expected = deal.current
            if not isinstance(mv, dict):
                raise err("a move must be an object with 'seat', 'play' and 'capture'", deal=k, move=i)
            seat = mv.get("seat")
            if not _is_int(seat) or seat != expected:
                raise err(f"wrong seat order: seat {_show(seat)} moved, seat {expected} was to play",
                          deal=k, move=i, seat=seat if _is_int(seat) and 0 <= seat <= 1 else None)
            play = mv.get("play")
            card = ids.get(play) if play.__class__ is str else None
            if card is None:
                raise err(f"'play': {_unknown(play, deck)}", deal=k, move=i, seat=seat)
            cap_names = mv.get("capture")
            if not isinstance(cap_names, list):
                raise err("'capture' must be a list of card names", deal=k, move=i, seat=seat)
            capture = []
            for n in cap_names:
                t = ids.get(n) if n.__class__ is str else None
                if t is None:
                    raise err(f"'capture': {_unknown(n, deck)}", deal=k, move=i, seat=seat)
                capture.append(t)
            if len(set(capture)) != len(capture):
                raise err("a card appears twice in the capture", deal=k, move=i, seat=seat)
            if capture != sorted(capture):
                raise err("the capture is not sorted by card id", deal=k, move=i, seat=seat)
            why = deal.check_move(card, capture, names)
            if why is not None:
                took = f" taking {', '.join(cap_names)}" if cap_names else " (placed)"
                raise err(f"illegal move {play}{took}: {why}", deal=k, move=i, seat=seat)
            state.play(card, tuple(capture))
        last = k == len(deals)
        if not deal.done:
            if "result" in d:
                raise err(f"the deal states a result but has only {len(moves)} of {NUM_PLAYS} plays",
                          deal=k, move=len(moves) + 1)
            if not last:
                raise err(f"the deal has only {len(moves)} of {NUM_PLAYS} plays, but another deal follows", deal=k)
            continue
        if "result" not in d:
            raise err(f"the deal is complete ({NUM_PLAYS} plays) but has no 'result'", deal=k)
        _check_deal_result(d["result"], state.results[-1], err, k)
    if "result" in record:
        stated = record["result"]
        if not state.done:
            if match:
                raise err(f"the record states a result, but the match is not decided: the totals are "
                          f"{state.totals} (a side needs at least {TARGET} and more than the other)")
            raise err("the record states a result, but its deal is not over")
        actual = state.result()
        if not isinstance(stated, dict):
            raise err("'result' must be an object with 'totals' and 'winner'")
        for key in ("totals", "winner"):
            got = stated.get(key, "<missing>")
            if not _same(got, actual[key]):
                raise err(f"wrong result: {key} is {_show(got)}, the deals give {actual[key]!r}")
        extra = [key for key in stated if key not in ("totals", "winner")]
        if extra:
            raise err(f"unknown key(s) in 'result': {', '.join(_show(x) for x in extra)}")
    elif state.done:
        if match:
            raise err(f"the match is decided (totals {state.totals}) but the record has no 'result'")
        raise err("the deal is over but the record has no top-level 'result'")
    return state


def _check_deal_result(stated, actual: dict, err, k: int) -> None:
    if not isinstance(stated, dict):
        raise err("'result' must be an object with 'points', 'breakdown' and 'cards'", deal=k)
    for key in ("points", "cards"):
        got = stated.get(key, "<missing>")
        if not _same(got, actual[key]):
            raise err(f"wrong result: {key} is {_show(got)}, the moves give {actual[key]!r}", deal=k)
    bd = stated.get("breakdown")
    if not isinstance(bd, list) or len(bd) != 2:
        raise err("wrong result: 'breakdown' must be a list of two objects (seat 0, seat 1)", deal=k)
    for seat in (0, 1):
        if not isinstance(bd[seat], dict):
            raise err(f"wrong result: the breakdown of seat {seat} must be an object", deal=k)
        for key in BREAKDOWN_KEYS:
            got = bd[seat].get(key, "<missing>")
            if not _same(got, actual["breakdown"][seat][key]):
                raise err(f"wrong result: seat {seat} {key} is {_show(got)}, the moves give "
                          f"{actual['breakdown'][seat][key]!r}", deal=k)
        extra = [key for key in bd[seat] if key not in BREAKDOWN_KEYS]
        if extra:
            raise err(f"wrong result: unknown key(s) in the breakdown of seat {seat}: "
                      f"{', '.join(_show(x) for x in extra)}", deal=k)
    extra = [key for key in stated if key not in ("points", "breakdown", "cards")]
    if extra:
        raise err(f"unknown key(s) in the deal's 'result': {', '.join(_show(x) for x in extra)}", deal=k)


def _unknown(n, deck) -> str:
    if n.__class__ is not str:
        return f"a card must be a name of the {deck} deck, got {_show(n)}"
    for other in DECKS:
        if other != deck and n in IDS[other]:
            return f"{n!r} is a card of the {other} deck, not of the {deck} deck"
    return f"unknown card {_show(n)} in the {deck} deck"
