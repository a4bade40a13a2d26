"""How strong each AI is: one round robin per game, every shipped AI and bot against every other.

For each game (``--games``, default all) the bots are ``random``, ``greedy``,
``heuristic``, ``ismcts:1000`` (today's search, default options) and the
shipped levels this copy has for the game, ``policy:<game>`` (fast) and
``search:<game>`` (strong); ``--bots`` names others.  Each game's round robin
is ``cavallo tournament``'s (``cavallo_env.commands.tournament``): ``--deals``
duplicate deals per pair (each deal twice, seats swapped; Scopa: matches to
11), Elo ratings fitted to all its games (``cavallo_env.ratings``) and the
score of every pair with its 95 % Wilson interval.  Writes ``--out``
(default docs/strength.md): the command that produced it at the top, then
per game the ratings with their 95 % intervals, the score matrix and a chart
(``--img``/strength-<game>.png, default docs/img), and ``--json`` (the
tournaments' summaries) when asked.  ``--merge`` reruns only ``--games``: the
other games' summaries are read back from ``--json`` (each records the command
and date of its run, which its section then names) and the doc is written for all.

    python benchmarks/strength_table.py --deals 100 --jobs 2
    python benchmarks/strength_table.py --deals 2 --games briscola --bots random,greedy --out /tmp/s.md --img /tmp
    python benchmarks/strength_table.py --deals 100 --jobs 2 --games briscola --merge --json benchmarks/results/strength.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from cavallo_env import games, levels
from cavallo_env.bots import split_specs
from cavallo_env.commands.tournament import parse_bots, tournament, write_chart

#: the plain bots of every table, weakest first; the shipped levels follow (tables.md, in_game_ai.md)
PLAIN = ("random", "greedy", "heuristic", "ismcts:1000")
ROOT = Path(__file__).resolve().parent.parent


def game_bots(game: str) -> list[str]:
    """The plain bots, then the levels this copy ships for ``game``, fast before strong."""
    return list(PLAIN) + [levels.spec(level, game) for level in reversed(list(levels.LEVELS))
                          if level in levels.offered(game)]


def run(names: list[str], bots: list[str] | None, deals: int, seed: int, jobs, progress: bool) -> list[dict]:
    """Each game's tournament summary (``cavallo_env.commands.tournament.tournament``), in ``names``' order."""
    out = []
    for game in names:
        specs = parse_bots(",".join(bots), game) if bots else game_bots(game)
        t0, load = time.time(), os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        bar = None
        if progress:
            from tqdm import tqdm  # lazy: tqdm, only with a progress bar

            bar = tqdm(total=deals * len(specs) * (len(specs) - 1) // 2, unit="deal", desc=game, file=sys.stderr)
        try:
            summary = tournament(specs, deals, seed, jobs, bar.update if bar else None, game)
        finally:
            if bar is not None:
                bar.close()
        summary["seconds"] = round(time.time() - t0, 1)
        summary["load_average"] = load
        out.append(summary)
    return out


def _many(n: int, plural: str) -> str:
    """``"1 duplicate deal"``, ``"2 duplicate matches"``."""
    one = plural[:-2] if plural.endswith("ches") else plural[:-1]
    return f"{n} duplicate {one if n == 1 else plural}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _ms_per_decision(summary: dict) -> dict:
    """Each bot's mean time a decision over all its games of the round robin."""
    spent = {b: [0.0, 0] for b in summary["bots"]}
    for pair in summary["pairs"].values():
        for side in ("a", "b"):
            ms, n = pair["timing"][f"{side}_ms_per_decision"], pair["timing"][f"{side}_decisions"]
            bot = spent[pair[f"bot_{side}"]]
            bot[0] += ms * n
            bot[1] += n
    return {b: (ms / n if n else 0.0) for b, (ms, n) in spent.items()}


def ratings_table(summary: dict) -> list[str]:
    """The ratings, best first: Elo and its 95 % interval, the mean score against the others and the
    time a decision."""
    r, ms = summary["ratings"], _ms_per_decision(summary)
    lines = ["| # | AI | level | Elo | 95 % interval | mean score | ms / decision |",
             "|---:|---|---|---:|---|---:|---:|"]
    for k, b in enumerate(summary["order"], start=1):
        lo, hi = r[b]["elo_ci"]
        lines.append(f"| {k} | `{b}` | {levels.level_of(b) or ''} | {r[b]['elo']:.0f} | {lo:.0f} – {hi:.0f} | "
                     f"{_pct(summary['mean_score'][b])} % | {ms[b]:.2f} |")
    return lines


def score_matrix(summary: dict) -> list[str]:
    """The score of each row against each column in %, draws counting half, with its 95 % Wilson interval."""
    bots = summary["bots"]
    lines = ["| row vs column | " + " | ".join(f"`{b}`" for b in bots) + " |",
             "|---|" + "---:|" * len(bots)]
    for i, a in enumerate(bots):
        cells = []
        for j, b in enumerate(bots):
            if i == j:
                cells.append("–")
                continue
            pair = summary["pairs"].get(f"{a} vs {b}")
            lo, hi = pair["score_ci"] if pair else [1 - x for x in summary["pairs"][f"{b} vs {a}"]["score_ci"][::-1]]
            cells.append(f"{_pct(summary['score_matrix'][i][j])} ({_pct(lo)}–{_pct(hi)})")
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    return lines


def game_section(summary: dict, img: str) -> list[str]:
    g = games.get(summary["game"])
    missing = [levels.spec(lv, g.name) for lv in levels.LEVELS if lv not in levels.offered(g.name)]
    run = f" Run by `{summary['command']}` on {summary['date']}." if "command" in summary else ""
    lines = [f"## {games.label(g.name, summary['options'])}", "",
             f"{_many(summary['deals_per_pair'], games.counted_as(g.name, summary['options']))} per pair, "
             f"seed {summary['seed']}, {summary['seconds']} s, load average {summary['load_average']:.1f} "
             f"at the start." + run +
             (f" Not in the table: {', '.join(f'`{m}`' for m in missing)} (not shipped in this copy)." if missing else ""),
             "", f"![{g.title}: ratings and scores]({img})", ""]
    return lines + ratings_table(summary) + ["", "Score of the row against the column, % (95 % Wilson interval):", ""] \
        + score_matrix(summary) + [""]


def markdown(summaries: list[dict], command: str, images: dict) -> str:
    """docs/strength.md: the command, how to read the tables, one section per game."""
    deals = sorted({s["deals_per_pair"] for s in summaries})
    made = (f"Produced by `{command}` on {time.strftime('%Y-%m-%d', time.gmtime())}"
            if len({s.get("command") for s in summaries}) == 1 else "Produced one game at a time (each section names its run)")
    lines = ["# How strong each AI is", "",
             f"{made}: "
             f"**{_many(max(deals), 'deals')} per pair**"
             + (" — a small run that shows how the table is made; its intervals are wide, and a larger run "
                "replaces it." if max(deals) < 100 else "."), "",
             "Every shipped AI and bot of a game plays every other (`cavallo tournament`: each duplicate deal "
             "twice, seats swapped; Scopa: matches to 11). The levels the table offers are **fast** "
             "(`policy:<game>`, the network alone) and **strong** (`search:<game>`, the network-guided search); "
             "[in_game_ai.md](in_game_ai.md) says how fast each answers. The rating is in Elo points (200 ahead "
             "scores 76 %; the field's mean is 0), fitted to all of a game's results at once (Bradley-Terry "
             "maximum likelihood, one virtual draw a pair), so the order the games were played in does not "
             "matter; the interval is its 95 % interval, and the rating orders the table. "
             "The score counts a win 1 and a draw 1/2. The time a decision is wall-clock on the machine of the run, "
             "shared with the run's other workers (`--jobs`) and whatever else ran (the load average says how "
             "busy it was); the strong level's budget is CPU time, so a busy machine makes it slower, not weaker "
             "(short of its 800 ms wall-clock cap).", ""]
    for s in summaries:
        lines += game_section(s, images[s["game"]])
    return "\n".join(lines)


def earlier(p: argparse.ArgumentParser, args) -> dict:
    """``--merge``: {game: summary} of the earlier run in ``--json`` (empty without ``--merge``)."""
    if not args.merge:
        return {}
    if not args.json or not Path(args.json).is_file():
        p.error("--merge reads the earlier run's summaries from --json PATH: give an existing file")
    try:
        kept = {s["game"]: s for s in json.loads(Path(args.json).read_text(encoding="utf-8"))}
    except (ValueError, TypeError, KeyError) as e:
        p.error(f"--merge: {args.json} is not a list of this script's summaries ({type(e).__name__}: {e})")
    undated = sorted(g for g, s in kept.items() if "command" not in s or "date" not in s)
    if undated:
        p.error(f"--merge: the summaries of {', '.join(undated)} in {args.json} do not say which command made them "
                "(written before --merge): rerun every game, or add their \"command\" and \"date\"")
    return kept


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=100, help="duplicate deals per pair (default 100)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the bots (default 0)")
    p.add_argument("--games", default=None, help="comma-separated games (default every game)")
    p.add_argument("--bots", default=None, help="comma-separated bot specs instead of each game's own list")
    p.add_argument("--out", default=str(ROOT / "docs" / "strength.md"), help="the Markdown (default docs/strength.md)")
    p.add_argument("--img", default=str(ROOT / "docs" / "img"), help="folder of the charts (default docs/img)")
    p.add_argument("--json", default=None, metavar="PATH", help="also write the tournaments' summaries")
    p.add_argument("--merge", action="store_true",
                   help="keep the other games' summaries of --json (an earlier run) and write the doc for all")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    names = games.names() if args.games is None else args.games.split(",")
    unknown = sorted(set(names) - set(games.names()))
    if unknown:
        p.error(f"--games: unknown {', '.join(unknown)}; known: {', '.join(games.names())}")
    kept = earlier(p, args)
    bots = split_specs(args.bots) if args.bots else None
    summaries = run(names, bots, args.deals, args.seed, args.jobs, not args.no_progress)
    command = ("python benchmarks/strength_table.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip()
    for s in summaries:
        s["command"], s["date"] = command, time.strftime("%Y-%m-%d", time.gmtime())
    new = {s["game"]: s for s in summaries}
    summaries = [new.get(g) or kept[g] for g in games.names() if g in new or g in kept]
    os.makedirs(args.img, exist_ok=True)
    images = {}
    for s in summaries:  # a kept game's chart too, drawn again from its summary
        path = Path(args.img) / f"strength-{s['game']}.png"
        write_chart(s, str(path))
        images[s["game"]] = os.path.relpath(path.resolve(), Path(args.out).resolve().parent)
    Path(args.out).write_text(markdown(summaries, command, images) + "\n", encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(summaries, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} and {', '.join(str(Path(args.img) / f'strength-{g}.png') for g in names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
