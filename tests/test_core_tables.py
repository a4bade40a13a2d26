"""What the three games' tables on the compiled core share (cavallo_env/core/tables.py, _tables.pxi,
batch.h), tested once for each game: errors that name the problem, finished and skipped tables, the
seeded deals checked against this Python's ``random`` and the engine's deals used where they differ,
the vector sizes, and the speed benchmark.  The game files (tests/test_core_<game>.py) prove each
game identical to its engine."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from core_harness import core_speed, require_core

require_core()

from cavallo_env import core  # noqa: E402
from cavallo_env.core import tables as core_tables  # noqa: E402
from cavallo_env.core.briscola import BriscolaTables  # noqa: E402
from cavallo_env.core.cavalloicera import CavalloiceraTables  # noqa: E402
from cavallo_env.core.scopa import ScopaTables  # noqa: E402

GAMES = {"briscola": BriscolaTables, "cavalloicera": CavalloiceraTables, "scopa": ScopaTables}
# what the message says of a legal-looking but illegal action, and of one past the last id
ILLEGAL = {
    "briscola": (r"is not a card in the hand of seat \d; legal: ", "is not a card id 0..39"),
    "cavalloicera": (r"\(.*\) is not legal for seat \d; legal: ", "is not an action id 0..155"),
    "scopa": (r"\(.*\) is illegal for seat \d; legal: ", "is not an action id 0..119"),
}
OVER = {"briscola": "the deal is over", "cavalloicera": "the deal is over", "scopa": "the match is over"}


def _single(game: str, n: int, **kw):
    """n tables of one deal each (a Scopa match would go on for several)."""
    return ScopaTables(n, match=False, **kw) if game == "scopa" else GAMES[game](n, **kw)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_actions_say_what_is_legal_and_play_nothing(game):
    tables = GAMES[game](2)
    tables.reset([1, 2])
    bad = int(np.flatnonzero(tables.mask[1] == 0)[0])
    ok = int(np.flatnonzero(tables.mask[0])[0])
    before = tables.snapshot(0)
    move, past = ILLEGAL[game]
    with pytest.raises(ValueError, match=rf"table 1: action {bad} {move}"):
        tables.step([ok, bad])
    assert tables.snapshot(0) == before
    last = tables.NUM_ACTIONS
    with pytest.raises(ValueError, match=f"table 0: action {last} {past}"):
        tables.step([last, -1])


@pytest.mark.parametrize("game", GAMES)
def test_finished_tables_must_be_skipped_or_reset(game):
    tables = _single(game, 1)
    assert tables.done[0] and tables.random_actions()[0] == -1  # before any deal
    with pytest.raises(ValueError, match=f"table 0: {OVER[game]}"):
        tables.step([0])
    tables.reset([3])
    while not tables.done[0]:
        tables.step(tables.random_actions())
    with pytest.raises(ValueError, match=f"table 0: {OVER[game]}"):
        tables.step([0])
    tables.step([-1])
    assert tables.rewards.tolist() == [[0.0] * tables.SEATS]


@pytest.mark.parametrize("game", GAMES)
def test_partial_reset_and_skipped_tables(game):
    tables = _single(game, 3)
    tables.reset([5, 6, 7])
    before = [tables.snapshot(i) for i in range(3)]
    actions = tables.random_actions().copy()
    actions[1] = -1  # skip table 1
    tables.step(actions)
    after = [tables.snapshot(i) for i in range(3)]
    assert after[1] == before[1] and after[0] != before[0] and after[2] != before[2]
    tables.reset([50, 60, 70], where=[True, False, False])
    fresh = _single(game, 1)
    fresh.reset([50])
    assert tables.snapshot(0) == fresh.snapshot(0)
    assert tables.snapshot(1) == after[1] and tables.snapshot(2) == after[2]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("call,match", [
    (lambda t: t.reset([1]), r"seeds must be 2 integers"),
    (lambda t: t.reset(7), r"seeds must be 2 integers \(one per table\), got int"),
    (lambda t: t.reset([1, 2.0]), r"seed 1 must be an int"),
    (lambda t: t.reset([1, 2**64]), r"seed 1 must be an int with abs\(seed\) < 2\*\*64"),
    (lambda t: t.reset([1, 2], where=[True]), r"where must be 2 booleans"),
    (lambda t: t.step([0.5, 1.5]), r"actions must be 2 integer (card|action) ids"),
    (lambda t: t.observe([0, 4]), r"seats must be 2 seats 0"),
    (lambda t: t.reset_deals(np.zeros((2, 3)), [0, 0]), r"a deal is (40|52) card ids"),
    (lambda t: type(t)(2, reward="score"), r"reward must be one of '(points|win)', '(points|win)'"),
    (lambda t: type(t)(0), r"the number of tables must be an int >= 1"),
    (lambda t: type(t)(True), r"the number of tables must be an int >= 1"),
    (lambda t: type(t)(2, rng="numpy"), r"rng must be one of 'python', 'fast'"),
])
def test_bad_input_is_named(game, call, match):
    tables = GAMES[game](2)
    with pytest.raises(ValueError, match=match):
        call(tables)


@pytest.mark.parametrize("game", GAMES)
def test_snapshot_of_a_missing_table_is_an_index_error(game):
    with pytest.raises(IndexError, match="table 2 out of range 0..1"):
        GAMES[game](2).snapshot(2)


@pytest.mark.parametrize("game", GAMES)
def test_seeded_deals_are_the_engines_and_the_engine_deals_where_they_differ(game, monkeypatch):
    cls = GAMES[game]
    assert cls.seeded_deals_agree()
    seeds = [0, 1, -1, 2**63, 2**64 - 1, 99]
    core_dealt = cls(len(seeds))
    core_dealt.reset(seeds)
    monkeypatch.setitem(core_tables._AGREES, cls, False)  # as if this Python's random differed from the core's
    tables = cls(len(seeds))
    if game == "scopa":  # a match's later deals come from the core's generator: no engine fallback
        with pytest.raises(RuntimeError, match="use rng='fast' or the Python engine"):
            tables.reset(seeds)
        return
    tables.reset(seeds)
    for i in range(len(seeds)):
        assert tables.snapshot(i) == core_dealt.snapshot(i)
    np.testing.assert_array_equal(tables.random_actions(), core_dealt.random_actions())  # the same generator
    tables.reset(seeds, where=[True, False] * 3)  # where holds with the engine's deals too
    assert tables.snapshot(0) == core_dealt.snapshot(0)


@pytest.mark.parametrize("game", GAMES)
def test_vector_sizes(game):
    cls = GAMES[game]
    ext = core.extension(game)
    encoding = importlib.import_module(f"cavallo_env.{game}.encoding")
    assert cls(2).observe().shape == (2, cls.OBS_SIZE) and ext.OBS_SIZE == cls.OBS_SIZE == encoding.OBS_SIZE
    assert cls(2).mask.shape == (2, cls.NUM_ACTIONS) and cls(2).rewards.shape == (2, cls.SEATS)
    if cls.STATE_SIZE:
        assert cls(2).state().shape == (2, cls.STATE_SIZE) and ext.STATE_SIZE == cls.STATE_SIZE == encoding.STATE_SIZE


def test_extension_names_the_games():
    assert core.available() and core.missing_reason() is None
    assert core.GAMES == tuple(GAMES)
    with pytest.raises(ValueError, match="the compiled core has no game 'tressette'"):
        core.extension("tressette")


@pytest.mark.parametrize("game", GAMES)
def test_core_speed_benchmark_runs(game, capsys):
    assert core_speed("--game", game) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{game}:") and all(name in out for name in ("core/python", "core+obs", "core-py"))


def test_core_speed_benchmark_runs_every_game_in_one_table(capsys):
    assert core_speed("--game", "all") == 0
    out = capsys.readouterr().out
    summary = out[out.index("all games, the same run"):].splitlines()
    assert [line.split()[0] for line in summary[2:]] == list(GAMES)
    assert all(line.rstrip().endswith(("ok", "MISSED")) and ">= 25x" in line for line in summary[2:])
