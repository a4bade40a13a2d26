"""What the bot promises of its compiled search, the same in every game.

``ismcts:N`` runs its whole decision in the core (the game's ``core_search``)
and is repeatable; its root visits add up to the iterations and name the
legal moves; every option runs there and the options change the search;
``CAVALLO_CORE=python`` and ``engine=python`` give the Python search; a
deadline stops even a search of millions of iterations.  Each game's own
file (test_core_search.py for Briscola, test_core_search_scopa.py,
test_core_search_cavalloicera.py) checks its core against its Python search
piece by piece and, given Python's numbers, decision by decision.
"""

from __future__ import annotations

import time

import pytest

from cavallo_env import budget, games
from cavallo_env.bots import make
from cavallo_env.bots.ismcts import ISMCTSBot
from core_harness import require_core

require_core()

GAMES = ("briscola", "scopa", "cavalloicera")

#: options every game's search takes, and each game's own (its rollout, inference and opponent model)
COMMON_SPECS = ["ismcts:300", "ismcts:300,root=ucb,prior=0", "ismcts:300,expand=random,c=2",
                "ismcts:300,reward=win,depth=0", "ismcts:2"]
OWN_SPECS = {
    "briscola": ["ismcts:300,reward=mixed,rollout=greedy,eps=0.2", "ismcts:300,infer=0,win=0"],
    "scopa": ["ismcts:300,reward=mixed,epsilon=0.2", "ismcts:300,infer=0,model=0",
              "ismcts:300,lookahead=0,infer=0.5"],
    "cavalloicera": ["ismcts:300,rollout=random,reward=mixed", "ismcts:300,infer=0,hand=0.5,eps=0.3"],
}
#: specs that must each give other root visits than the others at the same position
CHANGES = {
    "briscola": ["ismcts:600,root=ucb,rollout=greedy,eps=0.5"],
    "scopa": ["ismcts:600,root=ucb,epsilon=0.5", "ismcts:600,root=ucb,model=0"],
    "cavalloicera": ["ismcts:600,root=ucb,rollout=random", "ismcts:600,root=ucb,hand=0.2"],
}


def _view(game: str, seed: int = 5, moves: int = 6) -> dict:
    """The view of the first position with three or more legal moves after ``moves`` first-legal moves."""
    g = games.get(game)
    state = g.new_state(seed)
    played = 0
    while played < moves or len(state.legal_moves()) < 3:
        assert not state.done, "the deal ended before a position with a choice"
        g.play(state, state.legal_moves()[0])
        played += 1
    return g.make_view(state, state.current)


def _decide(game: str, spec: str, view, seed: int = 3):
    """The bot's move and root visits at ``view``."""
    return make(spec, seed=seed, game=game).move_and_visits(view, games.get(game).legal_moves_of(view))


@pytest.mark.parametrize("game", GAMES)
def test_the_core_search_is_used_and_repeatable(monkeypatch, game):
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    calls = []
    hooks_type = type(games.get(game).search())
    real = hooks_type.core_search
    monkeypatch.setattr(hooks_type, "core_search", lambda self, *a, **kw: calls.append(1) or real(self, *a, **kw))
    view = _view(game)
    move, visits = _decide(game, "ismcts:400,root=ucb", view)
    assert calls and _decide(game, "ismcts:400,root=ucb", view) == (move, visits)
    assert sum(visits.values()) == 400 and move == max(visits, key=visits.get)
    assert set(visits) == set(games.get(game).legal_moves_of(view))


@pytest.mark.parametrize("game", GAMES)
def test_python_switch_and_engine_python_give_the_python_search(monkeypatch, game):
    view = _view(game, 8, 9)
    monkeypatch.setenv("CAVALLO_CORE", "python")
    want = _decide(game, "ismcts:150", view)
    monkeypatch.setattr(type(games.get(game).search()), "core_search", None)  # the hooks without the core
    assert _decide(game, "ismcts:150", view) == want
    monkeypatch.undo()
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    assert _decide(game, "ismcts:150,engine=python", view) == want


@pytest.mark.parametrize("game, spec", [(g, s) for g in GAMES for s in COMMON_SPECS + OWN_SPECS[g]])
def test_every_option_runs_in_the_core(monkeypatch, game, spec):
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    iterations = int(spec.split(",")[0].split(":")[1])
    for seed, moves in ((5, 4), (9, 13)):
        view = _view(game, seed, moves)
        move, visits = _decide(game, spec, view)
        assert move in games.get(game).legal_moves_of(view)
        assert 0 < sum(visits.values()) <= iterations


@pytest.mark.parametrize("game", GAMES)
def test_options_change_the_core_search(monkeypatch, game):
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    view = _view(game, 6, 10)
    specs = ["ismcts:600,root=ucb", "ismcts:600,root=ucb,c=3", "ismcts:600,root=ucb,prior=0,expand=random"]
    runs = {spec: _decide(game, spec, view)[1] for spec in specs + CHANGES[game]}
    assert len({tuple(sorted(v.items())) for v in runs.values()}) == len(runs)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_the_core_search_respects_the_deadline(monkeypatch, game, root):
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    bot = ISMCTSBot(5_000_000, seed=1, game=game, root=root)
    t0 = time.perf_counter()
    with pytest.raises(budget.OverBudget), budget.deadline(0.05):
        bot.choose(_view(game))
    assert time.perf_counter() - t0 < 2.0
