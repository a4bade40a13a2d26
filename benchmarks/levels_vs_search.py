"""The shipped AIs of every game against today's search (or another bot), and the chart of it.

Each level (fast: ``policy:<game>``, strong: ``search:<game>``) plays
``--opponent`` (default ``ismcts:1000``, today's search with its default
options) on ``--deals`` duplicate deals (Scopa: single deals), seed
``--seed``, through ``cavallo eval``: its printed report and its ``--json``
go to ``--out`` (default benchmarks/results/levels_vs_<opponent>/, e.g.
levels_vs_ismcts1000/<game>_<policy|search>.txt/.json).  ``--match`` plays
Scopa's matches to 11 instead of its single deals (Scopa only; the default
folder and chart then end in ``-matches``).
The strong search keeps its 60 ms of CPU time a decision; ``--wall-ms``
(default 10000) lifts its wall-clock cap so that a busy machine plays the
search an idle core plays.  Then (and with ``--chart-only``, from the files
already there) the chart ``--img`` (default docs/img/levels-vs-<opponent>.png):
each level's score with its 95% Wilson interval, and against ``ismcts:1000``
the targets (fast 50%, strong 58%) drawn across.

    python benchmarks/levels_vs_search.py --jobs 2                 # every game and level: hours on 2 cores
    python benchmarks/levels_vs_search.py --games scopa --levels strong --jobs 2
    python benchmarks/levels_vs_search.py --opponent heuristic --levels strong --seed 0
    python benchmarks/levels_vs_search.py --match --levels fast      # Scopa's matches to 11
    python benchmarks/levels_vs_search.py --chart-only
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from cavallo_env import games, levels

ROOT = Path(__file__).resolve().parent.parent
OPPONENT = "ismcts:1000"
#: issue 43's targets against ismcts:1000, by level
TARGETS = {"fast": 0.50, "strong": 0.58}


def default_paths(opponent: str, match: bool = False) -> tuple[Path, Path]:
    """The reports' folder and the chart of the runs against ``opponent`` (of Scopa's matches: ``-matches``)."""
    name = "".join(c for c in opponent if c.isalnum()) + ("-matches" if match else "")
    return ROOT / "benchmarks" / "results" / f"levels_vs_{name}", ROOT / "docs" / "img" / f"levels-vs-{name}.png"


def spec(level: str, game: str, wall_ms: int) -> str:
    """The level's bot spec, the strong search with its wall-clock cap at ``wall_ms``."""
    s = levels.spec(level, game)
    return f"{s},wall_ms={wall_ms}" if levels.LEVELS[level] == "search" else s


def result_path(out: Path, level: str, game: str, suffix: str) -> Path:
    return out / f"{game}_{levels.LEVELS[level]}{suffix}"


def evaluate(level: str, game: str, args) -> None:
    """One level of one game against ``args.opponent`` through ``cavallo eval``; its report and json into ``args.out``."""
    episode = (["--match"] if args.match else ["--single-deal"]) if game == "scopa" else []
    cmd = ["eval", "--game", game, *episode, "--deals", str(args.deals),
           "--seed", str(args.seed), "--jobs", str(args.jobs), spec(level, game, args.wall_ms), args.opponent]
    run = subprocess.run([sys.executable, "-m", "cavallo_env.cli", *cmd, "--no-progress", "--json",
                          str(result_path(args.out, level, game, ".json"))],
                         capture_output=True, text=True, check=False)
    if run.returncode:
        raise SystemExit(f"cavallo {' '.join(cmd)} failed:\n{run.stderr.strip()}")
    report = "".join(line for line in run.stdout.splitlines(keepends=True) if not line.startswith("wrote "))
    result_path(args.out, level, game, ".txt").write_text(f"$ cavallo {' '.join(cmd)}\n{report}", encoding="utf-8")
    print(report, flush=True)


def read_results(out: Path, names: list[str]) -> dict:
    """{(game, level): the json of ``cavallo eval``} for the runs found in ``out``."""
    found = {}
    for game in names:
        for level in TARGETS:
            path = result_path(out, level, game, ".json")
            if path.exists():
                found[game, level] = json.loads(path.read_text(encoding="utf-8"))
    return found


def write_chart(results: dict, names: list[str], path: Path, opponent: str = OPPONENT, match: bool = False) -> None:
    import matplotlib  # lazy: matplotlib, the optional eval extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: matplotlib, after the Agg backend is chosen

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.38
    for k, (level, color) in enumerate((("fast", "#8172b2"), ("strong", "#4c72b0"))):
        xs = [i + (k - 0.5) * width for i, g in enumerate(names) if (g, level) in results]
        rows = [results[g, level] for g in names if (g, level) in results]
        if not rows:
            continue
        scores = [100 * r["score"] for r in rows]
        errs = [[100 * (r["score"] - r["score_ci"][0]) for r in rows], [100 * (r["score_ci"][1] - r["score"]) for r in rows]]
        ax.bar(xs, scores, width, yerr=errs, capsize=4, color=color, label=f"{level} ({levels.LEVELS[level]}:<game>)")
        for x, s in zip(xs, scores):
            ax.text(x, 30.8, f"{s:.1f}", ha="center", color="white", fontsize=9)
        for x in xs if opponent == OPPONENT else ():
            ax.plot([x - width / 2, x + width / 2], [100 * TARGETS[level]] * 2, color="#c44e52", linestyle="--")
    ax.axhline(50, color="grey", linewidth=0.8)
    ax.set_xlim(-0.7, len(names) - 0.3)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([games.get(g).title for g in names])
    top = max(100 * r["score_ci"][1] for r in results.values())
    ax.set_ylim(30, max(65, 5 * int(top / 5) + 10))
    ax.set_ylabel(f"score % against {opponent} (95% Wilson)")
    deals = sorted({r["deals"] for r in results.values()})
    ax.set_title(f"the shipped AIs against {opponent}, {'/'.join(map(str, deals))} duplicate "
                 + ("matches to 11" if match else "deals")
                 + ("; dashed: the targets" if opponent == OPPONENT else ""), fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="all", help="comma-separated games, or all (default)")
    p.add_argument("--levels", default="fast,strong", help="comma-separated levels (default fast,strong)")
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals a run (default 1000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="processes of each evaluation (default 1)")
    p.add_argument("--wall-ms", type=int, default=10_000, help="the strong search's wall-clock cap (default 10000)")
    p.add_argument("--opponent", default=OPPONENT, help=f"the bot every level plays (default {OPPONENT})")
    p.add_argument("--out", type=Path, help="folder of the reports (default benchmarks/results/levels_vs_<opponent>)")
    p.add_argument("--img", type=Path, help="the chart (default docs/img/levels-vs-<opponent>.png)")
    p.add_argument("--chart-only", action="store_true", help="no evaluation: the chart of the reports in --out")
    p.add_argument("--match", action="store_true", help="Scopa's matches to 11 instead of its single deals (Scopa only)")
    args = p.parse_args(argv)
    out, img = default_paths(args.opponent, args.match)
    args.out, args.img = args.out or out, args.img or img
    names = list(games.names()) if args.games == "all" else args.games.split(",")
    if args.match and args.games == "all":
        names = ["scopa"]
    wanted = args.levels.split(",")
    if unknown := [name for name in names if name not in games.names()]:
        p.error(f"unknown game(s) {', '.join(unknown)}; the games are: {', '.join(games.names())}")
    if unknown := [level for level in wanted if level not in TARGETS]:
        p.error(f"unknown level(s) {', '.join(unknown)}; the levels are: {', '.join(TARGETS)}")
    if args.match and names != ["scopa"]:
        p.error(f"--match plays Scopa's matches to 11: only --games scopa has them, got {', '.join(names)}")
    if not args.chart_only:
        args.out.mkdir(parents=True, exist_ok=True)
        for game in names:
            for level in wanted:
                if level in levels.offered(game):
                    evaluate(level, game, args)
    results = read_results(args.out, names)
    if not results:
        print(f"no reports in {args.out}: nothing to chart", file=sys.stderr)
        return 1
    write_chart(results, names, args.img, args.opponent, args.match)
    print(f"wrote {args.img}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
