"""Scopa's PettingZoo AEC env: PettingZoo's checks, rewards, deals, observations, illegal actions."""

from __future__ import annotations

import copy
import glob
import json
import os
import random
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from cavallo_env.scopa import GAME
from cavallo_env.scopa import aec
from cavallo_env.scopa.actions import CAPTURE, TAKE, move_to_actions
from cavallo_env.scopa.encoding import (OBS_LAYOUT, OBS_SIZE, OBS_VERSION, STATE_LAYOUT, STATE_SIZE,
                                        encode_observation)
from cavallo_env.scopa.engine import random_state
from cavallo_env.scopa.search import ScopaSearch
from cavallo_env.scopa.views import make_view, state_from_view

HERE = os.path.dirname(__file__)
VECTORS = sorted(glob.glob(os.path.join(HERE, "vectors-scopa", "*.json")))
CONFIGS = [(d, m) for d in ("milanesi", "bresciane") for m in (True, False)]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def first_deal(rec):
    d = rec["deals"][0]
    return {k: d[k] for k in ("dealer", "hands", "table", "stock")}


def play_out(env, seed=0, check=None, max_steps=20_000):
    """Random masked play to the end; returns the summed rewards per agent."""
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for n, agent in enumerate(env.agent_iter()):
        assert n < max_steps
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if check is not None:
            check(env, agent, obs)
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return totals


@pytest.mark.parametrize("deck,match", CONFIGS)
def test_api_test_raw_and_wrapped(deck, match):
    api_test(aec.raw_env(deck=deck, match=match), num_cycles=400)
    api_test(aec.env(deck=deck, match=match, reward="points"), num_cycles=400)


@pytest.mark.parametrize("deck,match", CONFIGS)
def test_seed_test_raw_and_wrapped(deck, match):
    seed_test(lambda: aec.raw_env(deck=deck, match=match), num_cycles=200)
    seed_test(lambda: aec.env(deck=deck, match=match), num_cycles=200)


def test_registered_and_metadata():
    e = pettingzoo.make("aec", "cavallo/Scopa-v1")
    e.reset(seed=1)
    assert e.unwrapped.metadata["name"] == "scopa_v1"
    assert e.unwrapped.metadata["observation_version"] == OBS_VERSION == "scopa-obs/1"
    assert e.unwrapped.metadata["state_version"] == "scopa-state/1"
    assert e.unwrapped.metadata["action_version"] == "scopa-actions/1"
    assert e.unwrapped.reward_type == "win" and e.unwrapped.match
    assert e.action_space("player_0").n == 120
    assert e.observation_space("player_1")["observation"].shape == (OBS_SIZE,)
    assert e.unwrapped.state().shape == (STATE_SIZE,)
    assert sum(n for _, n in OBS_LAYOUT.values()) == OBS_SIZE
    assert sum(n for _, n in STATE_LAYOUT.values()) == STATE_SIZE
    with pytest.raises(ValueError, match="deck"):
        aec.raw_env(deck="piacentine")
    with pytest.raises(ValueError, match="match"):
        aec.raw_env(match="yes")
    with pytest.raises(ValueError, match="reward"):
        aec.raw_env(reward="score")


@pytest.mark.parametrize("reward", ["win", "points"])
@pytest.mark.parametrize("match", [True, False])
def test_rewards_sum_to_zero_and_match_the_result(reward, match):
    env = aec.raw_env(match=match, reward=reward)
    for seed in range(4):
        env.reset(seed=seed)
        seen, infos = [], []

        def check(e, agent, obs):
            seen.append(sum(e.rewards.values()))
            if e.terminations[agent]:
                infos.append(e.infos[agent])

        totals = play_out(env, seed, check)
        assert all(abs(x) < 1e-9 for x in seen)
        assert totals["player_0"] == -totals["player_1"]
        state = env.core.state
        assert state.done
        if reward == "points":
            # each deal paid its point difference: the sum is the match's
            assert totals["player_0"] == sum(r["points"][0] - r["points"][1] for r in state.results)
        else:
            d = state.totals[0] - state.totals[1] if match else \
                state.results[-1]["points"][0] - state.results[-1]["points"][1]
            assert totals["player_0"] == (d > 0) - (d < 0)
        assert infos and all(i["result"] == state.result() for i in infos)


def test_points_are_paid_when_each_deal_ends():
    env = aec.raw_env(match=True, reward="points")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    paid = []
    while not env.core.state.done:
        before = len(env.core.state.results)
        env.step(int(rng.choice(env.legal_actions())))
        if len(env.core.state.results) != before:
            r = env.core.state.results[-1]["points"]
            assert env.rewards["player_0"] == r[0] - r[1] == -env.rewards["player_1"]
            paid.append(env.rewards["player_0"])
        else:
            assert env.rewards["player_0"] == 0.0
    assert len(paid) == len(env.core.state.results) >= 1


@pytest.mark.parametrize("path", VECTORS[:6] + VECTORS[-3:], ids=lambda p: os.path.basename(p))
def test_deal_option_replays_vectors(path):
    v = load(path)
    env = aec.raw_env(deck=v["deck"], match=v["match"])
    env.reset(seed=0, options={"deal": first_deal(v)})
    state = env.core.state
    for mv in v["deals"][0]["moves"]:
        assert env.agent_selection == f"player_{mv['seat']}"
        move = GAME.move_from_dict(mv, v["deck"])
        for a in move_to_actions(state, move):
            env.step(a)
    rec = env.record()
    assert rec["deals"][0] == v["deals"][0]
    if not v["match"]:
        assert rec == v


def test_later_deals_come_from_the_env_generator():
    v = load(VECTORS[3])
    records = []
    for _ in range(2):
        env = aec.raw_env(match=True)
        env.reset(seed=11, options={"deal": first_deal(v)})
        play_out(env, 3)
        records.append(env.record())
    assert records[0] == records[1] and len(records[0]["deals"]) >= 2
    assert records[0]["deals"][1]["dealer"] == 1 - v["deals"][0]["dealer"]
    assert GAME.to_record(GAME.replay(records[0])) == records[0]


@pytest.mark.parametrize("bad,match", [
    ({"dealer": 0}, "missing"),
    ("deal", "dict"),
    (None, None),
])
def test_malformed_deal_option(bad, match):
    env = aec.raw_env()
    if bad is None:  # three kings on the table
        d = first_deal(load(VECTORS[0]))
        everything = d["hands"][0] + d["hands"][1] + d["table"] + d["stock"]
        kings = ["K-hearts", "K-diamonds", "K-spades"]
        rest = [n for n in everything if n not in kings]
        bad = {"dealer": 0, "table": kings + rest[:1], "hands": [rest[1:4], rest[4:7]], "stock": rest[7:37]}
        match = "three or four kings"
    with pytest.raises(ValueError, match=match):
        env.reset(options={"deal": bad})
    with pytest.raises(ValueError, match=match):
        aec.env().reset(options={"deal": bad})


def test_illegal_actions():
    deal = {"dealer": 1, "hands": [["7-hearts", "K-clubs", "A-spades"], ["J-hearts", "Q-hearts", "K-hearts"]],
            "table": ["3-hearts", "4-spades", "2-clubs", "5-clubs"]}
    used = set(deal["hands"][0] + deal["hands"][1] + deal["table"])
    from cavallo_env.briscola.cards import IDS, NAMES
    deal["stock"] = [n for n in NAMES["milanesi"] if n not in used]
    env = aec.raw_env(match=False)
    env.reset(options={"deal": deal})
    seven = IDS["milanesi"]["7-hearts"]
    with pytest.raises(ValueError, match=r"illegal action 6 \(place 7-hearts\) by player_0 \(seat 0\)"):
        env.step(seven)  # a 7 with a capture cannot be placed
    env.step(CAPTURE + seven)
    with pytest.raises(ValueError, match="building a capture with 7-hearts"):
        env.step(TAKE + IDS["milanesi"]["4-spades"])  # 4 is not the smallest of {3, 4}
    with pytest.raises(ValueError, match="an action must be an int"):
        env.step("x")
    env.step(TAKE + IDS["milanesi"]["3-hearts"])
    assert env.agent_selection == "player_1"
    # wrapped: -1 for the offender and the episode ends
    w = aec.env(match=False)
    w.reset(options={"deal": deal})
    w.step(seven)
    assert w.terminations["player_0"] and w.rewards["player_0"] == -1


@pytest.mark.parametrize("seed,deck,match", [(2, "milanesi", True), (3, "bresciane", True), (4, "milanesi", False),
                                             (5, "bresciane", False)])
def test_observations_are_incremental_equal_to_scratch_and_hide_nothing(seed, deck, match):
    env = aec.raw_env(match=match, deck=deck)
    env.reset(seed=seed)
    hooks = ScopaSearch()

    def check(e, agent, obs):
        core = e.core
        state = core.state
        for seat in (0, 1):
            building = core.building if seat == core.current else None
            expect = encode_observation(state, seat, building)
            got = e.observe(f"player_{seat}")["observation"]
            assert np.array_equal(got, expect), (seat, np.flatnonzero(got != expect))
            assert got.min() >= 0.0 and got.max() <= 1.0
        if not state.done and core.building is None and state.deal.turn < 35:
            seat = state.current
            det = hooks.determinizer(state, seat)  # the other hand and the stock dealt again
            for k in range(2):
                other = det(random.Random(k))
                assert np.array_equal(encode_observation(other, seat), encode_observation(state, seat))
            view = make_view(state, seat)
            rebuilt = state_from_view(view, random.Random(1))
            assert np.array_equal(encode_observation(rebuilt, seat), encode_observation(state, seat))

    play_out(env, seed, check, max_steps=3000)
    assert env.core.state.done


def test_deepcopy_and_render():
    env = aec.raw_env(render_mode="ansi")
    env.reset(seed=3)
    for a in env.legal_actions()[:1]:
        env.step(a)
    twin = copy.deepcopy(env)
    play_out(twin, 0)
    assert not env.core.state.done and twin.core.state.done
    text = env.render()
    assert "Scopa" in text and "Table:" in text
    assert env.action_name(CAPTURE + 16) == "capture with 7-diamonds"
    b = aec.raw_env(deck="bresciane")
    assert b.action_name(CAPTURE + 6) == "capture with 7-coins"


def test_state_vector_in_bounds():
    env = aec.raw_env(match=False)
    env.reset(seed=4)

    def check(e, agent, obs):
        s = e.state()
        assert s.shape == (STATE_SIZE,) and s.min() >= 0.0 and s.max() <= 1.0

    play_out(env, 0, check)


def test_env_is_fast_enough_to_run_many_deals():
    env = aec.raw_env(match=False)
    env.reset(seed=0)
    for k in range(30):
        env.reset()
        play_out(env, k)
    assert env.core.state.done and random_state(0).deal.dealer in (0, 1)
