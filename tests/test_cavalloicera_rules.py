"""Hand-written positions for each rule of docs/rules/cavalloicera.md: captures, bonuses, awards, end of deal."""

from __future__ import annotations

import itertools
import random

import pytest

from cavallo_env.cavalloicera.cards import RANK, SUIT, card_id
from cavallo_env.cavalloicera.engine import (
    BREAKDOWN_KEYS,
    NUM_TURNS,
    PICADA,
    QUADRIGLIA,
    SCUA,
    SIMILI,
    CavalloiceraState,
    capture_points,
    napula,
    score,
)


def ids(text: str) -> list[int]:
    """Card ids from space-separated names, e.g. ``"7-coins 3-cups"``."""
    return [card_id(n) for n in text.split()]


def c(name: str) -> int:
    return card_id(name)


def position(hands: dict, table: str, dealer: int = 3, turn: int = 10) -> CavalloiceraState:
    """A unit position: ``hands`` maps seat -> names; ``dealer + 1`` plays first.

    ``turn`` defaults to mid-deal so that no end-of-deal logic fires; a first-turn
    position passes ``turn=0``.
    """
    full = [ids(hands.get(seat, "")) for seat in range(4)]
    state = CavalloiceraState(full, ids(table), dealer)
    state.turn = turn
    return state


def captures_of(state: CavalloiceraState, name: str) -> set:
    """The legal moves of one hand card, as a set of capture sets (``()`` = place)."""
    card = c(name)
    return {cap for k, cap in state.legal_moves() if k == card}


def play(state: CavalloiceraState, name: str, capture: str = ""):
    """Play a move after checking it is legal; returns the bonuses it scored."""
    move = (c(name), tuple(sorted(ids(capture))))
    assert move in state.legal_moves(), move
    return state.play(*move)


# ------------------------------------------------------------------ capture rules


def test_rules_example_rank_match_and_sum_are_separate_moves():
    # docs/rules/cavalloicera.md: 7-coins on 7-cups, 3-swords, 4-clubs -> {7-cups}, {3-swords, 4-clubs}, or place.
    s = position({0: "7-coins"}, "7-cups 3-swords 4-clubs")
    assert captures_of(s, "7-coins") == {(), (c("7-cups"),), tuple(sorted(ids("3-swords 4-clubs"))),}
    assert len(s.legal_moves()) == 3
    # A rank match cannot be combined with a sum.
    assert s.check_move(c("7-coins"), sorted(ids("7-cups 3-swords 4-clubs"))) is not None


def test_several_same_rank_matches_are_separate_moves():
    s = position({0: "7-coins"}, "7-cups 7-swords 7-clubs 2-coins")
    assert captures_of(s, "7-coins") == {(), (c("7-cups"),), (c("7-swords"),), (c("7-clubs"),)}


def test_seven_cannot_take_two_sevens():
    s = position({0: "7-coins"}, "7-cups 7-swords")
    assert s.check_move(c("7-coins"), ids("7-cups 7-swords")) is not None
    assert all(len(cap) <= 1 for cap in captures_of(s, "7-coins"))


def test_two_aces_sum_to_two():
    # Two equal numerals may still form a sum for a different card: A + A = 2.
    s = position({0: "2-coins"}, "A-cups A-swords 9-clubs")
    assert captures_of(s, "2-coins") == {(), tuple(ids("A-cups A-swords"))}


def test_courts_take_only_the_same_court_rank():
    s = position({0: "F-coins C-coins R-coins"}, "F-cups C-swords 5-clubs 4-cups")
    assert captures_of(s, "F-coins") == {(), (c("F-cups"),)}
    assert captures_of(s, "C-coins") == {(), (c("C-swords"),)}
    assert captures_of(s, "R-coins") == {()}
    assert s.check_move(c("F-coins"), [c("C-swords")]) is not None
    assert s.check_move(c("F-coins"), [c("5-clubs")]) is not None


def test_courts_never_sum():
    # A court has no value: it cannot be captured in a sum nor capture by one.
    s = position({0: "9-coins R-coins"}, "F-cups 5-clubs 4-cups R-clubs")
    assert captures_of(s, "9-coins") == {(), tuple(sorted(ids("4-cups 5-clubs")))}
    assert s.check_move(c("9-coins"), sorted(ids("F-cups 5-clubs 4-cups"))) is not None
    assert captures_of(s, "R-coins") == {(), (c("R-clubs"),)}
    # A numeral never takes a court by rank either.
    s = position({0: "A-coins"}, "F-cups C-cups R-cups 9-swords")
    assert captures_of(s, "A-coins") == {()}


def test_sum_of_several_cards_and_wrong_sum():
    s = position({0: "10-coins"}, "A-cups 2-swords 3-clubs 4-cups 6-clubs")
    caps = captures_of(s, "10-coins")
    assert tuple(sorted(ids("A-cups 2-swords 3-clubs 4-cups"))) in caps
    assert tuple(sorted(ids("4-cups 6-clubs"))) in caps
    assert tuple(sorted(ids("A-cups 3-clubs 6-clubs"))) in caps
    why = s.check_move(c("10-coins"), sorted(ids("A-cups 2-swords")))
    assert why is not None and "sum to 3" in why


def test_place_only_is_legal_even_when_a_capture_exists():
    s = position({0: "5-coins"}, "5-cups 2-clubs 3-swords")
    assert len(captures_of(s, "5-coins")) == 3
    assert (c("5-coins"), ()) in s.legal_moves()
    assert s.check_move(c("5-coins"), ()) is None


def test_capture_moves_cards_to_the_team_pile():
    s = position({0: "7-coins"}, "3-cups 4-swords 9-clubs", dealer=3)
    play(s, "7-coins", "3-cups 4-swords")
    assert sorted(s.piles[0]) == sorted(ids("7-coins 3-cups 4-swords"))
    assert s.piles[1] == []
    assert s.table == ids("9-clubs")
    assert s.last_capturer == 0


# ------------------------------------------------------------------ bonuses


def test_scua_when_the_capture_empties_the_table():
    s = position({0: "3-coins"}, "3-cups")
    assert play(s, "3-coins", "3-cups")[SCUA] == 1
    s = position({0: "3-coins"}, "3-cups 9-clubs")
    assert play(s, "3-coins", "3-cups")[SCUA] == 0


def test_picada_takes_exactly_the_placed_card_by_rank():
    # Seat 3 places 5-clubs; seat 0 takes exactly that card by rank.
    s = position({3: "5-clubs", 0: "5-coins"}, "9-cups 8-swords", dealer=2)
    assert play(s, "5-clubs") is None
    assert s.prev_placed == c("5-clubs")
    pts = play(s, "5-coins", "5-clubs")
    assert pts == [0, 1, 0, 0]
    assert s.bonuses[0] == [0, 1, 0, 0]


def test_picada_only_for_the_placed_card_not_another_of_that_rank():
    s = position({3: "5-clubs", 0: "5-coins"}, "5-cups 8-swords", dealer=2)
    play(s, "5-clubs")
    t = s.copy()
    assert play(s, "5-coins", "5-cups")[PICADA] == 0
    assert play(t, "5-coins", "5-clubs")[PICADA] == 1


def test_sum_including_the_placed_card_is_not_picada():
    s = position({3: "2-clubs", 0: "5-coins"}, "3-cups 8-swords", dealer=2)
    play(s, "2-clubs")
    assert play(s, "5-coins", "2-clubs 3-cups")[PICADA] == 0


def test_no_picada_after_a_capture():
    # Seat 3 places 5-clubs, seat 0 captures something else, seat 1 then takes 5-clubs: no picada.
    s = position({3: "5-clubs", 0: "9-coins", 1: "5-swords"}, "9-cups 8-swords", dealer=2)
    play(s, "5-clubs")
    play(s, "9-coins", "9-cups")
    assert s.prev_placed is None
    assert play(s, "5-swords", "5-clubs")[PICADA] == 0


def test_no_picada_on_the_first_turn():
    s = position({0: "5-coins"}, "5-clubs 8-swords 9-cups F-cups", dealer=3, turn=0)
    assert s.prev_placed is None
    assert play(s, "5-coins", "5-clubs")[PICADA] == 0


def test_court_picada():
    s = position({3: "C-clubs", 0: "C-coins"}, "9-cups 8-swords", dealer=2)
    play(s, "C-clubs")
    assert play(s, "C-coins", "C-clubs") == [0, 1, 0, 0]


def test_picada_and_scua_stack():
    s = position({3: "5-clubs", 0: "5-coins"}, "", dealer=2)
    play(s, "5-clubs")
    assert play(s, "5-coins", "5-clubs") == [1, 1, 0, 0]


def test_simili_from_a_sum():
    s = position({0: "7-coins"}, "3-coins 4-coins 4-cups 9-clubs")
    t = s.copy()
    assert play(s, "7-coins", "3-coins 4-coins")[SIMILI] == 1
    assert play(t, "7-coins", "3-coins 4-cups")[SIMILI] == 0


def test_rank_match_is_never_simili():
    # Same rank and same suit would be the same card, so no rank match can be simili.
    for a, b in itertools.permutations(range(52), 2):
        if RANK[a] == RANK[b]:
            assert SUIT[a] != SUIT[b]
            assert capture_points(a, (b,), False, None)[SIMILI] == 0


def test_quadriglia_needs_three_table_cards():
    s = position({0: "10-coins"}, "A-cups 2-swords 3-clubs 4-cups 7-clubs")
    t = s.copy()
    assert play(s, "10-coins", "A-cups 2-swords 3-clubs 4-cups")[QUADRIGLIA] == 1
    assert play(t, "10-coins", "3-clubs 7-clubs")[QUADRIGLIA] == 0  # 2 taken + the played card is not 3
    s = position({0: "9-coins"}, "A-cups 3-swords 5-clubs 8-cups")
    assert play(s, "9-coins", "A-cups 3-swords 5-clubs")[QUADRIGLIA] == 1


def test_bonuses_stack_scua_simili_quadriglia():
    s = position({0: "7-coins"}, "A-coins 2-coins 4-coins")
    assert play(s, "7-coins", "A-coins 2-coins 4-coins") == [1, 0, 1, 1]
    assert s.bonuses == [[1, 0, 1, 1], [0, 0, 0, 0]]


def test_rules_example_scua_plus_simili_is_two():
    # docs/rules/cavalloicera.md: table 2-cups, 5-cups, the previous player captured; 7-cups takes both.
    s = position({3: "9-clubs", 0: "7-cups"}, "2-cups 5-cups 9-coins", dealer=2)
    play(s, "9-clubs", "9-coins")
    assert s.table == ids("2-cups 5-cups")
    pts = play(s, "7-cups", "2-cups 5-cups")
    assert pts == [1, 0, 1, 0] and sum(pts) == 2
    assert s.bonuses[0] == [1, 0, 1, 0]


def test_bonuses_go_to_the_capturing_team():
    s = position({1: "3-coins"}, "3-cups 4-swords", dealer=0)
    play(s, "3-coins", "3-cups")
    assert s.bonuses == [[0, 0, 0, 0], [0, 0, 0, 0]]
    s = position({1: "3-coins"}, "3-cups", dealer=0)
    play(s, "3-coins", "3-cups")
    assert s.bonuses == [[0, 0, 0, 0], [1, 0, 0, 0]]
    assert s.piles[1] and not s.piles[0]


# ------------------------------------------------------------------ end of deal


def test_last_turn_scua_counts():
    # Seat 1 (team 1) plays the 48th card and sweeps the table.
    s = position({1: "9-coins"}, "4-cups 5-clubs", dealer=0, turn=NUM_TURNS - 1)
    s.last_capturer = 2
    pts = play(s, "9-coins", "4-cups 5-clubs")
    assert s.done
    assert pts[SCUA] == 1
    assert s.result()["breakdown"][1]["scua"] == 1


def test_leftovers_go_to_the_last_capturer_without_bonus():
    # Turn 47: seat 0 captures but leaves cards; turn 48: seat 1 places. Leftovers -> team 0, no scua.
    s = position({0: "3-coins", 1: "R-swords"}, "3-cups 8-clubs F-coins", dealer=3, turn=NUM_TURNS - 2)
    play(s, "3-coins", "3-cups")
    before = [b[:] for b in s.bonuses]
    play(s, "R-swords")
    assert s.done
    assert s.table == [] and s.unclaimed == []
    assert sorted(s.piles[0]) == sorted(ids("3-coins 3-cups 8-clubs F-coins R-swords"))
    assert s.piles[1] == []
    assert s.bonuses == before == [[0, 0, 0, 0], [0, 0, 0, 0]]
    assert s.result()["breakdown"][0]["scua"] == 0


def test_leftovers_follow_the_last_capturer_not_the_last_player():
    s = position({1: "R-swords"}, "8-clubs F-coins", dealer=0, turn=NUM_TURNS - 1)
    s.last_capturer = 3
    play(s, "R-swords")
    assert sorted(s.piles[1]) == sorted(ids("R-swords 8-clubs F-coins"))


def test_nobody_captured_is_a_draw_with_cards_unclaimed():
    # A whole deal of place-only moves: nobody captured, so all 52 cards stay unclaimed.
    s = CavalloiceraState.new(7)
    while not s.done:
        card = s.hands[s.current][0]
        s.play(card, ())
    assert s.last_capturer is None
    assert sorted(s.unclaimed) == list(range(52))
    assert s.piles == [[], []]
    res = s.result()
    assert res["team_points"] == [0, 0]
    assert res["winner"] is None
    assert res["cards"] == [0, 0]
    assert all(v == 0 for b in res["breakdown"] for v in b.values())
    assert s.returns("points") == [0.0] * 4 and s.returns("win") == [0.0] * 4


# ------------------------------------------------------------------ awards


def piles_with(team0: list[int]) -> list[list[int]]:
    """Team 0 holds ``team0``, team 1 everything else."""
    rest = [x for x in range(52) if x not in set(team0)]
    return [list(team0), rest]


def breakdown(piles, bonuses=((0, 0, 0, 0), (0, 0, 0, 0))):
    return score(piles, [list(b) for b in bonuses])["breakdown"]


def no_specials(cards):
    """Drop the award cards and swords so a test controls them separately."""
    return [x for x in cards if SUIT[x] != 2 and x not in (9, 23)]


def test_most_cards_scores_two():
    base = no_specials(range(52))  # 36 cards, none special
    b = breakdown(piles_with(base[:20]))  # team 0: 20, team 1: 32
    assert (b[0]["most_cards"], b[1]["most_cards"]) == (0, 2)
    b = breakdown(piles_with(base[:30]))  # 30 vs 22
    assert (b[0]["most_cards"], b[1]["most_cards"]) == (2, 0)


def test_most_cards_tie_26_26_scores_nothing():
    rng = random.Random(3)
    deck = list(range(52))
    rng.shuffle(deck)
    res = score([deck[:26], deck[26:]], [[0] * 4, [0] * 4])
    assert res["cards"] == [26, 26]
    assert res["breakdown"][0]["most_cards"] == res["breakdown"][1]["most_cards"] == 0


def test_most_swords_and_tie():
    swords = list(range(26, 39))
    others = no_specials(range(52))
    b = breakdown([swords[3:7] + others[:10], swords[7:10] + others[10:20]])  # 4 swords vs 3
    assert (b[0]["most_swords"], b[1]["most_swords"]) == (1, 0)
    b = breakdown([swords[3:6] + others[:10], swords[6:9] + others[10:20]])  # 3 vs 3
    assert (b[0]["most_swords"], b[1]["most_swords"]) == (0, 0)
    b = breakdown([others[:10], swords[9:10]])  # 0 vs 1
    assert (b[0]["most_swords"], b[1]["most_swords"]) == (0, 1)


@pytest.mark.parametrize("key,name", [("la_mata", "2-swords"), ("coins_10", "10-coins"), ("cups_fante", "F-cups")])
def test_single_card_awards(key, name):
    card = c(name)
    others = no_specials(range(52))
    b = breakdown([[card] + others[:5], others[5:30]])
    assert (b[0][key], b[1][key]) == (1, 0)
    b = breakdown([others[:5], [card] + others[5:30]])
    assert (b[0][key], b[1][key]) == (0, 1)
    b = breakdown([others[:5], others[5:30]])
    assert (b[0][key], b[1][key]) == (0, 0)


@pytest.mark.parametrize("length", range(3, 11))
def test_napula_lengths(length):
    run = list(range(26, 26 + length))  # A-swords .. length-swords
    assert napula(set(run)) == length
    # With the next sword missing but higher ones held, the run still stops at the gap.
    with_gap = set(run) | set(range(26 + length + 1, 39))
    assert napula(with_gap) == length
    b = breakdown([run, [x for x in range(52) if x not in run]])
    assert b[0]["napula"] == length
    assert b[1]["napula"] == 0


def test_napula_stops_at_ten_courts_do_not_extend():
    assert napula(set(range(26, 39))) == 10  # A..10, F, C, R of swords


@pytest.mark.parametrize("held", ["A-swords 2-swords", "2-swords 3-swords 4-swords 5-swords",
                                  "A-swords 3-swords 4-swords 5-swords", "A-swords 2-swords 4-swords 5-swords 6-swords",
                                  "A-coins 2-coins 3-coins", ""])
def test_no_napula_without_a_2_3_of_swords(held):
    assert napula(set(ids(held))) == 0


def test_total_is_bonuses_plus_awards_and_winner():
    team0 = ids("A-swords 2-swords 3-swords 4-swords 10-coins") + no_specials(range(52))[:25]
    piles = [team0, [x for x in range(52) if x not in team0]]
    res = score(piles, [[2, 1, 0, 1], [5, 0, 1, 0]])
    b0, b1 = res["breakdown"]
    assert set(b0) == set(BREAKDOWN_KEYS)
    assert res["cards"] == [30, 22]
    # team 0: bonuses 4 + most cards 2 + la mata 1 + 10-coins 1 + napula 4; swords 4 vs 9 -> team 1
    assert (b0["most_cards"], b0["la_mata"], b0["coins_10"], b0["napula"], b0["most_swords"]) == (2, 1, 1, 4, 0)
    assert (b1["most_swords"], b1["cups_fante"]) == (1, 1)
    assert res["team_points"] == [sum(b0.values()), sum(b1.values())] == [12, 8]
    assert res["winner"] == 0
    res = score(piles, [[0, 0, 0, 0], [9, 0, 1, 0]])
    assert res["team_points"] == [8, 12] and res["winner"] == 1
    res = score(piles, [[0, 0, 0, 0], [5, 0, 1, 0]])
    assert res["team_points"] == [8, 8] and res["winner"] is None
