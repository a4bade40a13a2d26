"""Random positions shared by the bot and view tests."""

from __future__ import annotations

import random

from cavallo_env.cavalloicera.engine import NUM_TURNS, CavalloiceraState


def random_position(rng: random.Random, turn: int | None = None) -> CavalloiceraState:
    """A random deal played by random legal moves to a random (or given) turn."""
    state = CavalloiceraState.new(rng.randrange(1 << 30))
    stop = rng.randrange(NUM_TURNS) if turn is None else turn
    while state.turn < stop:
        state.play(*rng.choice(state.legal_moves()))
    return state
