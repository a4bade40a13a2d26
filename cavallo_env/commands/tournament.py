"""Round robin of several bots with duplicate deals, ratings and a chart, in any game (``--game``).

Every pair of bots plays the same --deals duplicate deals (each deal twice,
teams swapped).  The ratings are Elo points fitted to all the games at once
(``cavallo_env.ratings``: Bradley-Terry maximum likelihood, draws count half,
95 % intervals; the order the games were played in does not matter).  Prints
the ratings table and the matrix of score rates (row against column, draws
count half), and writes tournament.json and tournament.png (ratings with
their intervals, score heatmap) to --out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .. import games, ratings
from ..bots import make, split_specs
from ..evaluation import check_deals, check_jobs, run_deals, summarize
from ..files import read_json_file
from ..records import check_output_dir
from ._game import add_game_arguments, add_run_arguments, game_options

#: a summary holds a few kilobytes a pair: 16 MiB is thousands of pairs; anything larger is not one
MAX_SUMMARY_BYTES = 16 << 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bots", help="comma-separated bot specs, e.g. random,greedy,heuristic,ismcts:200")
    p.add_argument("--from", dest="saved", metavar="JSON",
                   help="rate a saved tournament.json again instead of playing (its table, json and chart to --out)")
    p.add_argument("--out", default="tournament", help="folder for tournament.json and tournament.png (default ./tournament)")
    add_run_arguments(p, 100, "duplicate deals per pair")
    add_game_arguments(p)


def parse_bots(text: str, game: str = games.DEFAULT_GAME) -> list[str]:
    merged = split_specs(text)
    if len(merged) < 2:
        raise ValueError(f"--bots needs at least two bot specs separated by commas, got {text!r}")
    dup = sorted({s for s in merged if merged.count(s) > 1})
    if dup:
        raise ValueError(f"--bots lists {', '.join(dup)} more than once")
    for s in merged:
        make(s, seed=0, game=game)
    return merged


def rate(bots: list[str], pair_results: dict) -> dict:
    """Elo ratings with 95 % intervals from every pair's results (``DuplicateResult`` dicts, A = the row)."""
    index = {b: k for k, b in enumerate(bots)}
    pairs = {(index[r["bot_a"]], index[r["bot_b"]]): (r["wins"] + r["draws"] / 2, r["games"])
             for r in pair_results.values()}
    return ratings.fit(bots, pairs)


def best_first(rated: dict) -> list[str]:
    """The bots of ``rated`` (``rate``'s answer), highest rating first."""
    return sorted(rated, key=lambda b: -rated[b]["elo"])


def rerate(summary: dict) -> dict:
    """A saved summary with its ratings and order computed again from its pairs' results (no game played)."""
    try:
        bots = list(summary["bots"])
        if len(set(bots)) != len(bots) or not all(isinstance(b, str) for b in bots):
            raise ValueError(f"its bots {bots} are not distinct bot specs")
        pairs = {name: {k: pair[k] for k in ("bot_a", "bot_b", "wins", "draws", "games")}
                 for name, pair in summary["pairs"].items()}
        known = set(bots)
        for name, pair in pairs.items():
            if not {pair["bot_a"], pair["bot_b"]} <= known or pair["bot_a"] == pair["bot_b"]:
                raise ValueError(f"pair {name!r} names bots outside {bots}")
            if not all(isinstance(pair[k], int) and pair[k] >= 0 for k in ("wins", "draws", "games")) \
                    or pair["wins"] + pair["draws"] > pair["games"]:
                raise ValueError(f"pair {name!r} has no whole, consistent win/draw/game counts")
        rated = rate(bots, pairs)
        again = dict(summary, ratings=rated, order=best_first(rated))
        format_table(again)  # the rest of what the table and the chart read is there
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        raise ValueError(f"not a cavallo tournament summary (missing or malformed {e})") from None
    return again


def tournament(bots: list[str], deals: int, seed, jobs, progress=None, game: str = games.DEFAULT_GAME,
               options: dict | None = None) -> dict:
    """Play the round robin of ``game`` (with its ``options``); returns the JSON-able summary."""

    check_deals(deals)
    pairs = [(i, j) for i in range(len(bots)) for j in range(i + 1, len(bots))]

    options = games.get(game).check_options(options or {})
    tasks = [(bots[i], bots[j], seed, d, game, options) for i, j in pairs for d in range(deals)]
    results = run_deals(tasks, jobs, progress)
    pair_results = {}
    n = len(bots)
    matrix = [[None] * n for _ in range(n)]
    for k, (i, j) in enumerate(pairs):
        chunk = results[k * deals:(k + 1) * deals]
        r = summarize(bots[i], bots[j], seed, chunk, game, options)
        pair_results[f"{bots[i]} vs {bots[j]}"] = r.to_dict()
        matrix[i][j] = r.score
        matrix[j][i] = 1.0 - r.score
    rated = rate(bots, pair_results)
    overall = {}
    for i, b in enumerate(bots):
        row = [matrix[i][j] for j in range(n) if j != i]
        overall[b] = sum(row) / len(row)
    order = best_first(rated)
    return {"game": game, "options": options, "bots": bots, "deals_per_pair": deals, "seed": seed,
            "ratings": rated, "order": order,
            "mean_score": overall, "score_matrix": matrix, "pairs": pair_results}


def _title(summary: dict) -> str:
    return games.label(summary.get("game", games.DEFAULT_GAME), summary.get("options"))


def format_table(summary: dict) -> str:
    bots = summary["bots"]
    r = summary["ratings"]
    width = max(12, max(len(b) for b in bots) + 2)
    lines = [f"{_title(summary)} round robin: {len(bots)} bots, {summary['deals_per_pair']} duplicate deals per pair, "
             f"seed {summary['seed']}",
             "", f"{'#':>3}  {'bot':<{width}}{'Elo':>8}{'95% interval':>18}{'mean score':>12}"]
    for k, b in enumerate(summary["order"], start=1):
        lo, hi = r[b]["elo_ci"]
        lines.append(f"{k:>3}  {b:<{width}}{r[b]['elo']:>8.0f}{f'{lo:.0f} to {hi:.0f}':>18}"
                     f"{100 * summary['mean_score'][b]:>11.1f}%")
    col = max(9, max(len(b) for b in bots)) + 2
    lines += ["", "score of row against column (draws = 1/2):", " " * width + "".join(f"{b:>{col}}" for b in bots)]
    for i, b in enumerate(bots):
        cells = "".join(f"{'-':>{col}}" if v is None else f"{100 * v:>{col - 1}.1f}%" for v in summary["score_matrix"][i])
        lines.append(f"{b:<{width}}{cells}")
    return "\n".join(lines)


def write_chart(summary: dict, path: str) -> None:
    import matplotlib  # lazy: matplotlib, the optional eval extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: matplotlib, after the Agg backend is chosen

    bots = summary["bots"]
    order = summary["order"]
    r = summary["ratings"]
    n = len(bots)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6 + 1.6 * n, 4.5))
    elos = [r[b]["elo"] for b in order]
    errs = [[r[b]["elo"] - r[b]["elo_ci"][0] for b in order], [r[b]["elo_ci"][1] - r[b]["elo"] for b in order]]
    ax1.bar(range(n), elos, yerr=errs, capsize=4, color="#4c72b0")
    ax1.axhline(0, color="grey", linewidth=0.8)
    ax1.set_xticks(range(n))
    ax1.set_xticklabels(order, rotation=30, ha="right")
    ax1.set_ylabel("Elo, mean of the field 0 (95% interval)")
    ax1.set_title("ratings")
    m = [[float("nan") if v is None else 100 * v for v in row] for row in summary["score_matrix"]]
    im = ax2.imshow(m, cmap="RdYlGn", vmin=0, vmax=100)
    ax2.set_xticks(range(n))
    ax2.set_xticklabels(bots, rotation=30, ha="right")
    ax2.set_yticks(range(n))
    ax2.set_yticklabels(bots)
    for i in range(n):
        for j in range(n):
            if i != j:
                ax2.text(j, i, f"{m[i][j]:.0f}", ha="center", va="center", fontsize=9)
    ax2.set_title("score % of row vs column")
    fig.colorbar(im, ax=ax2, fraction=0.046)
    fig.suptitle(f"{_title(summary)} round robin, {summary['deals_per_pair']} duplicate deals per pair")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _saved(path: str) -> dict:
    summary = read_json_file(path, MAX_SUMMARY_BYTES, "a cavallo tournament summary")
    if not isinstance(summary, dict):
        raise ValueError(f"{path} is not a cavallo tournament summary (not a JSON object)")
    return rerate(summary)


def _write(summary: dict, out: str) -> None:
    print(format_table(summary))
    os.makedirs(out, exist_ok=True)
    json_path = os.path.join(out, "tournament.json")
    with open(json_path, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    png_path = os.path.join(out, "tournament.png")
    write_chart(summary, png_path)
    print(f"\nwrote {json_path} and {png_path}")


def run(args) -> int:
    if args.saved is not None:
        if args.bots is not None:
            raise ValueError("--from rates a saved tournament: it takes no --bots")
        summary = _saved(args.saved)
        check_output_dir(args.out)
        _write(summary, args.out)
        return 0
    if args.bots is None:
        raise ValueError("--bots is required (or --from a saved tournament.json)")
    game, options = game_options(args)
    bots = parse_bots(args.bots, game.name)
    check_deals(args.deals)
    check_jobs(args.jobs)

    check_output_dir(args.out)  # a bad folder fails now, not after the round robin
    total = args.deals * len(bots) * (len(bots) - 1) // 2
    bar = None
    progress = None
    if not args.no_progress:
        from tqdm import tqdm  # lazy: tqdm (~40 ms), only with a progress bar; kept out of `cavallo --help`

        bar = tqdm(total=total, unit="deal", desc="round robin", file=sys.stderr)
        progress = bar.update
    try:
        summary = tournament(bots, args.deals, args.seed, args.jobs, progress, game.name, options)
    finally:
        if bar is not None:
            bar.close()
    _write(summary, args.out)
    return 0
