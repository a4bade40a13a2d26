"""``search:<game>`` (cavallo_env/bots/search.py): the network-guided search in the core.

What the bot promises: legal moves through whole deals, the same move for the
same view without a time budget, root visits that add up, its time budget
and the caller's deadline kept, the model read from an exported ``.onnx`` or
a checkpoint alike, and clear errors for bad options and games without it.
Its strength is the duplicate match of docs/experiments/search-network.md.
"""

from __future__ import annotations

import time

import pytest

from cavallo_env import budget, games
from cavallo_env.bots import BotSpecError, make
from core_harness import require_core

require_core()

from cavallo_env.bots import search as search_bot  # noqa: E402
from cavallo_env.bots.policy import ModelError  # noqa: E402

GAME = games.get("briscola")
FIXED = "search:briscola,ms=0,iterations=200"


def _views(deals: int, bot, seed: int = 3):
    """Every view of ``deals`` deals in which ``bot`` plays both seats (a view with a choice
    first in each pair: (view, its legal moves))."""
    out = []
    for k in range(deals):
        state = GAME.new_state(seed=seed + k)
        while not state.done:
            view = GAME.make_view(state, state.current)
            move = bot.choose(view)
            assert move in view["legal_moves"]
            out.append(view)
            GAME.play(state, GAME.move_from_dict(move))
    return out


def test_it_plays_whole_deals_and_the_same_view_gets_the_same_move():
    bot = make(FIXED, seed=5)
    views = _views(2, bot)
    again = make(FIXED, seed=5)
    assert [again.choose(v) for v in views[::5]] == [bot.choose(v) for v in views[::5]]


def _root_decision(spec: str) -> tuple[list, object, dict]:
    """The legal moves, the move and the root visits of ``spec`` at the first decision of deal 11 (bot seed 1)."""
    bot = make(spec, seed=1, game="briscola")
    state = GAME.new_state(seed=11)
    view = GAME.make_view(state, state.current)
    legal = GAME.legal_moves_of(view)
    return (legal, *bot.move_and_visits(view, legal))


@pytest.mark.parametrize("leaf", ["value", "rollout", "mix,lambda=0.3"])
def test_the_root_visits_add_up(leaf):
    legal, move, visits = _root_decision(f"search:briscola,ms=0,iterations=300,leaf={leaf}")
    assert move in legal and set(visits) == set(legal)
    assert sum(visits.values()) == 300
    assert visits[move] == max(visits.values())


def test_halving_at_the_root_spends_the_iterations_on_every_card_then_the_better_half():
    legal, move, visits = _root_decision("search:briscola,ms=0,iterations=300,root=halving")
    assert len(legal) == 3 and sum(visits.values()) == 300
    assert sorted(visits.values()) == [50, 125, 125]  # 50 each in round one, the better two 75 more
    assert move in legal and visits[move] == 125


def test_fpu_base_parent_counts_an_unvisited_move_at_its_visited_siblings_mean_plus_fpu():
    # without exploration (c_puct=0) PUCT is greedy on Q, ties going to the first move: an unvisited
    # move counting exactly the visited one's mean never overtakes it, one counting the mean + 10 always does
    legal, _, visits = _root_decision("search:briscola,ms=0,iterations=300,c_puct=0,fpu_base=parent")
    assert len(legal) == 3 and visits[legal[0]] == 300
    legal, _, visits = _root_decision("search:briscola,ms=0,iterations=300,c_puct=0,fpu_base=parent,fpu=10")
    assert min(visits.values()) >= 1 and sum(visits.values()) == 300
    # and it is Briscola's default, which fpu_base=zero changes
    assert _root_decision(f"{FIXED},fpu_base=parent")[2] == _root_decision(FIXED)[2]
    assert _root_decision(f"{FIXED},fpu_base=zero")[2] != _root_decision(FIXED)[2]


def test_the_time_budget_bounds_a_decision():
    bot = make("search:briscola,ms=20,iterations=100000", seed=1)
    state = GAME.new_state(seed=4)
    view = GAME.make_view(state, state.current)
    start, cpu = time.perf_counter(), time.thread_time()
    move, visits = bot.move_and_visits(view, GAME.legal_moves_of(view))
    assert time.thread_time() - cpu < 0.2  # 20 ms of this thread's CPU time, and the view's checks
    assert time.perf_counter() - start < 1.5  # the wall-clock cap (1 s) on a busy machine
    assert 10 < sum(visits.values()) < 100000
    capped = make("search:briscola,ms=60000,wall_ms=30,iterations=100000", seed=1)
    start = time.perf_counter()
    capped.choose(view)
    assert time.perf_counter() - start < 0.5


def test_the_callers_deadline_abandons_the_search():
    bot = make("search:briscola,ms=0,iterations=100000", seed=1)
    state = GAME.new_state(seed=4)
    with pytest.raises(budget.OverBudget), budget.deadline(0.02):
        bot.choose(GAME.make_view(state, state.current))


def test_a_checkpoint_and_its_export_search_alike():
    state = GAME.new_state(seed=8)
    view = GAME.make_view(state, state.current)
    legal = GAME.legal_moves_of(view)
    onnx = make(f"{FIXED},model=cavallo_env/models/briscola.onnx", seed=2)
    checkpoint = make(f"{FIXED},model=checkpoints/briscola.json", seed=2)
    assert onnx.move_and_visits(view, legal) == checkpoint.move_and_visits(view, legal)
    assert checkpoint.info["model"] == "checkpoints/briscola.json"


def test_search_default_plays_the_views_game(monkeypatch):
    bot = make("search:default,ms=0,iterations=100", seed=1)
    for name in ("briscola", "scopa"):
        game = games.get(name)
        state = game.new_state(seed=2)
        view = game.make_view(state, state.current)
        assert bot.choose(view) in view["legal_moves"]
    monkeypatch.delitem(search_bot.SEARCHES, "scopa")  # a game without a search of its own
    scopa = games.get("scopa").new_state(seed=1)
    with pytest.raises(BotSpecError, match="no network-guided search"):
        make("search:default,ms=0,iterations=100", seed=1).choose(games.get("scopa").make_view(scopa, scopa.current))
    with pytest.raises(BotSpecError, match="no network-guided search in the core yet"):
        make("search:scopa")


@pytest.mark.parametrize("spec, message", [
    ("search:", "search needs a game"),
    ("search:chess", "names a game"),
    ("search:briscola,ms=-1", "ms must be"),
    ("search:briscola,ms=x", "is not a number"),
    ("search:briscola,wall_ms=0", "wall_ms must be"),
    ("search:briscola,iterations=0", "iterations must be"),
    ("search:briscola,iterations=1000000", "iterations must be"),
    ("search:briscola,c_puct=-1", "c_puct must be"),
    ("search:briscola,temp=0", "temp must be"),
    ("search:briscola,leaf=guess", "unknown search leaf"),
    ("search:briscola,lambda=2", "lambda must be"),
    ("search:briscola,fpu=nan", "fpu must be"),
    ("search:briscola,fpu_base=grandparent", "unknown search fpu_base 'grandparent'; known: zero, parent"),
    ("search:briscola,depth=99", "depth must be"),
    ("search:briscola,rollout=wild", "unknown Briscola rollout"),
    ("search:briscola,colour=red", "unknown search option 'colour'"),
    ("search:briscola,500", "must look like key=value"),
    # search:default checks every game's options when it is built, not at a game's first decision
    ("search:default,ms=-5", "ms must be"),
    ("search:default,lookahead=0.5", r"Briscola's search; an option of one game only needs search:<game>"),
    ("search:default,opponent=0", "unexpected keyword argument 'opponent'"),
    ("search:scopa,opponent=7", "opponent must be 0 or 1"),
])
def test_bad_options_are_refused_by_name(spec, message):
    with pytest.raises(BotSpecError, match=message):
        make(spec)


def test_a_bad_model_is_refused():
    with pytest.raises(ModelError, match="a model of scopa, not briscola"):
        make("search:briscola,model=cavallo_env/models/scopa.onnx")
    with pytest.raises(ModelError, match="not found"):
        make("search:briscola,model=no/such.onnx")
    with pytest.raises(BotSpecError, match="plays briscola, not scopa"):
        make("search:briscola", game="scopa")
