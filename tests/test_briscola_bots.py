"""Briscola's bots and search hooks: always legal, deterministic, the heuristic beats greedy,
the endgame solver is exact, the determinizer keeps what the seat sees."""

from __future__ import annotations

import random

import pytest

from cavallo_env.briscola import GAME
from cavallo_env.briscola.bots import GreedyBot, HeuristicBot, Know, greedy_card
from cavallo_env.briscola.endgame import endgame_scores, solve_state
from cavallo_env.briscola.cards import IDS, NAMES, NUM_CARDS
from cavallo_env.briscola.engine import BriscolaState, random_deal
from cavallo_env.briscola.search import BriscolaSearch
from cavallo_env.briscola.views import make_view
from cavallo_env.errors import ViewError

BOTS = [GreedyBot(), HeuristicBot()]


def play_deal(state, players):
    """Play to the end through views; every answer must be one of the view's legal moves."""
    while not state.done:
        seat = state.current
        view = make_view(state, seat)
        move = players[seat].choose(view)
        assert move in view["legal_moves"], (move, view["legal_moves"])
        state.play(IDS[state.deck][move["play"]])
    return state


def test_bots_always_legal_and_deterministic():
    for seed in range(40):
        deck = "bresciane" if seed % 2 else "milanesi"
        a = play_deal(random_deal(seed, deck), (BOTS[seed % 2], BOTS[1 - seed % 2]))
        b = play_deal(random_deal(seed, deck), (BOTS[seed % 2], BOTS[1 - seed % 2]))
        assert a.moves == b.moves and sum(a.points) == 120


def test_bots_legal_in_random_positions():
    rng = random.Random(7)
    for seed in range(150):
        s = random_deal(seed, "bresciane" if seed % 3 == 0 else "milanesi")
        for _ in range(rng.randrange(40)):
            s.play(rng.choice(s.legal_moves()))
        view = make_view(s, s.current)
        for bot in BOTS:
            assert bot.choose(view) in view["legal_moves"]


def test_bots_refuse_other_games_and_bad_views():
    s = random_deal(1)
    view = make_view(s, s.current)
    for bot in BOTS:
        with pytest.raises(ViewError):
            bot.choose(dict(view, game="scopa"))
        with pytest.raises(ValueError, match="no legal moves"):
            bot.choose(make_view(s, 1 - s.current))


def test_greedy_rules():
    ids = IDS["milanesi"]
    hearts = 0  # trump suit index of hearts
    # answering an ace: take it with the lowest trump rather than the big one
    assert greedy_card([ids["A-hearts"], ids["2-hearts"], ids["4-clubs"]], ids["A-spades"], hearts) == ids["2-hearts"]
    # a card of the suit led that wins keeps the trumps
    assert greedy_card([ids["2-hearts"], ids["3-spades"]], ids["K-spades"], hearts) == ids["3-spades"]
    # nothing to gain: throw the cheapest card, never a trump first
    assert greedy_card([ids["2-hearts"], ids["K-clubs"], ids["5-diamonds"]], ids["4-spades"], hearts) == ids["5-diamonds"]
    # leading: the lowest-value card
    assert greedy_card([ids["A-clubs"], ids["J-clubs"], ids["7-hearts"]], None, hearts) == ids["J-clubs"]


def _know(s, seat):
    return Know.from_view(make_view(s, seat))


def test_heuristic_keeps_trumps_and_takes_loaded_tricks():
    ids = IDS["milanesi"]
    rest = [c for c in range(NUM_CARDS)]
    hands = [[ids["A-hearts"], ids["2-hearts"], ids["5-clubs"]], [ids["A-spades"], ids["4-spades"], ids["6-clubs"]]]
    trump = ids["7-hearts"]
    stock = [c for c in rest if c not in hands[0] + hands[1] + [trump]]
    bot = HeuristicBot()
    # the other leads a worthless card: throw the liscio, keep the trumps
    s = BriscolaState(hands, trump, stock, 1)
    s.play(ids["4-spades"])
    assert bot.choose(make_view(s, 0)) == {"play": "5-clubs"}
    # the other leads an ace: take it with the cheapest trump
    s = BriscolaState(hands, trump, stock, 1)
    s.play(ids["A-spades"])
    assert bot.choose(make_view(s, 0)) == {"play": "2-hearts"}
    # leading: a liscio, not the trump ace
    s = BriscolaState(hands, trump, stock, 0)
    assert bot.choose(make_view(s, 0)) == {"play": "5-clubs"}


def test_endgame_solver_is_exact():
    # against a brute force over every line of play of the last tricks
    def brute(state):
        if state.done:
            return state.points[0] - state.points[1]
        vals = []
        for c in state.legal_moves():
            t = state.copy()
            t.play(c)
            vals.append(brute(t))
        return max(vals) if state.current == 0 else min(vals)

    rng = random.Random(3)
    for seed in range(25):
        s = random_deal(seed)
        while len(s.stock) > (seed % 2) or (s.trick and seed % 3):
            s.play(rng.choice(s.legal_moves()))
        assert solve_state(s) == brute(s)
    s = random_deal(99)
    while s.stock:
        s.play(rng.choice(s.legal_moves()))
    k = Know.from_state(s, s.current)
    scores = endgame_scores(k, s.legal_moves())
    assert scores is not None and len(scores) == len(s.legal_moves())
    assert Know.from_state(random_deal(1), 0) and endgame_scores(Know.from_state(random_deal(1), 0), [0]) is None


def _duplicate(a, b, deals):
    score = 0.0
    for i in range(deals):
        for swap in (0, 1):
            s = play_deal(random_deal(10_000 + i, "bresciane" if i % 2 else "milanesi"), (b, a) if swap else (a, b))
            mine = s.points[1 if swap else 0]
            score += 1.0 if mine > 60 else 0.5 if mine == 60 else 0.0
    return score / (2 * deals)


def test_heuristic_beats_greedy():
    assert _duplicate(HeuristicBot(), GreedyBot(), 100) > 0.55


# ---------------------------------------------------------------- search hooks


@pytest.mark.parametrize("options", [{}, {"infer": 1.0}])
def test_determinizer_keeps_what_the_seat_sees(options):
    hooks = GAME.search(**options)
    rng = random.Random(0)
    for seed in range(30):
        s = random_deal(seed)
        for _ in range(rng.randrange(40)):
            s.play(rng.choice(s.legal_moves()))
        seat = s.current
        det = hooks.determinizer(s, seat)
        view = make_view(s, seat)
        seen = set()
        for _ in range(5):
            d = det(rng)
            assert make_view(d, seat) == view
            assert sorted(d.hands[1 - seat] + list(d.stock)) == sorted(s.hands[1 - seat] + list(s.stock))
            if s.trump_holder == 1 - seat and s.trump in s.hands[1 - seat]:
                assert s.trump in d.hands[1 - seat]
            seen.add((tuple(sorted(d.hands[1 - seat])), d.stock))
        if len(s.stock) >= 2:
            assert len(seen) > 1
        assert s.hands == s.copy().hands  # base untouched


def test_search_hooks_values():
    hooks = BriscolaSearch()
    rng = random.Random(1)
    for seed in range(20):
        s = random_deal(seed)
        assert hooks.team(s) == s.current
        t = s.copy()
        hooks.rollout(t, rng, 40)  # the smart rollout stops once the stock is empty
        assert t.stock == () and not t.trick and len(t.moves) == 34
        assert hooks.evaluate(t) == solve_state(t, hooks.win)
        assert BriscolaSearch(win=0).evaluate(t) == solve_state(t)
        g = s.copy()
        BriscolaSearch(rollout="greedy").rollout(g, rng, 40)
        d = g.points[0] - g.points[1]
        assert g.done and hooks.evaluate(g) == d + hooks.win * ((d > 0) - (d < 0))
        assert BriscolaSearch(win=0).evaluate(g) == d
        u = s.copy()
        hooks.rollout(u, rng, 5)
        assert len(u.moves) == 5
        v = hooks.evaluate(u)
        assert -120 - hooks.win <= v <= 120 + hooks.win
        view = make_view(s, s.current)
        scores = hooks.prior_scores(view, s.legal_moves())
        assert len(scores) == len(s.legal_moves())
        for m in s.legal_moves():
            assert isinstance(hooks.quick_score(s, m), float | int)
    with pytest.raises(ValueError):
        BriscolaSearch(epsilon=2.0)
    with pytest.raises(ValueError):
        BriscolaSearch(rollout="random")
    with pytest.raises(ValueError):
        BriscolaSearch(win=-1)
    with pytest.raises(ValueError):
        BriscolaSearch(infer=1.5)


def test_hold_weights_read_the_plays():
    from cavallo_env.briscola.cards import POINTS, SUIT
    from cavallo_env.briscola.search import hold_weights, lack_facts

    # trump hearts (suit 0); seat 1 lets seat 0's A-diamonds (10) go with 2-spades (31): no trump, no
    # card of diamonds beats an ace
    moves = [(0, 10), (1, 31)]
    facts = lack_facts(moves, 1, 0)
    kinds = {k for k, _, _ in facts}
    assert "lost_carico" in kinds
    w = hold_weights(moves, 1, 0, 1.0)
    w_none = hold_weights([], 1, 0, 1.0)
    assert all(w[c] < w_none[c] for c in range(10))  # the trumps are less likely now
    assert w_none[0] > w_none[11]  # a trump is likelier in hand than a side liscio
    assert hold_weights([], 1, 0, 0.0) == [1.0] * 40
    assert all(SUIT[c] == 0 for k, cards, _ in facts if k == "lost_carico" for c in cards)
    assert POINTS[10] == 11


def test_ismcts_plays_briscola():
    from cavallo_env.bots.ismcts import ISMCTSBot

    bot = ISMCTSBot(60, seed=1, game="briscola")
    s = random_deal(5)
    for _ in range(7):
        s.play(s.legal_moves()[0])
    view = make_view(s, s.current)
    move = bot.choose_move(view, GAME.legal_moves_of(view))
    assert move in s.legal_moves()
    assert NAMES["milanesi"][move] in [m["play"] for m in view["legal_moves"]]
