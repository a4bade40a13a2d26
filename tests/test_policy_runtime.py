"""The in-game AI runtime: policy:<path> and policy:default play from views without torch."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from policy_fixtures import game_views, make_model

from cavallo_env.bots import BotSpecError, make
from cavallo_env.bots.policy import DEFAULT_MODEL, ModelError, PolicyBot
from cavallo_env.errors import ViewError


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return make_model(tmp_path_factory.mktemp("runtime"))


NO_TORCH_GAME = textwrap.dedent("""
    import json, sys
    import cavallo_env.bots as bots
    from cavallo_env.cavalloicera.engine import CavalloiceraState
    from cavallo_env.cavalloicera.views import make_view, move_from_dict

    spec = sys.argv[1]
    players = [bots.make(spec, seed=s) for s in range(4)]
    out = []
    for deal in range(2):
        state = CavalloiceraState.new(1000 + deal)
        while not state.done:
            view = json.loads(json.dumps(make_view(state, state.current)))  # as a game would send it
            move = players[state.current].choose(view)
            assert move in view["legal_moves"], (move, view["legal_moves"])
            state.play(*move_from_dict(move))
        out.append(state.result()["team_points"])
    print(json.dumps({"results": out, "torch": "torch" in sys.modules,
                      "onnxruntime": "onnxruntime" in sys.modules}))
""")


def run_without_torch(spec: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", NO_TORCH_GAME, spec], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_plays_full_deals_without_torch(model):
    got = run_without_torch(f"policy:{model}")
    assert got["torch"] is False
    assert got["onnxruntime"] is True
    assert len(got["results"]) == 2
    # greedy play is deterministic: a second process plays the same deals the same way
    assert run_without_torch(f"policy:{model}")["results"] == got["results"]


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"the shipped model {DEFAULT_MODEL} is not in this checkout")
def test_default_model_plays_without_torch():
    got = run_without_torch("policy:default")
    assert got["torch"] is False and len(got["results"]) == 2


def test_default_model_absent_is_a_clear_error(monkeypatch, tmp_path):
    import cavallo_env.bots.policy as policy

    monkeypatch.setattr(policy, "MODELS_DIR", tmp_path)
    for spec in ("policy:default", "policy:cavalloicera", "policy:briscola", "policy:scopa"):
        with pytest.raises(ModelError, match="shipped .*model .* is not installed.*cavallo export"):
            make(spec)


def test_always_a_legal_move_of_the_view(model):
    bot = make(f"policy:{model}")
    for seed in range(3):
        for view in game_views(seed):  # random play reaches varied positions
            move = bot.choose(view)
            assert any(move is m for m in view["legal_moves"])  # the very dict of the view


def test_answer_keeps_the_views_spelling_of_the_move(model):
    bot = make(f"policy:{model}")
    for view in game_views(4):
        for m in view["legal_moves"]:
            m["capture"].reverse()  # a game may list the capture in another order
        move = bot.choose(view)
        assert any(move is m for m in view["legal_moves"])


def test_without_legal_moves_in_the_view(model):
    bot = make(f"policy:{model}")
    for view in game_views(2, limit=20):
        legal = view.pop("legal_moves")
        assert bot.choose(view) in legal


def test_seeded_temperature_sampling(model):
    views = game_views(7)
    multi = [v for v in views if len(v["legal_moves"]) > 3]

    def moves(spec, seed):
        bot = make(spec, seed=seed)
        return [json.dumps(bot.choose(v)) for v in multi]

    spec = f"policy:{model}@t=2"
    assert moves(spec, 1) == moves(spec, 1)  # same seed, same moves
    runs = {tuple(moves(spec, s)) for s in range(6)}
    assert len(runs) > 1  # it does sample
    greedy = moves(f"policy:{model}", 1)
    assert moves(f"policy:{model}@t=0", 5) == greedy  # t=0 is greedy
    assert moves(f"policy:{model}@t=0.0001", 3) == greedy  # a tiny temperature is (almost surely) greedy
    # the draw depends on the view, not on what the bot was asked before
    bot = make(spec, seed=1)
    first = bot.choose(multi[-1])
    for v in multi[:5]:
        bot.choose(v)
    assert bot.choose(multi[-1]) == first
    assert make(spec, seed=1).name == f"policy:{model}@t=2"


def test_sampling_follows_the_policy(model):
    """With t=1 the empirical choice frequencies follow softmax(logits) (loose check)."""
    import math

    import numpy as np

    from cavallo_env.cavalloicera.actions import CavalloiceraActions
    from cavallo_env.cavalloicera.cards import card_id
    from cavallo_env.cavalloicera.encoding import encode_observation
    from cavallo_env.cavalloicera.views import state_from_view

    bot = make(f"policy:{model}")
    view = next(v for v in game_views(3) if len(v["legal_moves"]) >= 6
                and all(not m["capture"] for m in v["legal_moves"]))  # places only: one step per move
    state = state_from_view(view)
    legal = CavalloiceraActions(state).legal_actions()
    mask = np.zeros((1, 156), np.float32)
    mask[0, legal] = 1
    logits = bot.logits(encode_observation(state, state.current)[None], mask)[0]
    z = [math.exp(logits[a] - logits[legal].max()) for a in legal]
    probs = {a: w / sum(z) for a, w in zip(legal, z)}
    counts = dict.fromkeys(legal, 0)
    n = 3000
    for seed in range(n):  # same position; the bot seed changes the draw
        mv = make(f"policy:{model}@t=1", seed=seed).choose(view)
        counts[card_id(mv["play"])] += 1
    for a in legal:
        assert abs(counts[a] / n - probs[a]) < 4 * math.sqrt(probs[a] * (1 - probs[a]) / n) + 0.01


def test_spec_errors(model):
    with pytest.raises(BotSpecError, match="needs a model"):
        make("policy")
    with pytest.raises(BotSpecError, match="not a number"):
        make(f"policy:{model}@t=hot")
    with pytest.raises(BotSpecError, match="unknown policy option"):
        make(f"policy:{model}@depth=3")
    with pytest.raises(BotSpecError, match="key=value"):
        make(f"policy:{model}@t")
    with pytest.raises(BotSpecError, match=">= 0"):
        make(f"policy:{model}@t=-1")
    with pytest.raises(ModelError, match="not found"):
        make("policy:/nonexistent/model.onnx")
    assert make(f"policy:{model}@threads=2@t=0.5").temperature == 0.5


def test_inconsistent_views_raise_view_errors(model):
    bot = make(f"policy:{model}")
    view = game_views(9, limit=10)[-1]
    bad = dict(view, legal_moves=[])
    with pytest.raises(ViewError, match="no legal moves"):
        bot.choose(bad)
    bad = dict(view, legal_moves=view["legal_moves"][1:])
    with pytest.raises(ViewError, match="missing"):
        bot.choose(bad)
    bad = dict(view, legal_moves=view["legal_moves"] + [{"play": view["hand"][0], "capture": ["R-clubs", "R-cups"]}])
    with pytest.raises(ViewError, match="not legal"):
        bot.choose(bad)
    bad = dict(view, hand=view["hand"][:-1] + ["Z-coins"])
    with pytest.raises(ViewError, match="unknown card"):
        bot.choose(bad)
    bad = dict(view, hand=view["hand"][:-1] + [view["hand"][0]])
    with pytest.raises(ViewError, match="appears twice"):
        bot.choose(bad)


def test_bot_is_thread_safe(model):
    from concurrent.futures import ThreadPoolExecutor

    bot = PolicyBot(model)
    views = game_views(11)
    serial = [bot.choose(v) for v in views]
    with ThreadPoolExecutor(8) as pool:
        parallel = list(pool.map(bot.choose, views * 4))
    assert parallel == serial * 4
