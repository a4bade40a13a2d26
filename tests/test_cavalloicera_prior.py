"""The heuristic prior (cavallo_env.cavalloicera.prior): exact agreement with the bot, nothing hidden, well formed."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cavallo_env.cavalloicera.actions import NUM_ACTIONS, CavalloiceraActions, move_to_actions
from cavallo_env.bots import make
from cavallo_env.cavalloicera.engine import CavalloiceraState
from cavallo_env.cavalloicera.prior import CLIP, PRIOR_SIZE, PriorCache, action_prior, heuristic_move
from cavallo_env.cavalloicera.views import make_view, move_from_dict


def _heuristic_deals(n: int, seed: int):
    """Every decision (game before the action, action) of ``n`` heuristic-vs-heuristic deals."""
    bot = make("heuristic")
    for d in range(n):
        game = CavalloiceraActions(CavalloiceraState.new(seed * 7919 + d))
        while not game.done:
            st = game.state
            move = move_from_dict(bot.choose(make_view(st, st.current)))
            assert heuristic_move(game) == move  # the state path plays exactly the view path's move
            for a in move_to_actions(st, *move):
                yield game, a
                game.step(a)


def test_prior_choice_is_the_heuristic_move_and_scores_are_well_formed():
    n = 0
    for game, action in _heuristic_deals(12, seed=3):
        p = action_prior(game)
        assert p.shape == (PRIOR_SIZE,) and p.dtype == np.float32
        legal = game.legal_actions()
        illegal = np.ones(NUM_ACTIONS, bool)
        illegal[legal] = False
        score, choice = p[:NUM_ACTIONS], p[NUM_ACTIONS:]
        assert (score[illegal] == 0).all() and (choice[illegal] == 0).all()
        assert choice.sum() == 1 and choice[action] == 1  # the heuristic's own action, sub-steps included
        assert score[legal].max() == 0 and score[legal].min() >= -CLIP
        assert score[action] == 0  # the chosen action leads to a best-scored move
        n += 1
    assert n > 500


def test_cache_gives_the_same_prior():
    cache = PriorCache()
    for game, _ in _heuristic_deals(4, seed=5):
        assert np.array_equal(action_prior(game, cache=cache), action_prior(game))


@pytest.mark.parametrize("seed", range(6))
def test_prior_sees_nothing_hidden(seed):
    """Dealing the other seats' unseen cards differently must not change the prior."""
    rng = random.Random(seed)
    state = CavalloiceraState.new(seed)
    for _ in range(rng.randrange(0, 46)):
        state.play(*rng.choice(state.legal_moves()))
    seat = state.current
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in state.hands[s]]
    before = action_prior(CavalloiceraActions(state))
    for _ in range(3):
        rng.shuffle(pool)
        other = state.copy()
        i = 0
        for s in others:
            k = len(state.hands[s])
            other.hands[s] = sorted(pool[i:i + k])
            i += k
        other._legal = None
        assert np.array_equal(action_prior(CavalloiceraActions(other)), before)
