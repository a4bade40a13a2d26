"""What an expert-iteration run writes as it goes: ``metrics.csv`` and ``expert_curve.png``.

One row per generation: its sizes and timings, the training losses, and for
each fixed opponent the duplicate score of the network (``net_<opp>_*``) and
of the expert search (``expert_<opp>_*``) with the 95% Wilson interval, empty
where that generation was not evaluated.  The plot draws those scores by
generation with their intervals.
"""

from __future__ import annotations

import csv
from pathlib import Path

from .logs import label, score_errorbar

BASE_COLUMNS = ["generation", "deals", "decisions", "window_decisions", "wall_s", "selfplay_s", "train_s", "eval_s",
                "loss_policy", "loss_value", "target_entropy", "agreement"]
WHO = ("net", "expert")
#: each panel's title
TITLES = {"net": "the network alone (policy)", "expert": "the expert search"}


def columns(cfg) -> list[str]:
    out = list(BASE_COLUMNS)
    for who in WHO:
        for spec in cfg.eval.opponents:
            out += [f"{who}_{label(spec)}_{k}" for k in ("score", "lo", "hi", "diff")]
    return out


def eval_row(evals: list[dict]) -> dict:
    """The metrics columns of one generation's evaluations."""
    row = {}
    for e in evals:
        key = f"{e['who']}_{label(e['opponent'])}"
        row.update({f"{key}_score": e["score"], f"{key}_lo": e["score_ci"][0], f"{key}_hi": e["score_ci"][1],
                    f"{key}_diff": e["mean_diff"]})
    return row


def write_row(run_dir: Path, cfg, row: dict) -> None:
    """Append ``row`` to ``metrics.csv`` (its header first when the file is new)."""
    path = Path(run_dir) / "metrics.csv"
    cols = columns(cfg)
    new = not path.exists()
    with open(path, "a", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerow({k: _fmt(row.get(k)) for k in cols})


def truncate(run_dir: Path, generation: int) -> None:
    """Keep the rows of ``metrics.csv`` up to ``generation`` (a resumed run rewrites the rest)."""
    path = Path(run_dir) / "metrics.csv"
    if not path.exists():
        return
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    keep = rows[:1] + [r for r in rows[1:] if r and int(r[0]) <= generation]
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(keep)


def wall_s(run_dir: Path, generation: int) -> float | None:
    """The run's wall time to the end of ``generation`` (its row of ``metrics.csv``; None without one)."""
    try:
        with open(Path(run_dir) / "metrics.csv", newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row.get("generation") == str(generation):
                    return float(row["wall_s"])
    except (OSError, ValueError, KeyError):
        pass
    return None


def _fmt(v):
    if v is None:
        return ""
    return f"{v:.6g}" if isinstance(v, float) else v


def plot(run_dir: Path, evals: list[dict], out: Path | None = None) -> Path:
    """``expert_curve.png``: duplicate score by generation against each opponent, 95% intervals."""
    import matplotlib  # lazy: matplotlib, an optional extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: matplotlib, after the Agg backend is chosen
    from matplotlib.ticker import MaxNLocator  # lazy: as above

    out = out or Path(run_dir) / "expert_curve.png"
    whos = [w for w in WHO if any(e["who"] == w for e in evals)] or [WHO[0]]  # no empty panel
    fig, axes = plt.subplots(1, len(whos), figsize=(6 * len(whos), 4.5), sharey=True, squeeze=False)
    for ax, who in zip(axes[0], whos):
        for opp in sorted({e["opponent"] for e in evals if e["who"] == who}):
            es = [e for e in evals if e["who"] == who and e["opponent"] == opp]
            score_errorbar(ax, [e["generation"] for e in es], es, f"vs {opp}")
        ax.axhline(50, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("generation")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(TITLES[who])
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    axes[0][0].set_ylabel("duplicate score % (draws = 1/2), 95% Wilson")
    fig.suptitle(f"expert iteration: {Path(run_dir).name}")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
