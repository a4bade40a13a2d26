"""The single-agent Gymnasium env (cavallo_env.single) and the MaskablePPO example (examples/sb3_maskable_ppo.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from cavallo_env import games
from cavallo_env.bots import make as make_bot
from cavallo_env.single import SingleAgentEnv, engine_state, env_id, make_env

HERE = os.path.dirname(__file__)
EXAMPLE = os.path.join(HERE, os.pardir, "examples", "sb3_maskable_ppo.py")

CONFIGS = [
    ("briscola", {}),
    ("briscola", {"seat": 1, "deck": "bresciane", "reward": "win"}),
    ("scopa", {}),
    ("scopa", {"match": False, "reward": "points", "opponents": "heuristic"}),
    ("cavalloicera", {}),
    ("cavalloicera", {"team": True, "seat": 1}),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for g, kw in CONFIGS]


def _quietly(fn, *args, **kwargs):
    """Run a checker: they step random actions, mostly illegal ones, which end the episode with a warning."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="SingleAgentEnv: an illegal action")
        return fn(*args, **kwargs)


def play(env, seed, rng_seed=0, on_step=None):
    """One episode with random legal actions; the list of (action, reward) and the last info."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed)
    steps, done = [], False
    while not done:
        if on_step is not None:
            on_step(env, obs, info)
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, done, truncated, info = env.step(a)
        assert not truncated
        steps.append((a, reward))
    return steps, info


class Recorder:
    """A bot that plays like ``spec`` and notes every seat it is asked to play."""

    def __init__(self, spec, game):
        self.bot = make_bot(spec, seed=1, game=game)
        self.seats = []

    def choose(self, view):
        self.seats.append(view["seat"])
        return self.bot.choose(view)


# -- the checkers ------------------------------------------------------------------


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_gymnasium_check_env(game, kwargs):
    _quietly(gym_check_env, SingleAgentEnv(game, **kwargs), skip_render_check=True)


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_sb3_check_env(game, kwargs):
    checker = pytest.importorskip("stable_baselines3.common.env_checker",
                                  reason="stable-baselines3 is not installed (pip install -e '.[sb3]')")
    _quietly(checker.check_env, SingleAgentEnv(game, **kwargs), warn=True)


def test_render_check_and_gymnasium_make():
    with warnings.catch_warnings():  # text render modes have no frame rate
        warnings.filterwarnings("ignore", message=".*No render fps was declared")
        _quietly(gym_check_env, gymnasium.make("cavallo/Briscola-single-v1", render_mode="ansi").unwrapped)
    env = SingleAgentEnv("scopa", render_mode="ansi")
    env.reset(seed=0)
    assert "Scopa" in env.render()
    assert env_id("briscola") == "cavallo/Briscola-single-v1"
    assert [env_id(g) for g in games.names()] == ["cavallo/Cavalloicera-single-v1", "cavallo/Briscola-single-v1",
                                                  "cavallo/Scopa-single-v1"]
    env = gymnasium.make("cavallo/Scopa-single-v1", opponents="random", match=False)
    assert env.unwrapped.game.name == "scopa" and env.unwrapped.options == {"match": False}
    obs, _ = env.reset(seed=1)
    assert obs in env.observation_space
    assert env.get_wrapper_attr("action_masks")().dtype == bool  # what sb3-contrib's get_action_masks calls
    env = gymnasium.make("cavallo_env.single:cavallo/Cavalloicera-single-v1", team=True)
    assert env.unwrapped.seats == (0, 2)
    assert make_env("scopa").game.name == "scopa"


# -- spaces, masks, seats -----------------------------------------------------------


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_masks_are_the_legal_actions_of_the_learner(game, kwargs):
    env = SingleAgentEnv(game, **kwargs)
    raw = games.get(game).raw_env()
    learning = games.get(game).learning()
    assert env.action_space == gymnasium.spaces.Discrete(learning.num_actions)
    assert env.observation_space == raw.observation_space("player_0")["observation"]
    seen = set()

    def check(env, obs, info):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (learning.num_actions,)
        assert np.flatnonzero(mask).tolist() == env.aec.legal_actions()
        assert env.aec.agent_selection == f"player_{info['seat']}" and info["seat"] in env.seats
        assert np.array_equal(obs, env.aec.observe(f"player_{info['seat']}")["observation"])
        assert obs in env.observation_space
        seen.add(info["seat"])

    for seed in range(3):
        play(env, seed, on_step=check)
        assert not env.action_masks().any()  # over
    assert seen == set(env.seats)


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_reward_is_the_learners_team_return(game, kwargs):
    env = SingleAgentEnv(game, **kwargs)
    reward = env.aec.reward_type
    for seed in range(3):
        steps, info = play(env, seed)
        state = engine_state(env._raw)
        assert state.done and "result" in info
        assert sum(r for _, r in steps) == state.returns(reward)[env.seats[0]]
        if not (game == "scopa" and reward == "points"):  # Scopa's "points" pays each deal of a match as it ends
            assert all(r == 0 for _, r in steps[:-1])


def test_reset_is_reproducible_and_deals_as_the_aec_env():
    for game, kwargs in CONFIGS:
        env = SingleAgentEnv(game, **kwargs)
        a = play(env, seed=7, rng_seed=3)
        rec = env.record()
        b = play(env, seed=7, rng_seed=3)
        assert a == b and env.record() == rec
        obs1, _ = env.reset(seed=11)
        obs2, _ = env.reset()
        obs3, _ = env.reset(seed=11)
        obs4, _ = env.reset()
        assert np.array_equal(obs1, obs3) and np.array_equal(obs2, obs4)
        raw = games.get(game).raw_env(**{k: v for k, v in kwargs.items() if k in ("deck", "match")})
        raw.reset(seed=11)
        env.reset(seed=11)
        assert _deal(env.record()) == _deal(raw.record())
        assert env.np_random is env.aec.np_random


def _deal(record):
    out = {k: v for k, v in record.items() if k != "moves"}
    if "deals" in out:
        out["deals"] = [{k: v for k, v in d.items() if k not in ("moves", "result")} for d in out["deals"][:1]]
    return out


def test_reset_with_a_given_deal():
    raw = games.get("briscola").raw_env()
    raw.reset(seed=5)
    deal = {k: v for k, v in raw.record().items() if k in ("hands", "trump", "stock", "leader")}
    deal["leader"] = 0
    env = SingleAgentEnv("briscola")
    env.reset(options={"deal": deal})
    assert env.record()["hands"] == deal["hands"] and env.record()["moves"] == []
    assert env.action_masks().sum() == 3


def test_bots_hold_the_other_seats():
    for game, kwargs, learner in (("briscola", {"seat": 1}, [1]), ("scopa", {}, [0]),
                                  ("cavalloicera", {}, [0]), ("cavalloicera", {"team": True}, [0, 2])):
        n = games.get(game).num_seats
        others = [s for s in range(n) if s not in learner]
        recorders = [Recorder("greedy", game) for _ in others]
        env = SingleAgentEnv(game, opponents=recorders, **kwargs)
        assert env.seats == tuple(learner) and env.opponent_seats == tuple(others)
        for seed in range(2):
            play(env, seed)
        for seat, rec in zip(others, recorders):
            assert rec.seats and set(rec.seats) == {seat}
        # each seat's moves: the learner's seats are never asked of a bot, the bots' moves are theirs
        record = env.record()
        moves = record["moves"] if "moves" in record else record["deals"][0]["moves"]
        assert {m["seat"] for m in moves} == set(range(n))
    # a spec string makes one bot per other seat, seeded from bot_seed and the seat
    env = SingleAgentEnv("cavalloicera", opponents="heuristic")
    assert sorted(env.opponents) == [1, 2, 3]
    assert len({id(b) for b in env.opponents.values()}) == 3
    assert all(b.name == "heuristic" for b in env.opponents.values())
    two = SingleAgentEnv("cavalloicera", opponents=["random", "greedy"], team=True)
    assert {s: b.name for s, b in two.opponents.items()} == {1: "random", 3: "greedy"}


def test_team_mode_plays_both_seats_of_the_team():
    env = SingleAgentEnv("cavalloicera", opponents="greedy", team=True)
    assert env.seats == (0, 2)
    assert SingleAgentEnv("cavalloicera", seats=(1, 3)).seats == (1, 3)
    assert SingleAgentEnv("briscola", team=True, seat=1).seats == (1,)  # a two-player team is one seat
    seats = []
    steps, info = play(env, 4, on_step=lambda e, o, i: seats.append(i["seat"]))
    assert set(seats) == {0, 2}
    result = info["result"]
    assert sum(r for _, r in steps) == result["team_points"][0] - result["team_points"][1]


def test_callable_opponents_get_the_aec_observation():
    calls = []

    def first_legal(obs):
        assert set(obs) == {"observation", "action_mask"} and obs["action_mask"].dtype == np.int8
        calls.append(obs["action_mask"].copy())
        return int(np.flatnonzero(obs["action_mask"])[0])

    env = SingleAgentEnv("scopa", opponents=first_legal, match=False)
    play(env, 2)
    assert calls and all(m.any() for m in calls)
    # several actions of one capture each ask the callable; a move dict bot plays whole moves
    cav = SingleAgentEnv("cavalloicera", opponents=[first_legal, "greedy", first_legal])
    play(cav, 1)
    assert len(calls) > 30

    def bad(obs):
        return int(np.flatnonzero(obs["action_mask"] == 0)[0])

    env = SingleAgentEnv("briscola", opponents=bad, seat=1)
    with pytest.raises(ValueError, match="opponent .* in seat 0 answered .* not one of the legal actions"):
        for seed in range(10):  # seat 0 leads in about half the deals
            env.reset(seed=seed)
            env.step(int(np.flatnonzero(env.action_masks())[0]))


# -- errors -------------------------------------------------------------------------


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="unknown game 'chess'; known games: cavalloicera, briscola, scopa"):
        SingleAgentEnv("chess")
    with pytest.raises(ValueError, match="Briscola has seats 0..1, got seat 2"):
        SingleAgentEnv("briscola", seat=2)
    for bad in (-1, "0", True, 1.0):
        with pytest.raises(ValueError, match="has seats"):
            SingleAgentEnv("cavalloicera", seat=bad)
    with pytest.raises(ValueError, match="must all be of one team"):
        SingleAgentEnv("cavalloicera", seats=(0, 1))
    with pytest.raises(ValueError, match="distinct seats"):
        SingleAgentEnv("cavalloicera", seats=(0, 0))
    with pytest.raises(ValueError, match="either team=True or seats"):
        SingleAgentEnv("cavalloicera", team=True, seats=(0, 2))
    with pytest.raises(ValueError, match=r"opponents: 2 given for 3 other seat\(s\) \[1, 2, 3\]"):
        SingleAgentEnv("cavalloicera", opponents=["greedy", "greedy"])
    with pytest.raises(ValueError, match="unknown bot 'grady'"):
        SingleAgentEnv("briscola", opponents="grady")
    with pytest.raises(ValueError, match="an opponent must be"):
        SingleAgentEnv("briscola", opponents=[3])
    with pytest.raises(ValueError, match="unknown option"):
        SingleAgentEnv("briscola", match=False)
    with pytest.raises(ValueError, match="unknown deck"):
        SingleAgentEnv("scopa", deck="french")
    with pytest.raises(ValueError, match="reward must be"):
        SingleAgentEnv("briscola", reward="money")
    with pytest.raises(ValueError, match="on_illegal"):
        SingleAgentEnv("briscola", on_illegal="ignore")
    env = SingleAgentEnv("briscola")
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_illegal_action_raises_or_ends_the_episode():
    env = SingleAgentEnv("briscola", on_illegal="raise")
    obs, _ = env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    record = env.record()
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .* by player_0 \(seat 0\); legal actions: "
                                         r"\[.*\] \(pass action_masks\(\) to the learner"):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range 0..39"):
        env.step(40)
    with pytest.raises(ValueError, match="an action must be an int"):
        env.step("3")
    assert env.record() == record  # nothing changed: a legal action still plays
    env.step(int(np.flatnonzero(env.action_masks())[0]))

    env = SingleAgentEnv("scopa")  # default: the episode ends with illegal_reward
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match="an illegal action ended the episode"):
        obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert f"illegal action {illegal}" in info["illegal_action"] and obs in env.observation_space
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="the episode is over; call reset"):
        env.step(0)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


# -- MaskablePPO ------------------------------------------------------------------------


def test_maskable_ppo_trains_and_its_export_plays_as_the_model_predicts(tmp_path):
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (pip install -e '.[sb3]')")
    pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[train]')")
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[runtime]')")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from training.sb3_export import export_maskable_ppo

    torch.set_num_threads(1)
    for game, kwargs in (("scopa", {"match": False}), ("cavalloicera", {"team": True})):
        env = SingleAgentEnv(game, opponents="greedy", **kwargs)
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0, device="cpu")
        model.set_logger(Logger(folder=None, output_formats=[]))  # not a /tmp/SB3-<time> folder per run
        model.learn(total_timesteps=128)
        path, meta_path = export_maskable_ppo(model, tmp_path / f"{game}.onnx", game=game, check_deals=8)
        assert json.loads(meta_path.read_text())["game"] == game
        bot = make_bot(f"policy:{path}", seed=0, game=game)
        # the exported policy picks model.predict's deterministic masked action at every decision, and
        # the policy: bot playing from the seat's view (as cavallo eval runs it) plays the same moves
        g, learning = games.get(game), games.get(game).learning()
        checked = moves = 0
        for seed in range(2):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                mask = env.action_masks()
                action, _ = model.predict(obs, action_masks=mask, deterministic=True)
                if mask.sum() > 1:
                    logits = bot.logits(obs[None], mask[None].astype(np.float32))[0]
                    assert int(logits.argmax()) == int(action)
                    checked += 1
                core = env.aec.core if hasattr(env.aec, "core") else env.aec.game
                if core.building is None:  # a move starts: the bot's whole move begins with this action
                    state = engine_state(env._raw)
                    move = g.move_from_dict(bot.choose(g.make_view(state, info["seat"])), g.deck_of(state))
                    assert learning.table(state).move_actions(move)[0] == int(action)
                    moves += 1
                obs, _, done, _, info = env.step(action)
        assert checked > 10 and moves > 10


def test_the_example_trains_exports_and_evaluates_with_cavallo_eval(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (pip install -e '.[sb3]')")
    pytest.importorskip("onnx", reason="onnx is not installed (pip install -e '.[train]')")
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install -e '.[runtime]')")
    spec = importlib.util.spec_from_file_location("sb3_maskable_ppo", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "run"
    assert example.main(["--steps", "256", "--n-steps", "128", "--eval-deals", "3", "--jobs", "1",
                         "--out", str(out)]) == 0
    text = capsys.readouterr().out
    result = json.loads((out / "eval.json").read_text())
    assert result["bot_a"] == f"policy:{out / 'model.onnx'}" and result["bot_b"] == "greedy"
    assert result["game"] == "briscola" and result["deals"] == 3 and result["games"] == 6
    assert json.loads((out / "baseline.json").read_text())["bot_a"] == "random"
    assert "vs_greedy" in json.loads((out / "model.json").read_text())["evaluation"]
    assert (out / "model.zip").is_file()
    assert "cavallo eval policy:" in text and "score" in text and "95% Wilson" in text
