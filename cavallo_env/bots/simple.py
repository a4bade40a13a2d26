"""``random``: the baseline every game shares (each game writes its own ``greedy``)."""

from __future__ import annotations

import random

from .base import Bot, view_seed


class RandomBot(Bot):
    """Uniform over the legal moves (each (card, capture set) pair once).

    Each decision is seeded from the bot seed and the view, so the bot is
    stateless: the same view always gets the same move.
    """

    name = "random"

    def choose_move(self, view, legal):
        return random.Random(view_seed(self.seed, view)).choice(legal)

