"""The small benchmark scripts run end to end on tiny settings (so they do not rot)."""

from __future__ import annotations

import importlib.util
import json
import math
import re
from pathlib import Path

import pytest

from cavallo_env import games
from cavallo_env.bots.base import make

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


def test_strength_table_writes_the_tournaments_numbers(tmp_path, capsys):
    """A tiny run: the doc holds each game's ratings and score matrix as the tournament computed them,
    the command at the top, the deal count said, and a chart per game."""
    mod = _script("strength_table")
    out, img, js = tmp_path / "strength.md", tmp_path / "img", tmp_path / "s.json"
    argv = ["--deals", "1", "--jobs", "1", "--games", "briscola,scopa", "--bots", "random,greedy,heuristic",
            "--out", str(out), "--img", str(img), "--json", str(js), "--no-progress"]
    assert mod.main(argv) == 0
    doc, summaries = out.read_text(encoding="utf-8"), json.loads(js.read_text())
    assert doc.startswith("# How strong each AI is\n\nProduced by `python benchmarks/strength_table.py "
                          + " ".join(argv) + "`")
    assert "**1 duplicate deal per pair** — a small run" in doc and "1 duplicate match per pair, seed 0" in doc
    assert [s["game"] for s in summaries] == ["briscola", "scopa"]
    for s in summaries:
        section = doc.split(f"## {games.label(s['game'], s['options'])}\n", 1)[1].split("\n## ", 1)[0]
        assert (img / f"strength-{s['game']}.png").stat().st_size > 5000
        assert f"![{games.get(s['game']).title}: ratings and scores](img/strength-{s['game']}.png)" in section
        rows = [line for line in section.splitlines() if re.match(r"\| \d+ \| `", line)]
        assert [re.match(r"\| \d+ \| `([^`]+)`", r)[1] for r in rows] == s["order"]
        for row, bot in zip(rows, s["order"]):
            r = s["ratings"][bot]
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert cells[3] == f"{r['elo']:.0f}" and cells[4] == f"{r['elo_ci'][0]:.0f} – {r['elo_ci'][1]:.0f}" \
                and cells[5] == f"{100 * s['mean_score'][bot]:.1f} %"
        matrix = [line for line in section.splitlines() if line.startswith("| `")]
        for i, line in enumerate(matrix):
            cells = [c.strip() for c in line.strip("|").split("|")][1:]
            for j, cell in enumerate(cells):
                if i == j:
                    assert cell == "–"
                    continue
                pair = s["pairs"].get(f"{s['bots'][i]} vs {s['bots'][j]}")
                lo, hi = pair["score_ci"] if pair else [1 - x for x in s["pairs"][
                    f"{s['bots'][j]} vs {s['bots'][i]}"]["score_ci"][::-1]]
                assert cell == f"{100 * s['score_matrix'][i][j]:.1f} ({100 * lo:.1f}–{100 * hi:.1f})"
    assert "wrote" in capsys.readouterr().out


def test_strength_table_merge_reruns_one_game_and_keeps_the_others(tmp_path, capsys):
    mod = _script("strength_table")
    out, img, js = tmp_path / "strength.md", tmp_path / "img", tmp_path / "s.json"
    common = ["--deals", "1", "--jobs", "1", "--bots", "random,greedy", "--out", str(out), "--img", str(img),
              "--json", str(js), "--no-progress"]
    assert mod.main(["--games", "briscola,scopa", *common]) == 0
    first = json.loads(js.read_text())
    assert mod.main(["--games", "scopa", "--seed", "3", "--merge", *common]) == 0
    merged, doc = json.loads(js.read_text()), out.read_text(encoding="utf-8")
    assert [s["game"] for s in merged] == ["briscola", "scopa"]
    assert merged[0] == first[0] and merged[1]["seed"] == 3 and "--merge" in merged[1]["command"]
    assert doc.startswith("# How strong each AI is\n\nProduced one game at a time (each section names its run)")
    assert doc.count("Run by `python benchmarks/strength_table.py --games") == 2
    with pytest.raises(SystemExit):
        mod.main(["--games", "scopa", "--merge", "--json", str(tmp_path / "none.json"), "--out", str(out)])
    assert "--merge reads the earlier run's summaries" in capsys.readouterr().err
    js.write_text(json.dumps([{k: v for k, v in s.items() if k != "command"} for s in merged]))
    with pytest.raises(SystemExit):
        mod.main(["--games", "scopa", "--merge", *common])
    assert "do not say which command made them" in capsys.readouterr().err

def test_levels_vs_search_writes_each_runs_report_and_the_chart(tmp_path, capsys):
    """A one-deal run of the fast level: the report starts with its command and says the deal, the
    json is cavallo eval's, and the chart is drawn from it; a bad game or level is refused in words."""
    import pytest

    mod = _script("levels_vs_search")
    out, img = tmp_path / "runs", tmp_path / "levels.png"
    argv = ["--games", "briscola", "--levels", "fast", "--deals", "1", "--out", str(out), "--img", str(img)]
    assert mod.main(argv) == 0
    report = (out / "briscola_policy.txt").read_text(encoding="utf-8")
    assert report.startswith("$ cavallo eval --game briscola --deals 1 --seed 1 --jobs 1 policy:briscola ismcts:1000\n")
    result = json.loads((out / "briscola_policy.json").read_text())
    assert (result["bot_a"], result["bot_b"], result["deals"]) == ("policy:briscola", "ismcts:1000", 1)
    assert f"{100 * result['score']:.1f}%" in report and img.stat().st_size > 5000
    img.unlink()
    assert mod.main(["--chart-only", "--out", str(out), "--img", str(img)]) == 0 and img.exists()
    assert mod.main(["--chart-only", "--out", str(tmp_path / "none"), "--img", str(img)]) == 1
    for bad in (["--games", "chess"], ["--levels", "expert"]):
        with pytest.raises(SystemExit):
            mod.main(bad + ["--chart-only"])
    assert "unknown level(s) expert" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["--match", "--games", "briscola", "--chart-only"])
    assert "only --games scopa has them, got briscola" in capsys.readouterr().err


def test_levels_vs_search_plays_scopas_matches_with_match(tmp_path):
    """``--match``: Scopa's matches to 11 (every game named: Scopa alone), its own default folder and chart."""
    mod = _script("levels_vs_search")
    out, img = tmp_path / "runs", tmp_path / "levels.png"
    assert mod.main(["--match", "--levels", "fast", "--deals", "1", "--out", str(out), "--img", str(img)]) == 0
    report = (out / "scopa_policy.txt").read_text(encoding="utf-8")
    assert report.startswith("$ cavallo eval --game scopa --match --deals 1 --seed 1 --jobs 1 policy:scopa ismcts:1000\n")
    assert sorted(p.name for p in out.iterdir()) == ["scopa_policy.json", "scopa_policy.txt"] and img.exists()
    assert [p.name for p in mod.default_paths("ismcts:1000", match=True)] == ["levels_vs_ismcts1000-matches",
                                                                          "levels-vs-ismcts1000-matches.png"]


def test_root_spread_prints_each_quantity(capsys):
    mod = _script("root_spread")
    assert mod.main(["--game", "cavalloicera", "--search", "ismcts:20", "--deals", "1", "--every", "12",
                     "--temps", "0.1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ismcts:20 on ") and "decisions of 1 cavalloicera deals played by heuristic" in out
    for name in ("legal moves", "unvisited moves", "entropy of the visits", "gap of the two best means",
                 "most visited share", "entropy of the q targets at 0.1"):
        assert re.search(rf"  {name} +mean +[0-9.]+  median +[0-9.]+  max +[0-9.]+", out), name
    for bad in (["--search", "greedy"], ["--every", "0"], ["--temps", "0"], ["--temps", "hot"], ["--deals", "0"]):
        with pytest.raises(SystemExit):
            mod.main(bad)


def test_the_ceiling_control_plays_the_games_of_ismcts_against_itself():
    """``benchmarks/ceiling.py fair`` is ``ismcts:1000`` on the Python engine: in Cavalloìcera the
    same games as the core's ``ismcts:1000`` against itself; ``hand`` plays (its determinizer
    checks that the truth it is shown is the position searched)."""
    from cavallo_env import evaluation

    mod = _script("ceiling")
    fair = mod.ceiling_eval("fair", "cavalloicera", 1, 1, 1)
    plain = evaluation.duplicate_eval("ismcts:1000", "ismcts:1000", 1, seed=1, jobs=1, game="cavalloicera")
    assert (fair.mean_points, fair.wins, fair.breakdown) == (plain.mean_points, plain.wins, plain.breakdown)
    assert evaluation.play_game.__name__ == "play_game"  # put back
    hand = mod.ceiling_eval("hand", "briscola", 1, 1, 1)
    assert hand.games == 2 and hand.bot_a == "truth:hand"
    with pytest.raises(ValueError, match=re.escape("truth:<fair|hand|all> for briscola or cavalloicera or scopa")):
        mod.ceiling_eval("peek", "briscola", 1, 1, 1)


def test_the_briscola_inference_measure_is_a_chance_and_zero_for_uniform_weights(capsys):
    """``benchmarks/briscola_inference.py``: the weighted draw's chances of every hand sum to 1,
    equal weights give the uniform deal's chance, and a run reports a gain for each bot."""
    from itertools import combinations

    mod = _script("briscola_inference")
    pool, w = [3, 7, 11, 20, 33], [0.0] * 40
    for c, x in zip(pool, (1.6, 0.4, 1.3, 0.9, 0.4)):
        w[c] = x
    total = sum(math.exp(mod.draw_log_chance(list(h), pool, w)) for h in combinations(pool, 3))
    assert total == pytest.approx(1.0)
    flat = [1.0] * 40
    assert mod.draw_log_chance([3, 20], pool, flat) == pytest.approx(-math.log(math.comb(5, 2)))
    assert mod.main(["--deals", "1", "greedy", "--fit", "greedy", "--fit-deals", "2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"fitted on \d+ positions of greedy \(seed 2\)", out)
    rows = [line.split() for line in out.splitlines() if line.startswith("greedy ")]
    assert [r[1] for r in rows] == ["today", "fitted"]
    for r in rows:
        assert int(r[2]) > 0 and float(r[6]) == pytest.approx(5.594, abs=1.5)


def test_the_scopa_inference_measure_weighs_hands_as_the_search_does(capsys):
    """``benchmarks/scopa_inference.py``: with today's constants a hand's weight is the search's
    (``_Determinizer._weigh``), at every decision of a deal it reads; a run reports each setting."""
    import random

    from cavallo_env.evaluation import start_for
    from cavallo_env.scopa.search import _Determinizer

    mod = _script("scopa_inference")
    g = games.get("scopa")
    state, bot, checked = start_for(1, 3, "scopa", match=False), make("greedy", seed=1, game="scopa"), 0
    while not state.done:
        det = _Determinizer(state, state.current, 1.0)
        if det.plays and state.deal.stock_size:
            det._weigh(random.Random(5))
            facts = mod.position(state, random.Random(5))
            model = mod.posterior_model(facts["past"], mod.TODAY) if det.past else mod.MODEL
            weights = mod.weight(facts["hands"], model, mod.TODAY)
            assert list(weights) == pytest.approx([b - a for a, b in zip([0.0, *det.cum], det.cum)],
                                                  rel=1e-9, abs=1e-12 * det.cum[-1])
            checked += len(weights)
        g.play(state, g.move_from_dict(bot.choose(g.make_view(state, state.current)), g.deck_of(state)))
    assert checked > 100
    facts = mod.np.array([[1, 0, 4], [0, 1, 2]], float)  # the heuristic's play of 4 moves, then the greedy one's of 2
    setting = ((0.5, 0.3, 0.2), 0.2, 0.6, 1.0)
    assert mod.weight(facts, setting[0], setting) == pytest.approx(
        0.5 * (0.8 + 0.2 / 4) * (0.2 / 2) + 0.3 * (0.6 / 4) * (0.4 + 0.6 / 2) + 0.2 * (1 / 4) * (1 / 2))
    positions = mod.self_play("greedy", 2, 1)
    uniform = ((0.0, 0.0, 1.0), 0.1, 0.1, 1.0)  # any move: every hand weighs 1 / its moves
    assert mod.measure(positions)["gain"] > 0.2  # greedy play read as such points at the true hand
    assert abs(mod.measure(positions, uniform)["gain"]) < 0.2
    assert mod.main(["--deals", "1", "greedy", "--fit", "greedy", "--fit-deals", "1", "--grid"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"grid on \d+ positions of greedy \(seed 2\)", out)
    rows = [line.split() for line in out.splitlines() if line.startswith("greedy ")]
    assert [r[1] for r in rows] == ["today", "fitted"]
    assert all(int(r[2]) > 0 and float(r[6]) == pytest.approx(3.919, abs=0.5) for r in rows)


def test_the_cavalloicera_inference_count_finds_flagged_ranks_never_held_by_greedy(capsys):
    """``benchmarks/cavalloicera_inference.py``: along greedy self-play (a player that always takes
    a picada or a scùa it can) the ranks the inference flags are never held, the others often are."""
    mod = _script("cavalloicera_inference")
    counts = mod.self_play("greedy", 2, 1)
    assert counts["flagged"][0] > 50 and counts["flagged"][1] == 0
    assert counts["unflagged"][1] > counts["unflagged"][0] // 5
    assert mod.main(["--deals", "1", "greedy"]) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    assert row[0] == "greedy" and row[2] == "0.00%"


@pytest.mark.parametrize("game", ["briscola", "cavalloicera", "scopa"])
@pytest.mark.parametrize("variant", ["hand", "all"])
def test_the_ceiling_determinizer_deals_the_true_hidden_cards(game, variant):
    """Eight plies into a deal, the determinizations of ``truth:hand`` hold the other seats' true
    hands (and with ``all`` the stock in its true order), the seat's own cards untouched."""
    import random

    from cavallo_env.bots.base import decision_start
    from cavallo_env.evaluation import start_for

    mod = _script("ceiling")
    g = games.get(game)
    state = start_for(1, 0, game, **({"match": False} if game == "scopa" else {}))
    rng = random.Random(5)
    for _ in range(8):
        g.play(state, rng.choice(state.legal_moves()))
    _, drng, base = decision_start(3, g.make_view(state, state.current), game)
    hooks = mod.truth_search(game, variant)
    hooks.truth = state
    dealt = [hooks.determinizer(base, state.current)(drng) for _ in range(3)]
    deal_of = (lambda s: s.deal) if game == "scopa" else (lambda s: s)
    for d in dealt:
        assert [sorted(h) for h in deal_of(d).hands] == [sorted(h) for h in deal_of(state).hands]
    if game == "briscola":
        stocks = [d.stock for d in dealt]
        assert all(sorted(s) == sorted(state.stock) for s in stocks)
        assert (stocks == [state.stock] * 3) == (variant == "all")
    if game == "scopa":  # the cards still to deal (those dealt are played or in a hand)
        at = state.deal.stock_pos
        stocks = [d.deal.initial_stock[at:] for d in dealt]
        assert all(sorted(s) == sorted(state.deal.initial_stock[at:]) for s in stocks)
        assert (stocks == [state.deal.initial_stock[at:]] * 3) == (variant == "all")
