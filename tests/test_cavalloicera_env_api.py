"""The AEC environment against PettingZoo's own checks and docs/contract.md's API promises."""

from __future__ import annotations

import functools
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.state_test import test_state_space as check_state_space
from pettingzoo.utils import wrappers

import cavallo_env
from cavallo_env.cavalloicera.aec import AGENTS, CavalloiceraEnv
from cavallo_env.cavalloicera.encoding import OBS_SIZE, STATE_SIZE

NUM_ACTIONS = 156


@pytest.fixture(autouse=True)
def _quiet():
    # api_test warns about dict observations and passes an unknown reset option on purpose
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def random_play(env, seed=0, max_steps=10_000):
    """Random legal play to the end of the deal; yields after each last()."""
    rng = np.random.default_rng(seed)
    for n, agent in enumerate(env.agent_iter()):
        assert n < max_steps
        obs, reward, term, trunc, info = env.last()
        yield agent, obs, reward, term, trunc, info
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ---------------------------------------------------------------- PettingZoo's tests


@pytest.mark.parametrize("make", [cavallo_env.raw_env, cavallo_env.env], ids=["raw", "wrapped"])
def test_pettingzoo_api_test(make):
    api_test(make(), num_cycles=200)


@pytest.mark.parametrize("reward", ["points", "win"])
def test_api_test_reward_modes(reward):
    api_test(cavallo_env.env(reward=reward), num_cycles=200)


@pytest.mark.parametrize("make", [cavallo_env.raw_env, cavallo_env.env], ids=["raw", "wrapped"])
def test_pettingzoo_seed_test(make):
    seed_test(make, num_cycles=100)


def test_pettingzoo_render_test():
    render_test(cavallo_env.raw_env, custom_tests={"ansi": lambda text: "Table:" in text})


def test_state_space_check():
    env = cavallo_env.env()
    check_state_space(env)
    assert env.state_space.shape == (STATE_SIZE,) and env.state_space.dtype == np.float32


# ---------------------------------------------------------------- spaces


def test_agents_and_metadata():
    env = cavallo_env.raw_env()
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert env.metadata["name"] == "cavalloicera_v1"
    assert env.metadata["render_modes"] == ["ansi", "human"]
    assert env.metadata["is_parallelizable"] is False


@pytest.mark.parametrize("make", [cavallo_env.raw_env, cavallo_env.env], ids=["raw", "wrapped"])
def test_spaces_are_the_same_object_every_call(make):
    env = make()
    env.reset(seed=1)
    for agent in AGENTS:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        space = env.action_space(agent)
        assert isinstance(space, gymnasium.spaces.Discrete) and space.n == NUM_ACTIONS and space.start == 0
        obs_space = env.observation_space(agent)
        assert isinstance(obs_space, gymnasium.spaces.Dict)
        assert set(obs_space.spaces) == {"observation", "action_mask"}
        box, mask = obs_space["observation"], obs_space["action_mask"]
        assert box.shape == (OBS_SIZE,) and box.dtype == np.float32
        assert np.all(box.low == 0) and np.all(box.high >= 1)
        assert mask.shape == (NUM_ACTIONS,) and mask.dtype == np.int8
        assert np.all(mask.low == 0) and np.all(mask.high == 1)
    # still the same objects after more resets and some play
    first = env.observation_space("player_2")
    env.reset(seed=2)
    for _ in zip(range(30), random_play(env)):
        pass
    assert env.observation_space("player_2") is first


def test_spaces_are_per_agent_objects():
    env = cavallo_env.raw_env()
    assert env.observation_space("player_0") is not env.observation_space("player_1")
    assert env.action_space("player_0") is not env.action_space("player_1")


# ---------------------------------------------------------------- masks and observations


@pytest.mark.parametrize("make", [cavallo_env.raw_env, cavallo_env.env], ids=["raw", "wrapped"])
def test_masks_int8_and_zero_for_agents_not_selected(make):
    env = make()
    env.reset(seed=7)
    decisions = 0
    for agent, obs, _, term, trunc, _ in random_play(env, seed=7):
        selected = env.agent_selection
        assert agent == selected
        for other in env.possible_agents:
            o = env.observe(other)
            m = o["action_mask"]
            assert isinstance(m, np.ndarray) and m.dtype == np.int8 and m.shape == (NUM_ACTIONS,)
            assert o["observation"].dtype == np.float32 and o["observation"].shape == (OBS_SIZE,)
            assert env.observation_space(other).contains(o)
            if other != selected or term or trunc:
                assert not m.any(), f"{other} is not selected but has a non-zero mask"
        if not (term or trunc):
            decisions += 1
            legal = env.unwrapped.legal_actions()
            assert legal and np.flatnonzero(obs["action_mask"]).tolist() == legal
    assert decisions >= 48


def test_mask_returned_is_a_private_copy():
    env = cavallo_env.raw_env()
    env.reset(seed=3)
    agent = env.agent_selection
    m1 = env.observe(agent)["action_mask"]
    m1[:] = 1  # a caller scribbling on its mask must not change the env's
    m2 = env.observe(agent)["action_mask"]
    assert m2.sum() == len(env.legal_actions())
    o1 = env.observe(agent)["observation"]
    o1[:] = 5
    assert env.observe(agent)["observation"].max() <= 1


def test_first_agent_follows_the_dealer():
    env = cavallo_env.raw_env()
    for seed in range(8):
        env.reset(seed=seed)
        dealer = env.record()["dealer"]
        assert env.agent_selection == f"player_{(dealer + 1) % 4}"


def test_state_vector():
    env = cavallo_env.raw_env()
    env.reset(seed=11)
    for _ in zip(range(70), random_play(env, seed=11)):
        s = env.state()
        assert s.shape == (STATE_SIZE,) and s.dtype == np.float32
        assert env.state_space.contains(s)
    s = env.state()
    s[:] = 9  # a copy
    assert env.state().max() <= env.state_space.high.max()


# ---------------------------------------------------------------- seeding


def deal_of(env):
    rec = env.unwrapped.record()
    return rec["hands"], rec["table"], rec["dealer"]


def test_seeds_reproduce_deals_and_the_stream_continues():
    a, b = cavallo_env.raw_env(), cavallo_env.raw_env()
    a.reset(seed=123)
    b.reset(seed=123)
    assert deal_of(a) == deal_of(b)
    a.reset()
    b.reset()
    assert deal_of(a) == deal_of(b), "reset() without a seed must continue the seeded stream"
    first = deal_of(a)
    a.reset()
    assert deal_of(a) != first
    a.reset(seed=124)
    b.reset(seed=123)
    assert deal_of(a) != deal_of(b)


def test_numpy_integer_seeds():
    a, b = cavallo_env.raw_env(), cavallo_env.raw_env()
    a.reset(seed=np.int64(77))
    b.reset(seed=77)
    assert deal_of(a) == deal_of(b)


def test_unseeded_envs_differ():
    a, b = cavallo_env.raw_env(), cavallo_env.raw_env()
    a.reset()
    b.reset()
    assert deal_of(a) != deal_of(b)


# ---------------------------------------------------------------- wrapping and registry


def test_env_is_wrapped_the_classic_way():
    env = cavallo_env.env()
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, wrappers.TerminateIllegalWrapper)
    assert isinstance(env.unwrapped, CavalloiceraEnv)
    assert cavallo_env.raw_env is CavalloiceraEnv


def test_record_is_reachable_through_the_wrappers():
    env = cavallo_env.env()
    env.reset(seed=5)
    for _ in zip(range(10), random_play(env, seed=5)):
        pass
    assert env.record() == env.unwrapped.record()
    assert len(env.record()["moves"]) >= 5


def test_registry_make():
    env = pettingzoo.make("aec", cavallo_env.ENV_ID)
    assert isinstance(env, wrappers.OrderEnforcingWrapper) and isinstance(env.unwrapped, CavalloiceraEnv)
    env = pettingzoo.make("aec", "cavallo/Cavalloicera-v1", reward="win", render_mode="ansi")
    assert env.unwrapped.reward_type == "win" and env.unwrapped.render_mode == "ansi"
    env.reset(seed=0)
    assert "Table:" in env.render()
    assert pettingzoo.spec("aec", "cavallo/Cavalloicera").id == "cavallo/Cavalloicera-v1"


@pytest.mark.parametrize("order", ["import cavallo_env\nimport pettingzoo",
                                   "import pettingzoo\nimport cavallo_env"])
def test_registration_on_import_in_either_order(order):
    code = f"""{order}
import sys
assert "cavallo_env.cavalloicera.aec" not in sys.modules
env = pettingzoo.make("aec", "cavallo/Cavalloicera-v1")
env.reset(seed=1)
print(type(env.unwrapped).__name__)
"""
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "CavalloiceraEnv"


def test_import_cavallo_env_stays_light():
    code = "import sys, cavallo_env; print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_env_kwargs_are_validated():
    with pytest.raises(ValueError, match="reward must be 'points' or 'win'"):
        cavallo_env.raw_env(reward="score")
    with pytest.raises(ValueError, match="render_mode"):
        cavallo_env.raw_env(render_mode="rgb_array")
    with pytest.raises(TypeError):
        cavallo_env.raw_env(max_cycles=10)


def test_partial_constructor_works_with_seed_test():
    seed_test(functools.partial(cavallo_env.env, reward="win"), num_cycles=60)


def test_metadata_names_the_layout_versions():
    from cavallo_env import ACTION_CONTRACT_VERSION
    from cavallo_env.cavalloicera.encoding import OBS_VERSION, STATE_VERSION

    for e in (cavallo_env.raw_env(), cavallo_env.env()):
        assert e.metadata["observation_version"] == OBS_VERSION == "cavalloicera-obs/1"
        assert e.metadata["state_version"] == STATE_VERSION
        assert e.metadata["action_version"] == ACTION_CONTRACT_VERSION


def test_env_is_a_cardenv_with_one_env_id():
    import cavallo_env.cavalloicera as cav
    from cavallo_env.games.cardenv import ActionSpace, CardEnv

    assert issubclass(CavalloiceraEnv, CardEnv)
    assert cavallo_env.ENV_ID is cav.ENV_ID is cav.GAME.env_id
    raw = cavallo_env.raw_env()
    assert type(raw.action_space("player_0")) is ActionSpace and raw.action_space("player_0").n == NUM_ACTIONS
    raw.reset(seed=3)
    assert raw.game is raw.core and raw.record() == cav.GAME.to_record(raw.core.state)


def test_before_reset_the_vectors_are_blank_and_the_messages_name_the_deal():
    raw = cavallo_env.raw_env(render_mode="ansi")
    obs = raw.observe("player_2")
    assert obs["observation"].shape == (OBS_SIZE,) and not obs["observation"].any() and not obs["action_mask"].any()
    assert raw.state().shape == (STATE_SIZE,) and not raw.state().any()
    assert raw.render() == "Cavalloìcera: no deal yet (call reset())"
    with pytest.raises(RuntimeError, match="call reset"):
        raw.step(0)
    raw.reset(seed=1)
    for _ in random_play(raw, seed=1):
        pass
    with pytest.raises(RuntimeError, match="the deal is over and every agent has been removed"):
        raw.step(0)
