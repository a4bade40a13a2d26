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


def _random_actions(tables, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action at every table (-1 where over), drawn by numpy from the mask (the
    tables' own generators stay untouched, so later deals of a match are the engine's)."""
    scores = rng.random(tables.mask.shape) * tables.mask
    return np.where(tables.done, -1, scores.argmax(axis=1)).astype(np.int32)


def _policy_actions(tables, rng: np.random.Generator, mix: tuple) -> np.ndarray:
    """Each table's next action from random play, the greedy bot or the heuristic bot, drawn per table
    with the probabilities ``mix``; the core's own picks (checked against Python before)."""
    picks = [_random_actions(tables, rng), tables.bot_actions("greedy").copy(),
             tables.bot_actions("heuristic").copy()]
    who = rng.choice(3, size=tables.n, p=mix)
    return np.choose(who, picks).astype(np.int32)


def _walk(tables, drivers: list, step, check, mix: tuple, seed: int, limit: int | None = None) -> int:
    """Step ``tables`` and the Python ``drivers`` (one per table, with ``.done``; ``step(driver, action)``)
    side by side, each table's actions drawn from ``mix``, until every table is done (or ``limit``
    positions were checked); at every position ``check(driver, i, got)`` compares the Python side with
    the core's bot actions and prior.  Returns the positions checked."""
    rng = np.random.default_rng(seed)
    positions = 0
    while not tables.done.all() and (limit is None or positions < limit):
        got = {b: tables.bot_actions(b).copy() for b in BOTS}
        got["prior"] = tables.prior().copy()
        for i, driver in enumerate(drivers):
            if driver.done:
                assert [got[b][i] for b in BOTS] == [-1] * len(BOTS) and not got["prior"][i].any()
                continue
            check(driver, i, got)
            positions += 1
        actions = _policy_actions(tables, rng, mix)
        tables.step(actions)
        for driver, a in zip(drivers, actions.tolist()):
            if a >= 0:
                step(driver, a)
    return positions


def _same(i: int, got: dict, want: dict, prior, where) -> None:
    assert {b: int(got[b][i]) for b in BOTS} == want, (i, where)
    np.testing.assert_array_equal(got["prior"][i], prior, err_msg=f"table {i}: {where}")


# ---------------------------------------------------------------- Briscola


@pytest.mark.parametrize("deck, mix", [("milanesi", (0.4, 0.3, 0.3)), ("bresciane", (0.1, 0.45, 0.45))])
def test_briscola_bots_and_prior(deck, mix):
    from cavallo_env.briscola.engine import random_deal
    from cavallo_env.briscola.prior import action_prior
    from cavallo_env.core.briscola import BriscolaTables

    game = games.get("briscola")
    bots = {b: make(b, game="briscola") for b in BOTS}

    def check(state, i, got):  # a Briscola action is the card played
        view = game.make_view(state, state.current)
        want = {b: game.move_from_dict(bots[b].choose(view), deck) for b in BOTS}
        _same(i, got, want, action_prior(state), view)

    n = POSITIONS // 40 + 1  # 40 positions a deal
    seeds = [len(deck) * 100_003 + i for i in range(n)]
    tables = BriscolaTables(n, rng="python")
    tables.reset(seeds, deck)
    states = [random_deal(s, deck) for s in seeds]
    assert _walk(tables, states, lambda st, a: st.play(a), check, mix, len(deck)) >= POSITIONS


def test_bad_bot_names_are_refused():
    from cavallo_env.core.briscola import BriscolaTables

    tables = BriscolaTables(2)
    with pytest.raises(ValueError, match="bot must be one of 'greedy', 'heuristic'"):
        tables.bot_actions("random")
    with pytest.raises(ValueError, match="where must be 2 booleans"):
        tables.prior(where=[True])


def test_where_leaves_the_other_tables_alone():
    from cavallo_env.core.scopa import ScopaTables

    tables = ScopaTables(3, match=False)
    tables.reset([1, 2, 3])
    every = tables.bot_actions("heuristic").copy()
    prior = tables.prior().copy()
    where = [True, False, True]
    assert tables.bot_actions("heuristic", where=where).tolist() == [every[0], -1, every[2]]
    got = tables.prior(where=where)
    np.testing.assert_array_equal(got[[0, 2]], prior[[0, 2]])
    assert not got[1].any() and prior[1].any()


# ---------------------------------------------------------------- Scopa


def _scopa_want(game, bots, acts, view) -> dict:
    """The actions of the Python bots' moves at ``acts`` (a ``ScopaActions``); while a capture is built,
    each bot's best move among the sets still consistent with the cards taken, by its next take."""
    from cavallo_env.scopa.actions import TAKE, move_to_actions
    from cavallo_env.scopa.bots import Info, greedy_move, heuristic_move

    if acts.building is None:
        return {b: move_to_actions(acts.state, game.move_from_dict(bots[b].choose(view), view["deck"]))[0]
                for b in BOTS}
    card, taken, sets = acts.building
    play = {"greedy": greedy_move, "heuristic": heuristic_move}
    return {b: TAKE + play[b](Info(view), [(card, s) for s in sets])[1][len(taken)] for b in BOTS}


@pytest.mark.parametrize("deck, match, mix", [("milanesi", False, (0.4, 0.3, 0.3)),
                                              ("bresciane", True, (0.2, 0.4, 0.4))])
def test_scopa_bots_and_prior(deck, match, mix):
    from cavallo_env.core.scopa import ScopaTables
    from cavallo_env.scopa.actions import ScopaActions
    from cavallo_env.scopa.engine import random_state
    from cavallo_env.scopa.prior import action_prior

    game = games.get("scopa")
    bots = {b: make(b, game="scopa") for b in BOTS}

    def check(acts, i, got):
        view = game.make_view(acts.state, acts.state.current)
        _same(i, got, _scopa_want(game, bots, acts, view), action_prior(acts), (acts.building, view))

    n = POSITIONS // 36 + 1  # 36 moves a deal, a few more actions (captures with a choice)
    seeds = [1000 * match + i for i in range(n)]
    tables = ScopaTables(n, match=match, rng="python")
    tables.reset(seeds, deck)
    drivers = [ScopaActions(random_state(s, deck, match)) for s in seeds]
    # matches go on into their later deals (dealt by each state's generator, as the core's)
    assert _walk(tables, drivers, ScopaActions.step, check, mix, 3 + match, limit=3 * POSITIONS) >= POSITIONS


# ---------------------------------------------------------------- Cavalloìcera


def _cavalloicera_want(game, bots, acts, view) -> dict:
    """The actions of the Python bots' moves at ``acts`` (a ``CavalloiceraActions``); while a capture is
    built, each bot's best move among the sets still consistent with the cards taken, by its next take."""
    from cavallo_env.cavalloicera.actions import TAKE, move_to_actions
    from cavallo_env.cavalloicera.bots import HeuristicBot
    from cavallo_env.cavalloicera.prior import move_scores

    if acts.building is None:
        return {b: move_to_actions(acts.state, *game.move_from_dict(bots[b].choose(view)))[0] for b in BOTS}
    card, taken, sets = acts.building
    reachable = [(card, s) for s in sets]
    scores = move_scores(acts)[0]
    heuristic = reachable[HeuristicBot.best_index([scores[m] for m in reachable], reachable)]
    return {"greedy": TAKE + bots["greedy"].choose_move(view, reachable)[1][len(taken)],
            "heuristic": TAKE + heuristic[1][len(taken)]}


@pytest.mark.parametrize("mix", [(0.4, 0.3, 0.3), (0.1, 0.45, 0.45)])
def test_cavalloicera_bots_and_prior(mix):
    from cavallo_env.cavalloicera.actions import CavalloiceraActions
    from cavallo_env.cavalloicera.engine import CavalloiceraState, random_deal
    from cavallo_env.cavalloicera.prior import action_prior
    from cavallo_env.core.cavalloicera import CavalloiceraTables

    game = games.get("cavalloicera")
    bots = {b: make(b, game="cavalloicera") for b in BOTS}

    def check(acts, i, got):
        view = game.make_view(acts.state, acts.state.current)
        _same(i, got, _cavalloicera_want(game, bots, acts, view), action_prior(acts), (acts.building, view))

    n = POSITIONS // 48 + 1  # 48 moves a deal, more actions
    seeds = [500 + int(10 * mix[0]) * 1000 + i for i in range(n)]
    tables = CavalloiceraTables(n, rng="python")
    tables.reset(seeds)
    drivers = [CavalloiceraActions(CavalloiceraState(*random_deal(s))) for s in seeds]
    assert _walk(tables, drivers, CavalloiceraActions.step, check, mix, 11) >= POSITIONS


def test_bots_speed_benchmark_runs(capsys):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "bots_speed.py"
    spec = importlib.util.spec_from_file_location("bots_speed", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--game", "briscola", "--seconds", "0.01", "--rounds", "1", "--tables", "8"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [r[:2] for r in rows] == [["briscola", "greedy"], ["briscola", "heuristic"], ["briscola", "prior"]]
    assert all(float(r[2]) > 0 and float(r[3]) > 0 for r in rows)
