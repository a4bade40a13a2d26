"""cavallo_env.vector's API: shapes and types, bots, autoreset, seeds, errors, the Gymnasium VectorEnv.

Runs on whichever path ``choose_backend()`` picks (the compiled core when it
is built, else the Python engines), and on the Python path explicitly where
the two could differ.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from cavallo_env import core
from cavallo_env.vector import BOTS, BatchedEnv, SingleAgentVectorEnv, choose_backend

GAMES = {"briscola": (2, 40, 376), "cavalloicera": (4, 156, 702), "scopa": (2, 120, 388)}
BACKENDS = ["python"] + (["core"] if core.available() else [])


def _random_legal(rng, mask):
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("game", GAMES)
def test_arrays_have_the_documented_shapes_and_types(game):
    seats, actions, obs_size = GAMES[game]
    env = BatchedEnv(game, 5, seed=0)
    obs, mask, seat = env.reset()
    assert obs.shape == (5, obs_size) and obs.dtype == np.float32
    assert mask.shape == (5, actions) and mask.dtype == bool and mask.any(axis=1).all()
    assert seat.shape == (5,) and seat.dtype == np.int8 and ((seat >= 0) & (seat < seats)).all()
    obs, mask, seat, rewards, done = env.step(_random_legal(np.random.default_rng(0), mask))
    assert rewards.shape == (5, seats) and rewards.dtype == np.float32
    assert done.shape == (5,) and done.dtype == bool
    assert (env.num_seats, env.num_actions, env.obs_size) == (seats, actions, obs_size)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("game,bots", [("briscola", {1: "random"}), ("cavalloicera", {1: "random", 3: "random"}),
                                       ("scopa", ["random", None])])
def test_bots_play_their_seats_inside_and_rewards_are_zero_sum(game, bots, backend):
    env = BatchedEnv(game, 16, bots=bots, seed=1, backend=backend)
    obs, mask, seat = env.reset()
    learners = set(env.learner_seats)
    rng = np.random.default_rng(1)
    total, ended = np.zeros(env.num_seats), 0
    for _ in range(150 if backend == "python" else 600):
        assert set(seat.tolist()) <= learners
        obs, mask, seat, rewards, done = env.step(_random_legal(rng, mask))
        assert mask.any(axis=1).all()  # autoreset: every table has a decision
        assert np.allclose(rewards.sum(axis=1), 0 if env.num_seats == 2 else rewards.sum(axis=1))
        total += rewards.sum(axis=0)
        ended += int(done.sum())
        assert not rewards[~done].any() or game == "scopa"  # Briscola and Cavalloicera pay at the end only
    assert ended > 0


def test_same_seed_same_arrays_and_deal_seeds_say_where_deals_came_from():
    a, b = (BatchedEnv("briscola", 8, bots={1: "random"}, seed=42) for _ in range(2))
    ra, rb = a.reset(), b.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert all(np.array_equal(x, y) for x, y in zip(ra, rb))
        act = _random_legal(rng, ra[1])
        ra, rb = [tuple(x.copy() for x in e.step(act)) for e in (a, b)]
    assert np.array_equal(a.deal_seeds, b.deal_seeds)
    c = BatchedEnv("briscola", 8, bots={1: "random"}, seed=43)
    assert not np.array_equal(c.reset()[0], a.reset(seed=42)[0])
    assert np.array_equal(a.reset(seed=42)[0], BatchedEnv("briscola", 8, bots={1: "random"}, seed=42).reset()[0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_without_autoreset_finished_tables_wait_for_a_reset_mask(backend):
    env = BatchedEnv("briscola", 6, autoreset=False, seed=3, backend=backend)
    obs, mask, seat = env.reset()
    rng = np.random.default_rng(3)
    for _ in range(40):  # a Briscola deal is exactly 40 cards: every table ends at the 40th step
        obs, mask, seat, rewards, done = env.step(_random_legal(rng, mask))
    assert done.all() and (seat == -1).all() and not mask.any() and not obs.any()
    obs, mask, seat, rewards, done = env.step(np.zeros(6, np.int64))  # ignored at finished tables
    assert done.all() and not rewards.any()
    where = np.array([True, False, True, False, False, False])
    obs, mask, seat = env.reset(options={"reset_mask": where})
    assert np.array_equal(env.done, ~where) and np.array_equal(seat >= 0, where)
    assert mask[where].any(axis=1).all() and not mask[~where].any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_given_deals_start_every_table(backend):
    from cavallo_env.briscola.engine import random_deal
    from cavallo_env.core.briscola import deal_ids

    pairs = [deal_ids(random_deal(s)) for s in range(4)]
    env = BatchedEnv("briscola", 4, backend=backend)
    obs, mask, seat = env.reset(options={"deals": {"ids": np.stack([p[0] for p in pairs]),
                                                   "leaders": np.array([p[1] for p in pairs])}})
    for i, (ids, leader) in enumerate(pairs):
        assert seat[i] == leader
        hand = ids[0:3] if leader == 0 else ids[3:6]
        assert sorted(np.flatnonzero(mask[i]).tolist()) == sorted(hand.tolist())


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_illegal_action_names_the_table_and_the_legal_ones_and_plays_nothing(backend):
    env = BatchedEnv("briscola", 3, seed=0, backend=backend)
    obs, mask, seat = env.reset()
    before = obs.copy()
    actions = np.flatnonzero(mask[0])[[0, 0, 0]]
    actions[1] = np.flatnonzero(~mask[1])[0]
    actions[2] = np.flatnonzero(mask[2])[0]
    with pytest.raises(ValueError, match=r"table 1: action \d+ .*legal"):
        env.step(actions)
    assert np.array_equal(env.tables.observe(), before)


@pytest.mark.parametrize("kwargs,words", [
    ({"game": "tressette"}, "unknown game"),
    ({"num_envs": 0}, "num_envs"),
    ({"reward": "money"}, "reward must be one of"),
    ({"game": "cavalloicera", "deck": "milanesi"}, "one deck"),
    ({"deck": "piacentine"}, "deck must be one of"),
    ({"match": False}, "no matches"),
    ({"game": "scopa", "match": "yes"}, "match must be True"),
    ({"bots": {1: "greedyish"}}, "unknown bot"),
    ({"bots": {2: "random"}}, "seats are 0..1"),
    ({"bots": ["random", "random"]}, "every seat has a bot"),
    ({"bots": ["random"]}, "one entry per seat"),
    ({"autoreset": 1}, "autoreset must be"),
    ({"backend": "gpu"}, "backend must be"),
    ({"rng": "mt"}, "rng must be"),
    ({"seed": -1}, "seed must be None or an int >= 0"),
    ({"seed": "abc"}, "seed must be None or an int >= 0"),
])
def test_bad_options_say_what_is_wrong(kwargs, words):
    kwargs = {"game": "briscola", "num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=words):
        BatchedEnv(kwargs.pop("game"), kwargs.pop("num_envs"), **kwargs)


def test_bad_actions_and_calls_say_what_is_wrong():
    env = BatchedEnv("scopa", 3, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, np.int64))
    env.reset()
    for bad, words in [(np.zeros(4, np.int64), "3 integer action ids"), (np.zeros(3, np.float32), "integer"),
                       (np.array([-1, 0, 0]), "table 0: action -1 is not an action id"),
                       (np.array([0, 0, 120]), r"table 2: action 120 is not an action id 0..119")]:
        with pytest.raises(ValueError, match=words):
            env.step(bad)
    obs, mask, seat = (x.copy() for x in env.reset(seed=4))
    illegal = np.where(mask.argmin(axis=1) == mask.argmax(axis=1), 0, mask.argmin(axis=1))
    with pytest.raises(ValueError, match=r"table 0: action \d+ .*; legal: "):
        env.step(illegal)
    assert np.array_equal(env.seat, seat) and np.array_equal(env.mask, mask) and not env.done.any()
    for options, words in [({"deal": 1}, "unknown reset option"), ({"reset_mask": [True]}, "reset_mask must be 3"),
                           ({"deals": [1]}, "must be a dict"), ({"deals": {"ids": 1}}, "required"),
                           ("x", "options must be a dict")]:
        with pytest.raises(ValueError, match=words):
            env.reset(options=options)
    with pytest.raises(ValueError, match="each card id 0..39 exactly once"):
        env.reset(options={"deals": {"ids": np.zeros((3, 40), np.int8), "dealers": np.zeros(3, np.int8)}})


def test_python_backend_is_chosen_by_the_environment(monkeypatch):
    monkeypatch.setenv("CAVALLO_CORE", "python")
    assert choose_backend() == "python"
    assert BatchedEnv("briscola", 2).backend == "python"
    assert choose_backend("python") == "python"
    assert "random" in BOTS


@pytest.mark.parametrize("game", GAMES)
def test_single_agent_vector_env_is_a_gymnasium_vector_env(game):
    seats, actions, obs_size = GAMES[game]
    env = SingleAgentVectorEnv(game, 6, seat=1, opponents="random", seed=0)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(actions)
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    obs, info = wrapped.reset(seed=5)
    assert env.observation_space.contains(obs) and obs.shape == (6, obs_size)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"])
        act = _random_legal(rng, mask)
        assert env.action_space.contains(act)
        obs, reward, terminated, truncated, info = wrapped.step(act)
        assert env.observation_space.contains(obs)
        assert reward.shape == (6,) and terminated.dtype == bool and not truncated.any()
        assert (env.env.seat == 1).all()
        episodes += int(info.get("_episode", np.zeros(6, bool)).sum())
    assert episodes > 0
    again = SingleAgentVectorEnv(game, 6, seat=1, opponents="random", seed=0)
    assert np.array_equal(again.reset(seed=5)[0], SingleAgentVectorEnv(game, 6, seat=1, seed=9).reset(seed=5)[0])


def test_single_agent_vector_env_bad_arguments():
    with pytest.raises(ValueError, match="seat must be one of 0..1"):
        SingleAgentVectorEnv("briscola", 2, seat=2)
    with pytest.raises(ValueError, match="opponents must be one bot name or 3"):
        SingleAgentVectorEnv("cavalloicera", 2, opponents=["random"])
    with pytest.raises(ValueError, match="unknown bot"):
        SingleAgentVectorEnv("briscola", 2, opponents="heuristic-ish")
    with pytest.raises(RuntimeError, match="reset"):
        SingleAgentVectorEnv("briscola", 2).action_masks()


def test_the_docs_examples_run():
    """docs/environment.md's "The batched env" python blocks run as written."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "environment.md").read_text(encoding="utf-8")
    section = text[text.index("\n# The batched env"):]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block.replace("range(2000)", "range(50)"), "environment.md", "exec"), {})


def test_the_python_path_plays_the_greedy_bot():
    """The Python path's greedy bot (the Python bot, move by move) beats a random learner in Briscola."""
    env = BatchedEnv("briscola", 8, bots={1: "greedy"}, seed=2, backend="python")
    obs, mask, seat = env.reset()
    rng = np.random.default_rng(2)
    returns = []
    for _ in range(100):  # 20 learner decisions a deal: about 40 deals
        obs, mask, seat, rewards, done = env.step(_random_legal(rng, mask))
        returns += rewards[done, 0].tolist()
    assert len(returns) >= 30 and np.mean(returns) < -10  # random vs greedy: about -41 points a deal
    with pytest.raises(ValueError, match="bot must be one of 'greedy', 'heuristic'"):
        env.tables.bot_actions("random")
