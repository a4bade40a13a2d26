"""``cavallo simulate`` end to end through ``cli.main``."""

from __future__ import annotations

import json

import pytest

from cavallo_env import bots
from cavallo_env.bots import Bot
from cavallo_env.cli import main
from cavallo_env.cavalloicera.engine import BREAKDOWN_KEYS
from cavallo_env.records import iter_jsonl


def simulate(capsys, *argv):
    code = main(["simulate", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_simulate_writes_records_that_replay_accepts(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    code, out, _ = simulate(capsys, "--deals", 20, "--seed", 5, "--bots", "random,greedy,random,greedy", "--out", path)
    assert code == 0
    assert "20 deals, seed 5" in out
    assert "team 0 = seats 0,2: random + random" in out and "team 1 = seats 1,3: greedy + greedy" in out
    for key in ("wins", "draws", "mean points", *BREAKDOWN_KEYS):
        assert key in out
    recs = list(iter_jsonl(path))
    assert len(recs) == 20 and all("result" in r for _, r in recs)
    assert main(["replay", str(path)]) == 0
    assert "OK" in capsys.readouterr().out


def test_summary_json_agrees_with_the_records(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    code, out, _ = simulate(capsys, "--deals", 30, "--seed", 1, "--out", path, "--json")
    assert code == 0
    summary = json.loads(out)
    results = [r["result"] for _, r in iter_jsonl(path)]
    assert summary["deals"] == len(results) == 30
    assert summary["bots"] == ["random"] * 4
    wins = [sum(r["winner"] == t for r in results) for t in (0, 1)]
    assert [t["wins"] for t in summary["teams"]] == wins
    assert summary["draws"] == sum(r["winner"] is None for r in results) == 30 - sum(wins)
    for t in (0, 1):
        team = summary["teams"][t]
        assert team["seats"] == [t, t + 2]
        assert team["mean_points"] == pytest.approx(sum(r["team_points"][t] for r in results) / 30)
        for key in BREAKDOWN_KEYS:
            values = [r["breakdown"][t][key] for r in results]
            assert summary["breakdown"][key]["mean"][t] == pytest.approx(sum(values) / 30)
            assert summary["breakdown"][key]["rate"][t] == pytest.approx(sum(v > 0 for v in values) / 30)
    assert set(summary["breakdown"]) == set(BREAKDOWN_KEYS)


def test_same_seed_same_file(tmp_path, capsys):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    for path, seed in ((a, 3), (b, 3), (c, 4)):
        assert simulate(capsys, "--deals", 20, "--seed", seed, "--bots", "greedy,random", "--out", path, "--quiet")[0] == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_two_specs_mean_one_per_team(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    simulate(capsys, "--deals", 5, "--bots", "greedy,random", "--out", a)
    simulate(capsys, "--deals", 5, "--bots", "greedy,random,greedy,random", "--out", b)
    assert a.read_bytes() == b.read_bytes()


def test_greedy_beats_random(capsys):
    code, out, _ = simulate(capsys, "--deals", 100, "--seed", 11, "--bots", "greedy,random,greedy,random", "--json")
    assert code == 0
    teams = json.loads(out)["teams"]
    assert teams[0]["bots"] == ["greedy", "greedy"] and teams[1]["bots"] == ["random", "random"]
    assert teams[0]["mean_points"] > teams[1]["mean_points"] + 5
    assert teams[0]["wins"] > teams[1]["wins"]


@pytest.mark.parametrize("spec,message", [
    ("nosuchbot", "unknown bot 'nosuchbot'"),
    ("random,random,random", "1, 2 (per team) or 4"),
    ("random,,random,random", "empty bot spec"),
    ("random:3", "takes no argument"),
])
def test_bad_bot_spec(tmp_path, capsys, spec, message):
    path = tmp_path / "never.jsonl"
    code, out, err = simulate(capsys, "--deals", 2, "--bots", spec, "--out", path)
    assert code == 2
    assert message in err and err.startswith("cavallo simulate: error:")
    assert len(err.strip().splitlines()) == 1
    assert not path.exists()


def test_bad_deal_count(capsys):
    code, _, err = simulate(capsys, "--deals", 0)
    assert code == 2 and "--deals must be at least 1" in err


class _CheatBot(Bot):
    """Plays a card it does not hold: simulate must refuse it."""

    name = "cheat"

    def choose(self, view):
        held = set(view["hand"])
        other = next(f"{r}-{s}" for s in ("coins", "cups", "swords", "clubs")
                     for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F", "C", "R")
                     if f"{r}-{s}" not in held)
        return {"play": other, "capture": []}


def test_illegal_bot_move_is_an_error(tmp_path, capsys):
    bots.register("test-cheat", lambda arg, seed: _CheatBot(seed))
    code, _, err = simulate(capsys, "--deals", 1, "--bots", "random,test-cheat", "--out", tmp_path / "x.jsonl")
    assert code == 2
    assert "returned a bad move" in err and "not in the hand" in err
    assert not (tmp_path / "x.jsonl").exists()


def test_out_that_is_a_directory_is_named(tmp_path, capsys):
    code, out, err = simulate(capsys, "--deals", 3, "--out", tmp_path)
    assert code == 2
    assert err.startswith("cavallo simulate: error:") and f"{tmp_path} is a directory" in err
    assert ".tmp-" not in err and list(tmp_path.iterdir()) == []


def test_out_file_gets_the_umask_permissions(tmp_path, capsys):
    import os
    import stat

    old = os.umask(0o022)
    try:
        code, _, _ = simulate(capsys, "--deals", 2, "--out", tmp_path / "g.jsonl", "--quiet")
    finally:
        os.umask(old)
    assert code == 0 and stat.S_IMODE((tmp_path / "g.jsonl").stat().st_mode) == 0o644
