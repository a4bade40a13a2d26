"""Duplicate evaluation: statistics, fairness, determinism, and the CLI commands."""

from __future__ import annotations

import json
import math

import pytest

from cavallo_env import games as game_registry
from cavallo_env.bots import Bot, register
from cavallo_env.cli import main
from cavallo_env.cavalloicera.engine import BREAKDOWN_KEYS, CavalloiceraState
from cavallo_env.evaluation import (
    deal_for,
    derive_seed,
    duplicate_eval,
    format_result,
    mean_interval,
    play_duplicate_deal,
    play_game,
    pool_results,
    result_from_dict,
    run_deals,
    self_play,
    summarize,
    start_for,
    wilson_interval,
)
from cavallo_env.bots import make


# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize("k,n,lo,hi", [
    (5, 10, 0.236593, 0.763407),
    (0, 10, 0.0, 0.277533),
    (10, 10, 0.722467, 1.0),
    (81, 263, 0.255289, 0.366210),  # checked against a brute-force inversion of the score test
    (50, 100, 0.403832, 0.596168),
])
def test_wilson_interval_known_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=1e-5)
    assert b == pytest.approx(hi, abs=1e-5)


def test_wilson_interval_edge_cases():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(2.5, 5)  # fractional successes (draws count half)
    assert lo < 0.5 < hi and lo == pytest.approx(1 - hi)


def test_mean_interval():
    m, lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5
    half = 1.959963984540054 * math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3 / 4)  # sample variance / n
    assert (lo, hi) == (pytest.approx(2.5 - half), pytest.approx(2.5 + half))
    assert mean_interval([3.0]) == (3.0, 3.0, 3.0)


def test_derived_seeds_are_stable():
    assert derive_seed("deal", 1, 2) == derive_seed("deal", 1, 2)
    assert derive_seed("deal", 1, 2) != derive_seed("deal", 1, 3)
    assert 0 <= derive_seed("x") < 2**63
    assert deal_for(7, 3) == deal_for(7, 3)
    assert deal_for(7, 3) != deal_for(7, 4)


# ---------------------------------------------------------------- games


def test_duplicate_deal_uses_the_same_cards_with_teams_swapped():
    games, timing = play_duplicate_deal("greedy", "random", 5, 0)
    assert [g.a_team for g in games] == [0, 1]
    for g in games:
        assert set(g.breakdown[0]) == set(BREAKDOWN_KEYS)
        assert sum(g.breakdown[0].values()) == g.points[0]
    assert timing["a"][1] > 0 and timing["b"][1] > 0


def test_greedy_mirror_games_cancel_exactly():
    """Greedy is deterministic: the swapped game is the mirror of the first."""
    for i in range(5):
        games, _ = play_duplicate_deal("greedy", "greedy", 1, i)
        assert games[0].diff == -games[1].diff


class _Cheater(Bot):
    name = "cheater"

    def choose(self, view):
        return {"play": view["hand"][0], "capture": ["R-coins"] if "R-coins" not in view["hand"] else ["R-cups"]}


def test_play_game_rejects_illegal_answers():
    bots = [_Cheater()] * 4
    state = start_for(0, 0)
    with pytest.raises(ValueError, match="illegal move"):
        play_game(bots, state)
    with pytest.raises(ValueError, match="needs 4 bots"):
        play_game(bots[:3], start_for(0, 0))


def test_play_game_plays_to_the_end():
    state = play_game([make("greedy"), make("random", seed=1), make("greedy"), make("random", seed=2)], start_for(0, 1))
    assert isinstance(state, CavalloiceraState) and state.done


def test_self_play_shows_every_decision_of_the_duplicate_evals_first_games():
    """``self_play`` plays each deal's first game of ``play_duplicate_deal`` (the same deal and bot
    seeds: the same points) and shows ``before`` each decision's state, its seat not yet asked."""
    seen, finals = [], {}

    def before(index, state):
        seen.append((index, state.current, len(state.moves)))
        finals[index] = state  # played on in place: the final state once the game is over

    self_play("random", 2, 7, before)
    for index in range(2):
        state = finals[index]
        assert state.done
        assert [(seat, t) for i, seat, t in seen if i == index] == [(s, t) for t, (s, _, _) in enumerate(state.moves)]
        records, _ = play_duplicate_deal("random", "random", 7, index)
        res = game_registry.get("cavalloicera").outcome(state)
        assert records[0].a_team == 0 and records[0].points == (res["points"][0], res["points"][1])


# ---------------------------------------------------------------- duplicate evaluation


def _stable(result):
    d = result.to_dict()
    d.pop("timing")
    return d


def test_self_play_is_even_within_its_interval():
    r = duplicate_eval("random", "random", 60, seed=3, jobs=1)
    assert r.games == 120 and r.wins + r.draws + r.losses == 120
    assert r.score_ci[0] <= 0.5 <= r.score_ci[1]
    assert r.mean_diff_ci[0] <= 0.0 <= r.mean_diff_ci[1]
    # a deterministic bot against itself is exactly even: every mirror cancels
    g = duplicate_eval("greedy", "greedy", 20, seed=3, jobs=1)
    assert g.score == 0.5 and g.mean_diff == 0.0 and g.wins == g.losses


def test_greedy_beats_random_clearly():
    r = duplicate_eval("greedy", "random", 20, seed=4, jobs=1)
    assert r.score_ci[0] > 0.8
    assert r.mean_diff_ci[0] > 5


def test_deterministic_for_a_seed_and_independent_of_jobs():
    a = duplicate_eval("random", "greedy", 8, seed=9, jobs=1)
    b = duplicate_eval("random", "greedy", 8, seed=9, jobs=2)
    c = duplicate_eval("random", "greedy", 8, seed=10, jobs=2)
    assert _stable(a) == _stable(b)
    assert _stable(a) != _stable(c)
    json.dumps(a.to_dict())
    text = format_result(a)
    assert "Wilson" in text and "napula" in text


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="deals must be a positive integer"):
        duplicate_eval("greedy", "random", 0)
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        duplicate_eval("greedy", "random", 2, jobs=0)
    with pytest.raises(ValueError, match="unknown bot"):
        duplicate_eval("greedy", "nosuch", 2, jobs=1)


def test_registered_bots_work_in_workers():
    register("always_first", lambda arg, seed: _First(seed))
    r = duplicate_eval("always_first", "random", 4, seed=1, jobs=2)
    assert r.games == 8


class _First(Bot):
    name = "first"

    def choose_move(self, view, legal):
        return legal[0]


# ---------------------------------------------------------------- CLI


def test_cli_eval_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["eval", "greedy", "random", "--deals", "6", "--seed", "2", "--jobs", "1", "--json", str(out), "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "A = greedy" in text and "Wilson" in text
    data = json.loads(out.read_text())
    assert data["deals"] == 6 and data["games"] == 12
    assert data["wins"] + data["draws"] + data["losses"] == 12
    assert set(data["breakdown"]) == set(BREAKDOWN_KEYS)
    assert len(data["score_ci"]) == 2 and data["score_ci"][0] <= data["score"] <= data["score_ci"][1]


def test_cli_eval_json_to_stdout(capsys):
    rc = main(["eval", "greedy", "greedy", "--deals", "2", "--jobs", "1", "--json", "-", "--no-progress"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["score"] == 0.5


def test_cli_eval_plays_a_training_checkpoint(capsys):
    """``checkpoint:<path>`` works from the command line, without an export (the shipped one here)."""
    rc = main(["eval", "checkpoint:checkpoints/cavalloicera", "random", "--deals", "2", "--jobs", "1", "--json", "-",
               "--no-progress"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bot_a"] == "checkpoint:checkpoints/cavalloicera" and data["games"] == 4


@pytest.mark.parametrize("argv,message", [
    (["eval", "greedy", "bogus", "--deals", "2"], "unknown bot 'bogus'"),
    (["eval", "checkpoint:no/such/run", "greedy", "--deals", "2"], "checkpoint sidecar not found"),
    (["eval", "greedy", "ismcts:zero", "--deals", "2"], "ismcts iteration count"),
    (["eval", "greedy", "random", "--deals", "0"], "deals must be a positive integer"),
    (["eval", "greedy", "random", "--deals", "2", "--jobs", "0"], "jobs must be a positive integer"),
    (["tournament", "--bots", "greedy", "--deals", "2"], "at least two bot specs"),
    (["tournament", "--bots", "greedy,greedy", "--deals", "2"], "more than once"),
    (["tournament", "--bots", "greedy,nosuch", "--deals", "2"], "unknown bot"),
])
def test_cli_errors_are_one_line(argv, message, capsys):
    assert main(argv + ["--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_tournament_writes_png_and_json(tmp_path, capsys):
    rc = main(["tournament", "--bots", "random,greedy,heuristic", "--deals", "4", "--seed", "1", "--jobs", "2",
               "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Elo" in text and "95% interval" in text and "score of row against column" in text
    png = (tmp_path / "tournament.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    data = json.loads((tmp_path / "tournament.json").read_text())
    assert set(data["ratings"]) == {"random", "greedy", "heuristic"}
    assert data["ratings"]["greedy"]["elo"] > data["ratings"]["random"]["elo"]
    assert sum(r["elo"] for r in data["ratings"].values()) == pytest.approx(0.0, abs=1e-6)
    assert data["order"][-1] == "random"
    m = data["score_matrix"]
    assert m[0][1] + m[1][0] == pytest.approx(1.0)
    assert len(data["pairs"]) == 3


def test_cli_tournament_from_a_saved_summary_rates_it_again(tmp_path, capsys):
    """``--from``: the saved pairs rated again give the same ratings and table, without playing; a file
    that is not a summary, one with impossible counts or one too large to be one is refused in one line and nothing is written."""
    first, again = tmp_path / "first", tmp_path / "again"
    assert main(["tournament", "--bots", "random,greedy", "--deals", "3", "--jobs", "1", "--out", str(first),
                 "--no-progress"]) == 0
    played = capsys.readouterr().out
    assert main(["tournament", "--from", str(first / "tournament.json"), "--out", str(again)]) == 0
    rated = capsys.readouterr().out
    assert rated.split("\nwrote")[0] == played.split("\nwrote")[0]
    a, b = (json.loads((d / "tournament.json").read_text()) for d in (first, again))
    assert a == b and (again / "tournament.png").exists()
    broken = json.loads((first / "tournament.json").read_text())
    broken["pairs"]["random vs greedy"]["wins"] = 99
    no_matrix = dict(broken, pairs=a["pairs"], score_matrix=None)
    cases = {"[1, 2]": "not a JSON object", "{": "is not JSON", '{"bots": ["a"]}': "malformed 'pairs'",
             '{"bots": ["a", "a"], "pairs": {}}': "not distinct bot specs",
             json.dumps(no_matrix): "not a cavallo tournament summary",
             json.dumps(broken): "no whole, consistent win/draw/game counts",
             " " * ((16 << 20) + 1): "more than 16777216 bytes (16 MiB): not a cavallo tournament summary"}
    for k, (text, message) in enumerate(cases.items()):
        path = tmp_path / f"bad{k}.json"
        path.write_text(text)
        assert main(["tournament", "--from", str(path), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    assert main(["tournament", "--from", str(path), "--bots", "random,greedy"]) == 2
    assert "takes no --bots" in capsys.readouterr().err


def test_tournament_bot_list_keeps_ismcts_options():
    from cavallo_env.commands.tournament import parse_bots

    assert parse_bots("greedy, ismcts:20,rollout=random,c=0.5 ,heuristic") == [
        "greedy", "ismcts:20,rollout=random,c=0.5", "heuristic"]


def test_wilson_interval_contains_the_proportion_at_the_extremes():
    # Float rounding once put the lower bound of 0/6 just above 0 (a negative error bar).
    for n in range(1, 200):
        lo, hi = wilson_interval(0, n)
        assert lo <= 0.0 <= hi
        lo, hi = wilson_interval(n, n)
        assert lo <= 1.0 <= hi


# ---------------------------------------------------------------- pooling runs


def _report(tmp_path, seed, deals, bot_a="greedy", game="briscola"):
    path = tmp_path / f"{bot_a.replace(':', '_')}-{seed}.json"
    path.write_text(json.dumps(duplicate_eval(bot_a, "random", deals, seed=seed, jobs=1, game=game).to_dict()))
    return path


def test_pooled_reports_are_the_runs_deals_summarized_together(tmp_path):
    """Pooling two runs' JSON reports gives what summarizing all their deals at once gives:
    the same counts and Wilson interval, and the per-deal means' interval recovered exactly."""
    reports = [result_from_dict(json.loads(_report(tmp_path, seed, deals).read_text())) for seed, deals in ((1, 7), (2, 5))]
    pooled = pool_results(reports)
    deal_results = run_deals([("greedy", "random", 1, i, "briscola", {}) for i in range(7)], 1) + \
        run_deals([("greedy", "random", 2, i, "briscola", {}) for i in range(5)], 1)
    direct = summarize("greedy", "random", None, deal_results, "briscola")
    assert (pooled.deals, pooled.games, pooled.wins, pooled.draws, pooled.losses) == \
        (direct.deals, direct.games, direct.wins, direct.draws, direct.losses) == (12, 24, direct.wins, direct.draws, direct.losses)
    assert pooled.score == direct.score and pooled.score_ci == direct.score_ci
    assert pooled.mean_diff == pytest.approx(direct.mean_diff, abs=1e-9)
    assert pooled.mean_diff_ci == pytest.approx(direct.mean_diff_ci, abs=1e-9)
    assert pooled.mean_points == pytest.approx(direct.mean_points, abs=1e-9)
    for key, row in direct.breakdown.items():
        assert pooled.breakdown[key] == pytest.approx(row, abs=1e-12)
    assert pooled.seed == [1, 2] and pooled.timing["a_decisions"] == direct.timing["a_decisions"]


def test_cli_pool_prints_the_pooled_table_and_refuses_what_does_not_pool(tmp_path, capsys):
    one, two = _report(tmp_path, 1, 3), _report(tmp_path, 2, 2)
    out = tmp_path / "pooled.json"
    assert main(["pool", str(one), str(two), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "deals 5 (x2 games = 10), seed [1, 2]" in text and "95% Wilson" in text
    assert json.loads(out.read_text())["games"] == 10
    three = _report(tmp_path, 3, 1)
    assert main(["pool", str(out), str(three)]) == 0  # a pooled report pools again, its seeds kept apart
    assert "deals 6 (x2 games = 12), seed [1, 2, 3]" in capsys.readouterr().out
    assert main(["pool", str(out), str(two)]) == 2
    assert "seed 2 twice" in capsys.readouterr().err

    other = _report(tmp_path, 3, 1, bot_a="heuristic")
    bad = tmp_path / "bad.json"
    for argv, message in [
        ([one], "at least two reports"),
        ([one, one], "seed 1 twice"),
        ([one, other], "only runs of the same bots"),
        ([one, tmp_path / "missing.json"], "missing.json"),
    ]:
        assert main(["pool", *map(str, argv)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert main(["pool", "--same-bots", str(one), str(other)]) == 0  # the caller vouches the specs name the same bots
    capsys.readouterr()
    for content, message in [
        ("{", "not JSON"),
        ("[]", "a JSON object is expected"),
        (json.dumps({**json.loads(one.read_text()), "wins": 99}), "do not add up"),
        (json.dumps({**json.loads(one.read_text()), "games": 0, "wins": 0, "draws": 0, "losses": 0}), "do not add up"),
        (json.dumps({k: v for k, v in json.loads(one.read_text()).items() if k != "mean_diff_ci"}), "no 'mean_diff_ci'"),
        (json.dumps({**json.loads(one.read_text()), "deals": "3"}), "'deals' has the wrong type"),
        (json.dumps({**json.loads(one.read_text()), "seed": 5, "breakdown": {"points": 1}}), "must map names to numbers"),
        (" " * (2 << 20), "not a duplicate evaluation report"),
    ]:
        bad.write_text(content)
        assert main(["pool", str(two), str(bad)]) == 2
        err = capsys.readouterr().err
        assert message in err and str(bad) in err and err.count("\n") == 1, err
