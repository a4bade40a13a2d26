"""Bots: legal moves only, seeded determinism, statelessness, spec errors, and
checks of the heuristic's and the search's building blocks against brute force."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from cavallo_env.bots import BotSpecError, make
from cavallo_env.cavalloicera.bots import HeuristicBot, award_values, expected_best_reply, expected_napula_diff
from cavallo_env.bots.ismcts import ISMCTSBot, from_spec
from cavallo_env.cavalloicera.search import greedy_rollout, quick_score, random_rollout, static_eval
from cavallo_env.cavalloicera.cards import LA_MATA, NUM_CARDS, card_id
from cavallo_env.cavalloicera.engine import NUM_TURNS, CavalloiceraState
from cavallo_env.cavalloicera.views import make_view, move_from_dict
from positions import random_position


def positions(n: int, seed: int):
    rng = random.Random(seed)
    return [random_position(rng) for _ in range(n)]


@pytest.mark.parametrize("spec,count", [("random", 2000), ("greedy", 2000), ("heuristic", 2000), ("ismcts:50", 120)])
def test_bots_return_legal_moves(spec, count):
    bot = make(spec, seed=1)
    for state in positions(count, seed=hash(spec) % 1000):
        view = make_view(state, state.current)
        answer = bot.choose(view)
        assert answer in view["legal_moves"], (spec, answer)
        card, capture = move_from_dict(answer)
        assert state.check_move(card, capture) is None


def test_heuristic_plays_whole_deals_legally_in_every_seat():
    bots = [make("heuristic", seed=s) for s in range(4)]
    for seed in range(30):
        state = CavalloiceraState.new(seed)
        while not state.done:
            view = make_view(state, state.current)
            answer = bots[state.current].choose(view)
            assert answer in view["legal_moves"]
            state.play(*move_from_dict(answer))
        assert state.result()["cards"][0] + state.result()["cards"][1] + len(state.unclaimed) == NUM_CARDS


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "ismcts:40"])
def test_bots_are_deterministic_for_a_seed(spec):
    views = [make_view(s, s.current) for s in positions(25, seed=7)]
    a = [make(spec, seed=42).choose(v) for v in views]
    b = [make(spec, seed=42).choose(v) for v in views]
    assert a == b


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "ismcts:40"])
def test_bots_are_stateless_between_calls(spec):
    """The answer to a view does not depend on which views (seats) came before."""
    views = [make_view(s, s.current) for s in positions(20, seed=8)]
    forward_bot = make(spec, seed=9)
    forward = [forward_bot.choose(v) for v in views]
    backward_bot = make(spec, seed=9)
    backward = [backward_bot.choose(v) for v in reversed(views)][::-1]
    assert forward == backward
    # and asking twice in a row gives the same answer
    assert [forward_bot.choose(v) for v in views[:5]] == forward[:5]


def test_ismcts_seed_changes_the_search():
    """Different seeds draw different determinizations (some answer differs)."""
    views = [make_view(s, s.current) for s in positions(40, seed=10) if len(s.legal_moves()) > 4]
    a = [make("ismcts:30", seed=1).choose(v) for v in views]
    b = [make("ismcts:30", seed=2).choose(v) for v in views]
    assert a != b


@pytest.mark.parametrize("spec", [
    "", "nosuch", "heuristic:3", "greedy:x", "ismcts", "ismcts:", "ismcts:abc", "ismcts:0", "ismcts:-5",
    "ismcts:1.5", "ismcts:100,foo=1", "ismcts:100,rollout=bogus", "ismcts:100,c=-1", "ismcts:100,c=abc",
    "ismcts:100,depth=99", "ismcts:100,reward=money", "ismcts:100,epsilon=2", "ismcts:100,expand=best",
    "ismcts:100,depth", "ismcts:100,root=top", "ismcts:100,hand=1.5", "ismcts:100,infer=-1", "ismcts:100,prior=-1",
])
def test_bad_specs_raise_bot_spec_error(spec):
    with pytest.raises(BotSpecError) as err:
        make(spec, seed=0)
    assert str(err.value)


def test_ismcts_spec_options():
    bot = from_spec("300,rollout=random,c=0.3,reward=win,scale=5,epsilon=0,depth=6,prior=2,expand=random,"
                    "infer=0.5,hand=0.6,root=ucb", seed=3, game="cavalloicera")
    assert isinstance(bot, ISMCTSBot)
    assert (bot.iterations, bot.exploration, bot.reward, bot.scale, bot.depth, bot.prior,
            bot.expand, bot.root) == (300, 0.3, "win", 5.0, 6, 2.0, "random", "ucb")
    assert bot.hooks("cavalloicera").options() == {"rollout": "random", "epsilon": 0.0, "infer": 0.5, "hand": 0.6}
    assert make("ismcts:1000", seed=0).iterations == 1000


def test_bot_refuses_a_view_without_legal_moves():
    state = CavalloiceraState.new(3)
    view = make_view(state, (state.current + 1) % 4)
    for spec in ("random", "greedy", "heuristic", "ismcts:10"):
        with pytest.raises(ValueError, match="no legal moves"):
            make(spec, seed=0).choose(view)


# ---------------------------------------------------------------- heuristic parts


def test_expected_napula_diff_known_values():
    assert expected_napula_diff([1.0] * 10) == 10.0
    assert expected_napula_diff([0.0] * 10) == -10.0
    assert expected_napula_diff([1, 1, 1, 0, 1, 1, 1, 1, 1, 1]) == 3.0
    assert expected_napula_diff([1, 1, 0.0] + [1.0] * 7) == 0.0
    assert expected_napula_diff([0.5] * 10) == pytest.approx(0.0)
    # A, 2, 3 ours, 4 a coin flip, 5.. theirs: 3 + 0.5 points
    assert expected_napula_diff([1, 1, 1, 0.5, 0, 0, 0, 0, 0, 0]) == pytest.approx(3.5)


def test_award_values_follow_the_piles():
    v = award_values([], [])
    assert v[LA_MATA] > 1.0 and v[card_id("10-coins")] >= 1.0 and v[card_id("F-cups")] >= 1.0
    assert v[card_id("A-swords")] > v[card_id("9-swords")] > v[card_id("9-cups")] > 0
    # once we have 27 cards, a plain card is worth nothing more; nor once they have
    nine_cups = card_id("9-cups")
    mine = [c for c in range(NUM_CARDS) if c != nine_cups][:27]
    assert award_values(mine, [])[nine_cups] == 0.0
    assert award_values([], mine)[nine_cups] == 0.0
    # the last sword at 6-6 decides "most swords" (+1 point of value); at 7-5 it decides nothing
    sw = {r: card_id(f"{r}-swords") for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F", "C", "R")}
    mine = [sw[r] for r in ("4", "5", "6", "7", "8", "9")]
    theirs = [sw[r] for r in ("A", "2", "3", "F", "C", "R")]
    even = award_values(mine + [nine_cups], theirs)[sw["10"]]
    decided = award_values(mine + [sw["R"]], theirs[:-1] + [nine_cups])[sw["10"]]  # same card counts
    assert even - decided == pytest.approx(1.0)


def _brute_force_best_reply(table, prev, values, unseen, n):
    """Average over every hand of n unseen cards of the best immediate gain."""
    from cavallo_env.cavalloicera.engine import capture_points

    total = 0.0
    count = 0
    for hand in itertools.combinations(unseen, n):
        best = 0.0
        state = CavalloiceraState([list(hand), [], [], []], [], 3)
        state.table = sorted(table)
        state.prev_placed = prev
        for card, cap in state.legal_moves():
            if cap:
                empty = len(cap) == len(table)
                g = sum(capture_points(card, cap, empty, prev)) + values[card] + sum(values[t] for t in cap)
                best = max(best, g)
        total += best
        count += 1
    return total / count


@pytest.mark.parametrize("seed", range(6))
def test_expected_best_reply_is_exact_for_random_hands(seed):
    rng = random.Random(seed)
    deck = list(range(NUM_CARDS))
    rng.shuffle(deck)
    table = sorted(deck[:rng.randrange(1, 6)])
    unseen = sorted(deck[10:22])
    n = rng.choice([1, 2, 3])
    prev = rng.choice([None, table[-1]])
    values = award_values([], [])
    expected, p_any = expected_best_reply(table, prev, values, unseen, n)
    assert expected == pytest.approx(_brute_force_best_reply(table, prev, values, unseen, n))
    assert 0.0 <= p_any <= 1.0


def test_heuristic_takes_a_picada_scua():
    # The previous player placed 5-cups on an empty table; we hold 5-coins.
    view = {
        "seat": 0, "dealer": 2, "hand": ["5-coins", "R-cups"], "table": ["5-cups"],
        "hand_sizes": [2, 1, 1, 1], "piles": [[], []],
        "history": [], "legal_moves": [],
    }
    legal = [(card_id("5-coins"), ()), (card_id("5-coins"), (card_id("5-cups"),)), (card_id("R-cups"), ())]
    view["history"] = [{"seat": 3, "play": "5-cups", "capture": []}]
    scores = HeuristicBot().move_scores(view, legal)
    assert max(range(3), key=scores.__getitem__) == 1


def last_move_margins(state, legal) -> list:
    """For each legal move of the last turn, the mover's team's final point margin."""
    team = state.current % 2
    finals = []
    for card, cap in legal:
        s = state.copy()
        s.play(card, cap)
        tp = s.result()["team_points"]
        finals.append(tp[team] - tp[1 - team])
    return finals


def test_heuristic_endgame_is_exact_on_the_last_turn():
    rng = random.Random(4)
    greedy = make("greedy", seed=0)
    bot = make("heuristic", seed=0)
    checked = 0
    for _ in range(40):
        state = random_position(rng, turn=NUM_TURNS - 1)
        legal = state.legal_moves()
        if len(legal) < 2:
            continue
        finals = last_move_margins(state, legal)
        answer = move_from_dict(bot.choose(make_view(state, state.current)))
        assert finals[legal.index(answer)] == max(finals)
        greedy.choose(make_view(state, state.current))
        checked += 1
    assert checked >= 10


# ---------------------------------------------------------------- ismcts parts


def test_static_eval_is_exact_at_the_end_and_bounded_before():
    rng = random.Random(5)
    for _ in range(50):
        state = random_position(rng)
        v = static_eval(state)
        assert math.isfinite(v) and -60 <= v <= 60
        random_rollout(state, rng)
        tp = state.result()["team_points"]
        assert static_eval(state) == tp[0] - tp[1]


def test_greedy_rollout_plays_legal_moves_to_the_end():
    rng = random.Random(6)
    for i in range(100):
        state = random_position(rng)
        shadow = state.copy()
        greedy_rollout(state, rng, epsilon=0.2)
        assert state.done
        for seat, card, cap in state.moves[shadow.turn:]:
            assert shadow.check_move(card, cap) is None
            shadow.play(card, cap)
        assert shadow.result() == state.result()


def test_greedy_rollout_stops_after_plies():
    state = CavalloiceraState.new(1)
    greedy_rollout(state, random.Random(0), epsilon=0.0, plies=5)
    assert state.turn == 5


def test_quick_score_prefers_captures_with_bonuses():
    state = CavalloiceraState.new(2)
    moves = state.legal_moves()
    places = [quick_score(state, m) for m in moves if not m[1]]
    caps = [quick_score(state, m) for m in moves if m[1]]
    if caps:
        assert min(caps) > max(places)


@pytest.mark.parametrize("spec", ["ismcts:60", "ismcts:60,root=halving", "ismcts:60,rollout=random,depth=48,prior=0"])
def test_ismcts_finds_the_best_last_move(spec):
    """On the last turn there is nothing hidden: the search must pick a best move."""
    rng = random.Random(12)
    checked = 0
    for _ in range(30):
        state = random_position(rng, turn=NUM_TURNS - 1)
        legal = state.legal_moves()
        if len(legal) < 2:
            continue
        finals = last_move_margins(state, legal)
        answer = move_from_dict(make(spec, seed=1, game="cavalloicera").choose(make_view(state, state.current)))
        assert finals[legal.index(answer)] == max(finals)
        checked += 1
    assert checked >= 5


def test_inference_of_missing_ranks():
    from cavallo_env.cavalloicera.search import infer_missing_ranks

    rank_a, rank_5, rank_9, rank_r = 0, 4, 8, 12
    # dealer 3: seat 0 plays first.
    hands = [[card_id(n) for n in names] for names in (
        ["5-coins"] + [f"{r}-clubs" for r in ("A", "2", "3", "4", "6", "7", "8", "9", "10", "F", "C")],
        ["R-coins"] + [f"{r}-cups" for r in ("A", "2", "3", "4", "6", "7", "8", "9", "10", "F", "C")],
        ["R-cups"] + [f"{r}-swords" for r in ("A", "2", "3", "4", "6", "7", "8", "9", "10", "F", "C")],
        ["5-cups", "R-swords", "R-clubs", "A-coins", "2-coins", "3-coins", "4-coins", "6-coins", "7-coins",
         "8-coins", "9-coins", "10-coins"],
    )]
    table = [card_id(n) for n in ("F-coins", "C-coins", "5-swords", "5-clubs")]
    state = CavalloiceraState(hands, table, 3)
    state.play(card_id("5-coins"), ())  # no picada possible on the first turn: nothing inferred
    state.play(card_id("R-coins"), ())  # seat 1 passes up the picada of 5-coins
    state.play(card_id("6-swords"), ())  # seat 2 passes up the picada of R-coins
    assert infer_missing_ranks(state, 3) == {0: set(), 1: {rank_5}, 2: {rank_r}}
    state.play(card_id("R-swords"), (card_id("R-coins"),))  # seat 3 takes it (a picada)
    state.play(card_id("A-clubs"), ())  # seat 0 places after a capture: nothing inferred
    state.play(card_id("A-cups"), ())  # seat 1 passes up A-clubs *with* an ace: not inferred
    assert infer_missing_ranks(state, 2) == {0: set(), 1: {rank_5}, 3: set()}
    state.play(card_id("R-cups"), ())  # seat 2 passes up A-cups, then ...
    state.play(card_id("R-clubs"), (card_id("R-cups"),))
    state.play(card_id("2-clubs"), ())
    assert rank_a in infer_missing_ranks(state, 1)[2]
    # ... a later play of the rank by the same seat drops the inference
    state.play(card_id("2-cups"), (card_id("2-clubs"),))
    state.play(card_id("A-swords"), ())
    assert rank_a not in infer_missing_ranks(state, 3)[2]

    # a single card left alone on the table that the next seat does not take for a scùa
    hands = [[card_id(n) for n in names] for names in (
        ["7-coins"] + [f"{r}-clubs" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F")],
        ["R-coins"] + [f"{r}-cups" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "10", "F", "C")],
        [f"{r}-swords" for r in ("3", "5", "6", "7", "8", "10", "F", "C", "R")] + ["9-cups", "R-cups", "C-clubs"],
        [f"{r}-coins" for r in ("A", "2", "3", "4", "5", "6", "8", "9", "10", "F", "C")] + ["R-clubs"],
    )]
    table = [card_id(n) for n in ("A-swords", "2-swords", "4-swords", "9-swords")]
    state = CavalloiceraState(hands, table, 3)
    state.play(card_id("7-coins"), tuple(card_id(n) for n in ("A-swords", "2-swords", "4-swords")))
    state.play(card_id("R-coins"), ())  # 9-swords alone: seat 1 passes up a scùa with any 9
    assert infer_missing_ranks(state, 2) == {0: set(), 1: {rank_9}, 3: set()}


def test_constrained_deal_respects_sizes_and_preferences():
    from cavallo_env.cavalloicera.search import _deal_constrained

    rng = random.Random(3)
    pool = list(range(20))
    others = [1, 2, 3]
    sizes = [7, 7, 6]
    missing = {1: {0, 1}, 2: {2}, 3: set()}
    for _ in range(200):
        hands = _deal_constrained(pool[:], others, sizes, missing, 1.0, rng)
        assert [len(h) for h in hands] == sizes
        assert sorted(c for h in hands for c in h) == pool
        assert all(c % 13 not in {0, 1} for c in hands[0])
        assert all(c % 13 != 2 for c in hands[1])


def test_random_bot_is_stateless_and_seeded():
    # The same view gets the same move whatever was asked before; another seed may differ.
    from cavallo_env.cavalloicera.engine import CavalloiceraState
    from cavallo_env.cavalloicera.views import make_view

    views = []
    for seed in range(20):
        s = CavalloiceraState.new(seed)
        views.append(make_view(s, s.current))
    a = make("random", seed=7)
    first = [a.choose(v) for v in views]
    b = make("random", seed=7)
    assert [b.choose(v) for v in reversed(views)] == list(reversed(first))
    c = make("random", seed=8)
    assert [c.choose(v) for v in views] != first


# ---------------------------------------------------------------- every game: answers, foreign views, bad views

GAMES = ("cavalloicera", "briscola", "scopa")
EVERY_SPEC = ("random", "greedy", "heuristic", "ismcts:20")


def _game_views(name: str, n: int, seed: int = 0) -> list[dict]:
    """Views of ``name`` to play; for the capture games each offers a capture of two cards or more."""
    from cavallo_env import games

    game = games.get(name)
    rng = random.Random(seed)
    out = []
    s = seed
    while len(out) < n:
        state = game.new_state(s)
        s += 1
        while not state.done and len(out) < n:
            view = game.make_view(state, state.current)
            legal = view["legal_moves"]
            if len(legal) > 1 and (name == "briscola" or any(len(m["capture"]) > 1 for m in legal)):
                out.append(view)
                for _ in range(rng.randrange(1, 8)):  # skip ahead: different positions
                    if state.done:
                        break
                    game.play(state, rng.choice(state.legal_moves()))
                continue
            game.play(state, rng.choice(state.legal_moves()))
    return out


def _reordered(view: dict) -> dict:
    """The same view with its legal moves listed backwards and every capture's cards in reverse id order."""
    out = dict(view)
    out["legal_moves"] = [dict(m, capture=m["capture"][::-1]) if "capture" in m else dict(m)
                          for m in reversed(view["legal_moves"])]
    return out


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", EVERY_SPEC)
@pytest.mark.parametrize("for_game", [False, True], ids=["any-game", "game="])
def test_bots_answer_with_the_views_own_move_dict(name, spec, for_game):
    """Whatever order a view lists its moves and their captured cards in, a bot returns one of its dicts."""
    bot = make(spec, seed=5, game=name if for_game else None)
    for view in _game_views(name, 12, seed=31):
        view = _reordered(view)
        answer = bot.choose(view)
        assert any(answer is m for m in view["legal_moves"]), (spec, answer)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", EVERY_SPEC)
def test_bots_made_for_a_game_refuse_other_games_views(name, spec):
    from cavallo_env.errors import ViewError

    bot = make(spec, seed=1, game=name)
    for other in GAMES:
        view = _game_views(other, 1, seed=4)[0]
        if other == name:
            assert bot.choose(view) in view["legal_moves"]
        else:
            with pytest.raises(ViewError, match=f"this bot plays {name}, but the view is of {other}"):
                bot.choose(view)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", EVERY_SPEC)
def test_bots_on_a_view_missing_a_field_raise_view_error(name, spec):
    """No bare KeyError: a bot either plays without the field or raises ``ViewError``."""
    from cavallo_env.errors import ViewError

    view = _game_views(name, 1, seed=9)[0]
    bot = make(spec, seed=2)
    for field in view:
        if field == "game":
            continue
        partial = {k: v for k, v in view.items() if k != field}
        try:
            answer = bot.choose(partial)
        except ViewError as e:
            assert field in str(e) or field == "deck", (field, str(e))
        else:
            assert answer in view["legal_moves"]


@pytest.mark.parametrize("name,spec,field", [
    ("cavalloicera", "heuristic", "piles"), ("cavalloicera", "heuristic", "hand_sizes"),
    ("cavalloicera", "ismcts:20", "piles"), ("cavalloicera", "ismcts:20", "hand_sizes"),
    ("cavalloicera", "greedy", "table"), ("cavalloicera", "greedy", "history"),
    ("cavalloicera", "random", "legal_moves"),
    ("scopa", "greedy", "seat"), ("scopa", "greedy", "table"), ("scopa", "greedy", "piles"),
    ("scopa", "heuristic", "seat"), ("scopa", "heuristic", "table"), ("scopa", "heuristic", "piles"),
    ("scopa", "ismcts:20", "piles"), ("scopa", "ismcts:20", "hand_sizes"),
])
def test_bots_name_the_missing_view_field(name, spec, field):
    from cavallo_env.errors import ViewError

    view = _game_views(name, 1, seed=9)[0]
    del view[field]
    with pytest.raises(ViewError, match=f"'{field}'"):
        make(spec, seed=2, game=name).choose(view)
