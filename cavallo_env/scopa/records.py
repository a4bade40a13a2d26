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
from ..games.replay import Replay
from .cards import DECKS, IDS, NAMES, unknown_card
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
    steps = Replay(line, _show)
    deck, match, deals = _header(steps, record)
    state = None
    for k, d in enumerate(deals, start=1):
        if state is not None and state.done:
            raise steps.error(f"the match was already won after deal {k - 1} (totals {state.totals}), "
                              f"but the record has {len(deals)} deals")
        steps.deal = k
        state = _replay_deal(steps, state, d, deck, match, last=k == len(deals))
    steps.deal = None
    _check_match_result(steps, record, state, match)
    return state


def _header(steps: Replay, record) -> tuple[str, bool, list]:
    """``(deck, match, deals)`` of a record whose format, deck, target, match flag and deals are right."""
    steps.header(record, FORMAT)
    deck = record.get("deck")
    if deck.__class__ is not str or deck not in MONEY_SUIT:
        raise steps.error(f"'deck' must be one of {', '.join(map(repr, DECKS))}, got {_show(deck)}")
    target = record.get("target")
    if target.__class__ is not int or target != TARGET:
        raise steps.error(f"'target' must be {TARGET}, got {_show(target)}")
    match = record.get("match")
    if match.__class__ is not bool:
        raise steps.error(f"'match' must be true or false, got {_show(match)}")
    deals = record.get("deals")
    if not isinstance(deals, list) or not deals:
        raise steps.error("'deals' must be a non-empty list of deals")
    if not match and len(deals) != 1:
        raise steps.error(f"a single-deal record (\"match\": false) must hold exactly one deal, got {len(deals)}")
    return deck, match, deals


def _replay_deal(steps: Replay, state: ScopaState | None, d, deck: str, match: bool, last: bool) -> ScopaState:
    """Deal ``steps.deal`` of the record played on ``state`` (None before the first deal)."""
    if not isinstance(d, dict):
        raise steps.error("a deal must be an object with 'dealer', 'hands', 'table', 'stock' and 'moves'")
    try:
        dealer, hands, table, stock = parse_deal(d, deck)
    except ValueError as e:
        raise steps.error(str(e)) from None
    if state is not None and dealer == state.deals[-1].dealer:  # the deal before is complete
        k = steps.deal
        raise steps.error(f"the dealer must alternate: seat {dealer} dealt deal {k - 1}, so seat {1 - dealer} "
                          f"deals deal {k}, not seat {dealer}")
    deal = ScopaDeal(dealer, hands, table, stock, money=MONEY_SUIT[deck])
    if state is None:
        state = ScopaState(deal, deck, match, random.Random(0))
    else:
        state.start_deal(deal)
    moves = steps.moves(d, NUM_PLAYS, "plays")
    _play_moves(steps, state, moves, deck)
    if not deal.done and "result" not in d and not last:
        raise steps.error(f"the deal has only {len(moves)} of {NUM_PLAYS} plays, but another deal follows")
    if steps.end(d, deal.done, len(moves), NUM_PLAYS, "plays", "the deal"):
        _check_deal_result(steps, d["result"], state.results[-1])
    return state


def _play_moves(steps: Replay, state: ScopaState, moves: list, deck: str) -> None:
    deal = state.deal
    names = NAMES[deck]
    ids = IDS[deck]

    def card_of(n, field="capture"):
        t = ids.get(n) if n.__class__ is str else None
        if t is None:
            raise ValueError(f"'{field}': {unknown_card(n, deck)}")
        return t

    for i, mv in enumerate(moves, start=1):
        seat = steps.seat(mv, i, deal.current, 2, "'seat', 'play' and 'capture'")
        play = mv.get("play")
        try:
            card = card_of(play, "play")
        except ValueError as e:
            raise steps.error(str(e), move=i, seat=seat) from None
        capture, cap_names = steps.capture(mv, i, seat, card_of)
        why = deal.check_move(card, capture, names)
        if why is not None:
            took = f" taking {', '.join(cap_names)}" if cap_names else " (placed)"
            raise steps.error(f"illegal move {play}{took}: {why}", move=i, seat=seat)
        state.play(card, tuple(capture))


def _check_match_result(steps: Replay, record: dict, state: ScopaState, match: bool) -> None:
    if "result" in record:
        if not state.done:
            if match:
                raise steps.error(f"the record states a result, but the match is not decided: the totals are "
                                  f"{state.totals} (a side needs at least {TARGET} and more than the other)")
            raise steps.error("the record states a result, but its deal is not over")
        stated = steps.result_object(record["result"])
        steps.same(stated, state.result(), ("totals", "winner"), source="the deals")
        steps.only(stated, ("totals", "winner"))
    elif state.done:
        if match:
            raise steps.error(f"the match is decided (totals {state.totals}) but the record has no 'result'")
        raise steps.error("the deal is over but the record has no top-level 'result'")


def _check_deal_result(steps: Replay, stated, actual: dict) -> None:
    steps.result_object(stated)
    steps.same(stated, actual, ("points", "breakdown", "cards"), compare=("points", "cards"))
    steps.breakdown(stated["breakdown"], actual["breakdown"], BREAKDOWN_KEYS, "seat")
    steps.only(stated, ("points", "breakdown", "cards"), "the deal's 'result'")
