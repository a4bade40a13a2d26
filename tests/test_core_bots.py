"""The fixed bots and the heuristic prior in the compiled core against the Python ones (docs/core.md,
"The bots in the core").

Deals are played through the core and the engine side by side, each table's
moves chosen at random, by the greedy bot or by the heuristic bot (so the
positions are those of random and of bot play); at every position the core's
``bot_actions("greedy")`` and ``bot_actions("heuristic")`` must be the action
of the move the Python bot chooses from the seat's view (``bots.make(...)
.choose(view)``), and ``prior()`` the game's ``prior.action_prior`` of the
state, float for float.  The module skips, saying how to build the core, only
when the extension is not built (and fails instead with
``CAVALLO_REQUIRE_CORE=1``).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from cavallo_env import core, games
from cavallo_env.bots import make

_MISSING = core.missing_reason()
if _MISSING is not None:
    if os.environ.get("CAVALLO_REQUIRE_CORE") == "1":
        raise ImportError(f"CAVALLO_REQUIRE_CORE=1 but {_MISSING}")
    pytest.skip(_MISSING, allow_module_level=True)

from cavallo_env.core.bots import BOTS  # noqa: E402

POSITIONS = int(os.environ.get("CAVALLO_CORE_POSITIONS", "2000"))  # at least, per game and policy mix


def _policy_actions(tables, rng: np.random.Generator, mix: tuple) -> np.ndarray:
    """Each table's next action from random play, the greedy bot or the heuristic bot, drawn per table
    with the probabilities ``mix``; the core's own picks (checked against Python before)."""
    picks = [tables.random_actions().copy(), tables.bot_actions("greedy").copy(),
             tables.bot_actions("heuristic").copy()]
    who = rng.choice(3, size=tables.n, p=mix)
    return np.choose(who, picks).astype(np.int32)


def _check_position(game, bots, state, i: int, got: dict, prior_of, action_of) -> None:
    """Table i's core bot actions and prior against the Python bots' and prior at ``state``."""
    if state.done:
        assert [got[b][i] for b in BOTS] == [-1] * len(BOTS)
        assert not got["prior"][i].any()
        return
    view = game.make_view(state, state.current)
    for b in BOTS:
        move = game.move_from_dict(bots[b].choose(view), view.get("deck"))
        assert got[b][i] == action_of(state, move), (b, i, view)
    want = prior_of(state)
    np.testing.assert_array_equal(got["prior"][i], want, err_msg=f"table {i}: {view}")


# ---------------------------------------------------------------- Briscola


def _briscola_deals(n: int, seed: int, deck: str):
    from cavallo_env.briscola.engine import random_deal
    from cavallo_env.core.briscola import BriscolaTables

    seeds = [seed * 100_003 + i for i in range(n)]
    tables = BriscolaTables(n, rng="python")
    tables.reset(seeds, deck)
    return [random_deal(s, deck) for s in seeds], tables


@pytest.mark.parametrize("deck, mix", [("milanesi", (0.4, 0.3, 0.3)), ("bresciane", (0.1, 0.45, 0.45))])
def test_briscola_bots_and_prior(deck, mix):
    from cavallo_env.briscola.prior import action_prior

    game = games.get("briscola")
    bots = {b: make(b, game="briscola") for b in BOTS}
    n = max(1, POSITIONS // 40 + 1)  # 40 positions a deal
    states, tables = _briscola_deals(n, 7 if deck == "milanesi" else 8, deck)
    rng = np.random.default_rng(len(deck))
    positions = 0
    while not tables.done.all():
        got = {b: tables.bot_actions(b).copy() for b in BOTS}
        got["prior"] = tables.prior().copy()
        for i, state in enumerate(states):
            _check_position(game, bots, state, i, got, action_prior, lambda s, m: m)
            positions += not state.done
        actions = _policy_actions(tables, rng, mix)
        tables.step(actions)
        for state, a in zip(states, actions.tolist()):
            if a >= 0:
                state.play(a)
    assert positions >= POSITIONS


def test_bad_bot_names_are_refused():
    from cavallo_env.core.briscola import BriscolaTables

    tables = BriscolaTables(2)
    with pytest.raises(ValueError, match="bot must be one of 'greedy', 'heuristic'"):
        tables.bot_actions("random")
    with pytest.raises(ValueError, match="where must be 2 booleans"):
        tables.prior(where=[True])
