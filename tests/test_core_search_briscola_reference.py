"""Briscola's searches in the core against their recorded decisions (tests/data/briscola_search_reference.json).

The file was recorded by the core of the commit before Briscola's search moved onto the generic
tree (core/ismcts_tree.c): ``ismcts`` on the fast numbers and on Python's, with and without a
prior, and the network-guided search (search:briscola) with a fixed number of iterations and no
time budget, its root by PUCT and by halving, its leaves valued by the network, the rollout and
a mix.  The decisions with ``fpu_base=parent`` (a move not visited yet counting its position's
mean) were added on 2026-12-07 by the commit that made it Briscola's default; the bots' other
search specs spell ``fpu_base=zero``, the default they were recorded with.  Every move and every
root visit count must stay the same, bit for bit.

Record again (only when a change is meant to change the searches):
``python tests/test_core_search_briscola_reference.py --record``.
"""

from __future__ import annotations

import json
import random
import sys
from array import array
from pathlib import Path

import pytest

from cavallo_env import core, games
from cavallo_env.bots import make
from core_harness import require_core

require_core()

GAME = games.get("briscola")
EXT = core.extension("briscola")
DATA = Path(__file__).resolve().parent / "data" / "briscola_search_reference.json"

#: ismcts's core search on the fast numbers (seeded) and on Python's (mt)
ISMCTS = {
    "halving": {"iterations": 300, "c": 0.4, "expand": "greedy", "reward": "points", "root": "halving"},
    "ucb": {"iterations": 300, "c": 0.4, "expand": "greedy", "reward": "points", "root": "ucb"},
    "ucb-mixed-random": {"iterations": 250, "c": 1.3, "expand": "random", "reward": "mixed", "root": "ucb",
                         "hooks": {"rollout": "greedy", "epsilon": 0.3}},
    "halving-win-depth0": {"iterations": 200, "c": 0.7, "expand": "greedy", "reward": "win", "root": "halving",
                           "depth": 0, "hooks": {"infer": 0.0, "win": 0.0}},
    "ucb-depth5": {"iterations": 300, "c": 0.4, "expand": "greedy", "reward": "points", "root": "ucb", "depth": 5,
                   "hooks": {"infer": 0.5, "epsilon": 0.1}},
}
#: the network-guided search: fixed iterations, no time budget
NET = {
    "puct-mix": {"root": "ucb", "lambda": 0.5},
    "puct-value": {"root": "ucb", "lambda": 1.0},
    "puct-rollout": {"root": "ucb", "lambda": 0.0},
    "halving-mix": {"root": "halving", "lambda": 0.5},
    "halving-value": {"root": "halving", "lambda": 1.0},
    "halving-rollout": {"root": "halving", "lambda": 0.0, "reward": "mixed"},
    "puct-fpu-temp": {"root": "ucb", "lambda": 0.5, "fpu": 0.3, "temp": 2.0, "c_puct": 1.0, "reward": "win"},
    "puct-fpu-parent": {"root": "ucb", "lambda": 0.5, "fpu_base": "parent"},
    "puct-fpu-parent-offset": {"root": "ucb", "lambda": 0.5, "fpu_base": "parent", "fpu": -0.2, "c_puct": 1.0},
}
#: the bots, through cavallo_env.bots.make (the prior's bias, the inference)
BOTS = ["ismcts:300", "ismcts:300,root=ucb", "ismcts:200,prior=0,expand=random",
        "search:briscola,ms=0,iterations=300", "search:briscola,ms=0,iterations=300,root=halving",
        "search:briscola,ms=0,iterations=200,leaf=value", "search:briscola,ms=0,iterations=200,leaf=rollout",
        "search:briscola,ms=0,iterations=250,fpu_base=parent"]


def positions(n: int = 30, seed: int = 43) -> list:
    """Positions of random play with a choice, from the deal's start to its end."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        state = GAME.new_state(rng.randrange(10**9))
        stop = rng.randrange(0, 40)
        while not state.done and len(state.moves) < stop:
            GAME.play(state, rng.choice(state.legal_moves()))
        if not state.done and len(state.legal_moves()) >= 2:
            out.append(state)
    return out


def _weights(hooks, state):
    inferred = hooks._inference(state, 1 - state.current)
    return array("d", inferred[0]) if inferred is not None else None


def _ismcts(name: str, k: int, state, python_numbers: bool) -> list:
    spec = dict(ISMCTS[name])
    hooks = GAME.search(**spec.pop("hooks", {}))
    options = dict(spec, scale=hooks.scale, depth=spec.get("depth", hooks.depth), epsilon=hooks.epsilon,
                   rollout=hooks.policy, win=hooks.win)
    bias = None
    if k % 3 == 1:
        rng = random.Random(k)
        bias = array("d", [-rng.random() for _ in range(40)])
    mt = random.Random(k).getstate()[1] if python_numbers else None
    move, visits = EXT.search(state, options, bias, _weights(hooks, state), 1000 + k, 0.0, mt)
    return [move, visits]


def _network():
    from cavallo_env.bots.policy import shipped_model
    from cavallo_env.bots.search import load_network
    return load_network(shipped_model("briscola"), "briscola")


def _net(net, value_scale, name: str, k: int, state) -> list:
    hooks = GAME.search()
    options = {"iterations": 300, "c": 0.0, "reward": "points", "scale": hooks.scale, "depth": hooks.depth,
               "c_puct": 2.0, "temp": 1.0, "fpu": 0.0, "value_scale": value_scale,
               "epsilon": hooks.epsilon, "rollout": hooks.policy, "win": hooks.win}
    options.update(NET[name])
    move, visits = EXT.net_search(state, net, options, _weights(hooks, state), 2000 + k, 0.0, 0.0, 0.0)
    return [move, visits]


def _bot(spec: str, k: int, state) -> list:
    view = GAME.make_view(state, state.current)
    if spec.startswith("search:") and "fpu_base" not in spec:
        spec += ",fpu_base=zero"  # recorded before fpu_base=parent became Briscola's default (2026-12-07)
    move, visits = make(spec, seed=k, game="briscola").move_and_visits(view, GAME.legal_moves_of(view))
    return [move, sorted(visits.items())]


def decisions() -> dict:
    """Every recorded decision, by name."""
    states = positions()
    net, value_scale, _ = _network()
    out = {}
    for k, state in enumerate(states):
        for name in ISMCTS:
            out[f"{k}/ismcts/{name}/fast"] = _ismcts(name, k, state, False)
            if k % 2 == 0:
                out[f"{k}/ismcts/{name}/python"] = _ismcts(name, k, state, True)
        for name in NET:
            out[f"{k}/net/{name}"] = _net(net, value_scale, name, k, state)
        if k % 5 == 0:
            for spec in BOTS:
                out[f"{k}/bot/{spec}"] = _bot(spec, k, state)
    return json.loads(json.dumps(out))  # lists as JSON has them


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now() -> dict:
    return decisions()


def test_the_record_covers_every_kind_of_decision(recorded):
    kinds = {key.split("/", 2)[1] + "/" + key.split("/", 2)[2].split("/")[0] for key in recorded}
    assert {f"ismcts/{n}" for n in ISMCTS} <= kinds and {f"net/{n}" for n in NET} <= kinds
    assert {f"bot/{s}" for s in BOTS} <= kinds


@pytest.mark.parametrize("kind", ["ismcts", "net", "bot"])
def test_briscola_searches_decide_as_recorded(recorded, now, kind):
    keys = sorted(k for k in recorded if k.split("/")[1] == kind)
    assert keys and set(keys) == {k for k in now if k.split("/")[1] == kind}
    different = [k for k in keys if now[k] != recorded[k]]
    assert not different, (len(different), different[:5], [(recorded[k], now[k]) for k in different[:2]])


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(decisions(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"recorded {DATA}")
