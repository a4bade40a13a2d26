"""``policy:scopa@search=N``: the shipped Scopa model, with ``ismcts:N`` at the decisions
``Learning.searched`` names (the second card of a round while the stock lasts)."""

from __future__ import annotations

import random

import pytest

from cavallo_env import games
from cavallo_env.bots import BotSpecError, make
from cavallo_env.games import checked_view
from cavallo_env.scopa.engine import random_state
from cavallo_env.scopa.learning import LEARNING


def _decisions(seed: int):
    """Every (state, view) where a seat must choose, along one single deal of random play."""
    g = games.get("scopa")
    rng = random.Random(seed)
    state = random_state(seed, match=False)
    while not state.done:
        moves = state.legal_moves()
        yield state, g.make_view(state, state.current)
        state.play(*rng.choice(moves))


def test_searched_is_the_second_card_of_each_round_while_the_stock_lasts():
    for seed in range(5):
        per_seat = [0, 0]
        for state, _ in _decisions(seed):
            deal = state.deal
            if LEARNING.searched(state):
                assert len(deal.hands[deal.current]) == 2 and deal.stock_size > 0
                per_seat[deal.current] += 1
            else:
                assert len(deal.hands[deal.current]) != 2 or deal.stock_size == 0
        assert per_seat == [5, 5]  # of a seat's 18 decisions: the median one stays the model's


def test_the_search_plays_the_searched_decisions_and_the_model_the_others():
    bot = make("policy:scopa@search=40", seed=3)
    model, search = make("policy:scopa", seed=3), make("ismcts:40", seed=3, game="scopa")
    assert bot.name == "policy:scopa@search=40" and bot.info["search"] == 40
    assert model.info["search"] == 0 and model.search is None
    searched = differs = 0
    for seed in range(3):
        for state, view in _decisions(seed):
            move = bot.choose(view)
            if LEARNING.searched(checked_view(view, "scopa")[1]) and len(view["legal_moves"]) > 1:
                searched += 1
                assert move == search.choose(view)
                differs += move != model.choose(view)
            else:
                assert move == model.choose(view)
            assert bot.choose(view) == move  # the same view, the same move: no state kept
    assert searched >= 20 and differs > 0


@pytest.mark.parametrize("spec, why", [
    ("policy:briscola@search=1000", "not measured to help briscola"),
    ("policy:cavalloicera@search=1000", "not measured to help cavalloicera"),
    ("policy:default@search=1000", "not policy:default"),
    ("policy:scopa@search=-5", "iteration count >= 0"),
    ("policy:scopa@search=many", "is not a number"),
])
def test_a_bad_search_option_names_the_problem(spec, why):
    with pytest.raises(BotSpecError, match=why):
        make(spec)


def test_search_zero_is_the_model_alone():
    bot = make("policy:scopa@search=0")
    assert bot.search is None and bot.name == "policy:scopa"
