"""The rollout on the compiled core plays the same games as on the Python engines: the prior and
the fixed bots' moves taken from the core's tables (``training.rollout``) give the same batch, bit for
bit, in every game (Scopa's matches to 11 included).  Skips, saying how to build the core, only when
the extension is not built (fails instead with ``CAVALLO_REQUIRE_CORE=1``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cavallo_env import core, games  # noqa: E402

_MISSING = core.missing_reason()
if _MISSING is not None:
    if os.environ.get("CAVALLO_REQUIRE_CORE") == "1":
        raise ImportError(f"CAVALLO_REQUIRE_CORE=1 but {_MISSING}")
    pytest.skip(_MISSING, allow_module_level=True)

from training.advantages import batch as make_batch  # noqa: E402
from training.model import ModelConfig, build_policy  # noqa: E402
from training.rollout import play_rollout  # noqa: E402

OPPONENTS = ["self", "heuristic", ("snapshot", 0), "greedy", "heuristic", "self", "greedy", "heuristic"] * 2


def _rollout(monkeypatch, switch: str, game: str, options: dict):
    monkeypatch.setenv("CAVALLO_CORE", switch)
    learning = games.get(game).learning()
    torch.manual_seed(0)
    net = build_policy(ModelConfig(hidden=[32], prior=True), learning)
    buf, stats = play_rollout(net, OPPONENTS, [net], learning, rng=np.random.default_rng(3),
                              gen=torch.Generator().manual_seed(3), device="cpu", game_options=options)
    return make_batch(buf.trajectories(), "gae"), stats


@pytest.mark.parametrize("game, options", [("briscola", {"deck": "milanesi"}), ("scopa", {"match": True}),
                                           ("scopa", {"match": False}), ("cavalloicera", {}),
                                           ("briscola", {"deck": "bresciane"}),
                                           ("scopa", {"match": False, "deck": "bresciane"})])
def test_the_core_rollout_is_the_python_rollout(monkeypatch, game, options):
    py, py_stats = _rollout(monkeypatch, "python", game, options)
    on_core, core_stats = _rollout(monkeypatch, "core", game, options)
    for k in ("obs", "mask", "actions", "logp", "values", "advantages", "prior"):
        assert np.array_equal(getattr(py, k), getattr(on_core, k)), k
    assert (py_stats.decisions, py_stats.results) == (core_stats.decisions, core_stats.results)
    assert set(py_stats.results) == {"self", "heuristic", "greedy", ("snapshot", 0)}


@pytest.mark.parametrize("game, options", [("scopa", {"match": True}), ("cavalloicera", {}), ("briscola", {})])
def test_the_core_tables_say_when_a_move_is_being_built(game, options):
    """``CoreTables.building(i)``, which the core rollout asks to finish a bot's move, is the Python
    table's capture being built at every step of random play (a Scopa match's later deals included)."""
    from training.rollout import core_tables

    learning = games.get(game).learning()
    seeds = list(range(40, 52))
    on_core = core_tables(game, seeds, options, reward="points")
    tables = [learning.table(learning.deal(s, **options)) for s in seeds]
    rng = np.random.default_rng(0)
    built = 0
    while not on_core.done.all():
        acts = np.full(on_core.n, -1, dtype=np.int32)
        for i, t in enumerate(tables):
            if not t.done:
                assert on_core.building(i) == (getattr(t.game, "building", None) is not None), (game, i)
                built += on_core.building(i)
                acts[i] = t.legal_actions()[rng.integers(len(t.legal_actions()))]
                t.step(int(acts[i]))
        on_core.step(acts)
    assert built > 0 or game == "briscola"


def test_train_speed_runs_both_engines_in_turn_as_one_run(monkeypatch):
    """``benchmarks/train_speed.py --engines both``: the Python engines' run and the core's, updated in
    turn in one process, are the same run (decisions and weights bit for bit), and CAVALLO_CORE is
    left as it was."""
    import importlib.util
    from pathlib import Path

    from training.config import load

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "train_speed.py"
    spec = importlib.util.spec_from_file_location("train_speed", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    cfg = load(path.parent.parent / "configs" / "quick-scopa.yaml")
    cfg.games, cfg.prior_workers = 8, 0
    runs = [bench.Bench(cfg, engine, "cpu") for engine in ("python", "core")]
    for _ in range(2):
        for b in runs:
            b.update()
    py, on_core = (b.result("quick-scopa", 2) for b in runs)
    assert (py["core"], on_core["core"]) == (False, True) and "CAVALLO_CORE" not in os.environ
    assert py["decisions"] == on_core["decisions"] > 0
    for (k, a), (_, b) in zip(runs[0].run.model.state_dict().items(), runs[1].run.model.state_dict().items()):
        assert torch.equal(a, b), k
