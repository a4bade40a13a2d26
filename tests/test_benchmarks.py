"""The small benchmark scripts run end to end on tiny settings (so they do not rot)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _script(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_teacher_agreement_reports_rates(capsys):
    assert _script("teacher_agreement").main(["ismcts:30", "1", "ismcts:60"]) == 0
    out = capsys.readouterr().out
    rates = [float(x) for x in re.findall(r"([0-9.]+)%", out)]
    assert len(rates) == 3 and all(0 <= r <= 100 for r in rates)
    assert re.search(r"ismcts:30: \d+ decisions with a choice, 1 deals", out)


def test_ismcts_timing_runs(capsys):
    assert _script("ismcts_timing").main(["ismcts:20", "1"]) == 0
    assert "ms" in capsys.readouterr().out


def test_scua_by_phase_counts_per_block(capsys):
    mod = _script("scua_by_phase")
    assert mod.main(["greedy", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("a ", "b "))]
    assert [r[0] for r in rows] == ["a", "b"]
    for r in rows:
        blocks, total = [float(x) for x in r[1:7]], float(r[7])
        assert all(x >= 0 for x in blocks) and abs(sum(blocks) - total) < 0.01
    assert sum(float(r[7]) for r in rows) > 0  # the 4 games of these fixed deals have scùas


def test_train_speed_runs_for_the_cavalloicera_config(capsys):
    assert _script("train_speed").main(["--config", "configs/quick-cavalloicera.yaml", "--updates", "1", "--games", "4",
                                        "--prior-workers", "0"]) == 0
    out = capsys.readouterr().out
    assert "train_speed: cavalloicera" in out and re.search(r"decisions/s .* +\d+", out)


def test_ai_latency_times_every_level_the_copy_ships(capsys):
    from cavallo_env import levels

    mod = _script("ai_latency")
    rows = mod.level_latency("briscola", 1, 1)
    assert [r["level"] for r in rows] == levels.offered("briscola")
    for r in rows:
        assert r["spec"] == levels.spec(r["level"], "briscola") and r["decisions"] == 40  # one deal: 40 views
        assert 0 < r["median_ms"] <= r["p99_ms"] <= r["max_ms"] and r["mean_ms"] <= r["max_ms"]
        assert r["target_met"] == mod.meets_contract(r["level"], r)
    table = mod.levels_table(rows).splitlines()
    assert len(table) == 2 + len(rows) and table[2].startswith(f"| briscola | {rows[0]['level']} |")
    assert mod.meets_contract("fast", {"median_ms": 0.9}) and not mod.meets_contract("fast", {"median_ms": 1.1})
    assert mod.meets_contract("strong", {"mean_ms": 99.0, "max_ms": 999.0})
    assert not mod.meets_contract("strong", {"mean_ms": 99.0, "max_ms": 1001.0})
    assert mod.main(["--levels", "--games", "briscola,chess"]) == 2
    assert "--games: unknown chess" in capsys.readouterr().err
