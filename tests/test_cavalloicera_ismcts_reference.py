"""The game-generic ISMCTS plays Cavalloìcera exactly as the Cavalloìcera-only search did.

``tests/fixtures/ismcts_cavalloicera_reference.json`` holds 24 decisions (the
move and every root visit count) of the search as it was before it became
game-generic (commit edaa1c6), over several option sets; the search over the
game layer must reproduce each of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cavallo_env.bots.ismcts import from_spec
from cavallo_env.cavalloicera.views import legal_moves_of, move_to_dict

REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "ismcts_cavalloicera_reference.json").read_text())


def test_reference_is_present():
    assert len(REFERENCE) == 24
    assert len({r["spec"] for r in REFERENCE}) == 6


@pytest.mark.parametrize("game", [None, "cavalloicera"])
def test_decisions_and_visit_counts_are_unchanged(game):
    for r in REFERENCE:
        bot = from_spec(r["spec"].split(":", 1)[1], seed=r["seed"], game=game)
        move, visits = bot.move_and_visits(r["view"], legal_moves_of(r["view"]))
        assert move_to_dict(move) == r["move"], (r["spec"], r["seed"])
        assert [[move_to_dict(m), n] for m, n in visits.items()] == r["visits"], (r["spec"], r["seed"])


def test_a_cavalloicera_option_another_game_refuses_is_refused_on_that_games_views():
    from cavallo_env import games
    from cavallo_env.bots import make
    from cavallo_env.errors import ViewError

    bot = make("ismcts:20,rollout=random", seed=0)  # version 1 spec: a Cavalloìcera rollout
    g = games.get("briscola")
    state = g.new_state(1)
    with pytest.raises(ViewError, match="cannot play briscola"):
        bot.choose(g.make_view(state, state.current))
