"""What the batched env's Python path asks of a game (``Game``: ``new_state`` from a generator,
``state_from_ids``, ``deal_of``, ``move_actions``, ``random_actions``), checked against the pieces
they stand for: the seeded deals, the core's ``deal_ids``, ``state_from_deal``, the learning table.
The whole path against the compiled core: tests/test_vector.py."""

from __future__ import annotations

import importlib
import random

import pytest

from cavallo_env import games
from cavallo_env.games.base import RandomActions

#: options of each game's deals as the batched env makes them (a deck where the env takes one)
OPTIONS = {"briscola": {"deck": "bresciane"}, "cavalloicera": {}, "scopa": {"deck": "milanesi", "match": True}}


def _core_deal_ids(name: str, state):
    """``cavallo_env.core.<game>.deal_ids`` of ``state``'s deal (Scopa's takes the deal; no extension needed)."""
    deal_ids = importlib.import_module(f"cavallo_env.core.{name}").deal_ids
    ids, first = deal_ids(state.deal if name == "scopa" else state)
    return ids.tolist(), int(first)


@pytest.mark.parametrize("name", games.names())
def test_a_deal_from_a_generator_is_the_seeded_deal_and_the_generator_goes_on(name):
    game = games.get(name)
    for seed in range(5):
        rng = random.Random(seed)
        state = game.new_state(rng, **OPTIONS[name])
        assert game.to_record(state) == game.to_record(game.new_state(seed, **OPTIONS[name]))
        again = random.Random(seed)
        game.new_state(again, **OPTIONS[name])
        assert rng.random() == again.random()  # the deal drew from the generator itself


@pytest.mark.parametrize("name", games.names())
def test_a_deal_by_ids_and_by_names_gives_back_the_deal(name):
    game = games.get(name)
    for seed in range(5):
        state = game.new_state(seed, **OPTIONS[name])
        ids, first = _core_deal_ids(name, state)
        rebuilt = game.state_from_ids(ids, first, random.Random(0), **OPTIONS[name])
        assert game.to_record(rebuilt) == game.to_record(state)
        assert game.to_record(game.state_from_deal(game.deal_of(state), **OPTIONS[name])) == game.to_record(state)
        assert set(game.deal_of(state)) == set(game.deal_keys)


@pytest.mark.parametrize("name", games.names())
def test_move_actions_are_the_learning_tables(name):
    game = games.get(name)
    learning = game.learning()
    rng = random.Random(1)
    for seed in range(3):
        state = game.new_state(seed, **OPTIONS[name])
        while not state.done:
            for move in state.legal_moves():
                assert game.move_actions(state, move) == learning.table(state.copy()).move_actions(move)
            game.play(state, rng.choice(state.legal_moves()))


@pytest.mark.parametrize("name", games.names())
def test_random_actions_play_legal_moves_to_the_end(name):
    game = games.get(name)
    env = game.raw_env(**OPTIONS[name])
    for seed in range(3):
        env.reset(options={"deal": game.deal_of(game.new_state(seed, **OPTIONS[name]))})
        rng = random.Random(seed)
        game.use_rng(env, rng)
        draws = game.random_actions(rng)
        assert isinstance(draws, RandomActions)
        steps = 0
        while not env.terminations[env.agent_selection]:
            action = draws.next(env.core)
            assert env.core.legal_mask()[action], (steps, action)
            env.step(action)
            draws.played(env.core)
            steps += 1
        assert steps >= 40
