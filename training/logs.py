"""What a run writes as it goes: ``metrics.csv``, TensorBoard scalars and ``learning_curve.png``.

Every update appends a row to ``metrics.csv`` (and the same scalars to
TensorBoard's ``tb/`` folder, when tensorboard is installed); every periodic
evaluation redraws ``learning_curve.png``: the duplicate-evaluation score
against each fixed bot with its 95% interval, and the rollout scores by
opponent, over the learner decisions trained.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
from tqdm import tqdm

from .rollout import PHASES


def label(spec: str) -> str:
    """A bot spec as a metric name (``ismcts:200`` -> ``ismcts_200``)."""
    return "".join(c if c.isalnum() else "_" for c in spec)


class RunLog:
    """metrics.csv + TensorBoard events + learning_curve.png in the run directory."""

    def __init__(self, run_dir: Path, cfg):
        self.run_dir = run_dir
        self.columns = ["update", "decisions", "learner_decisions", "wall_s", "decisions_per_s", "samples_per_s", "lr",
                        "loss_policy", "loss_value", "entropy", "approx_kl", "clipfrac", "explained_var", "batch"]
        self.columns += [f"rollout_score_{k}" for k in ("self", "greedy", "heuristic", "snapshots")]
        self.columns += [f"rollout_diff_{k}" for k in ("greedy", "heuristic", "snapshots")]
        self.columns += ["league_snapshots", "league_min_score", "league_mean_score"]
        self.columns += [f"share_{p}" for p in PHASES]
        for spec in cfg.eval.opponents:
            self.columns += [f"eval_{label(spec)}_score", f"eval_{label(spec)}_diff"]
        path = run_dir / "metrics.csv"
        new = not path.exists()
        self.csv_file = open(path, "a", newline="", encoding="utf-8")
        self.csv = csv.DictWriter(self.csv_file, fieldnames=self.columns, extrasaction="ignore")
        if new:
            self.csv.writeheader()
        self.tb = None
        try:
            from torch.utils.tensorboard import SummaryWriter  # lazy: tensorboard, the optional train extra

            self.tb = SummaryWriter(str(run_dir / "tb"))
        except ImportError:  # tensorboard not installed: CSV only
            pass

    def write(self, row: dict) -> None:
        self.csv.writerow({k: _fmt(row.get(k)) for k in self.columns})
        self.csv_file.flush()
        if self.tb is not None:
            step = int(row["decisions"])
            for k, v in row.items():
                if k not in ("update", "decisions") and isinstance(v, (int, float)) and math.isfinite(v):
                    self.tb.add_scalar(k.replace("_", "/", 1) if k.startswith(("eval_", "share_", "rollout_", "league_")) else f"train/{k}", v, step)
            self.tb.flush()

    def close(self):
        self.csv_file.close()
        if self.tb is not None:
            self.tb.close()


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def score_errorbar(ax, x: list, evals: list, label: str) -> None:
    """Each evaluation's duplicate score (percent) at ``x``, its 95% Wilson interval as the error bar."""
    y = [100 * e["score"] for e in evals]
    err = [[100 * (e["score"] - e["score_ci"][0]) for e in evals], [100 * (e["score_ci"][1] - e["score"]) for e in evals]]
    ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)


def plot_learning_curve(run_dir: Path, evals: list, out: Path | None = None) -> Path:
    """Duplicate-evaluation score against each fixed bot and the rollout scores, by decisions trained."""
    import matplotlib  # lazy: matplotlib, an optional extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: matplotlib, after the Agg backend is chosen

    out = out or run_dir / "learning_curve.png"
    rows = []
    path = run_dir / "metrics.csv"
    if path.exists():
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    opps = sorted({e["opponent"] for e in evals})
    for opp in opps:
        es = [e for e in evals if e["opponent"] == opp]
        score_errorbar(ax1, [e["learner_decisions"] / 1e6 for e in es], es, f"vs {opp}")
    ax1.axhline(50, color="grey", lw=0.8, ls=":")
    ax1.set_xlabel("learner decisions trained (millions)")
    ax1.set_ylabel("duplicate score % (draws = 1/2), 95% CI")
    ax1.set_title("periodic duplicate evaluation")
    if opps:
        ax1.legend()
    if rows:
        x = [float(r["learner_decisions"]) / 1e6 for r in rows]
        for key in ("greedy", "heuristic", "snapshots", "self"):
            col = f"rollout_score_{key}"
            pts = [(xi, float(r[col])) for xi, r in zip(x, rows) if r.get(col)]
            if pts:
                xs, ys = zip(*pts)
                k = max(1, len(ys) // 50)
                if k > 1:  # trailing moving average (no edge effects)
                    ys = np.convolve(ys, np.ones(k) / k, mode="valid")
                    xs = xs[k - 1:]
                ax2.plot(xs, np.asarray(ys) * 100, label=f"vs {key}")
        ax2.axhline(50, color="grey", lw=0.8, ls=":")
        ax2.set_xlabel("learner decisions trained (millions)")
        ax2.set_ylabel("training-game score % (smoothed)")
        ax2.set_title("rollout results by opponent")
        ax2.legend()
    fig.suptitle(f"learning curve: {run_dir.name}")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


class Progress:
    """The progress bar of a run (tqdm; none with ``enabled=False``) and the lines logged past it."""

    def __init__(self, cfg, start: int, *, enabled: bool, log=print):
        self.cfg, self.log, self.last_eval = cfg, log, ""
        self.bar = None
        if enabled:
            self.bar = tqdm(total=cfg.updates, initial=start, unit="upd", desc=f"ppo: {cfg.game}", dynamic_ncols=True)

    def evaluating(self, update: int) -> None:
        if self.bar is not None:
            self.bar.set_description_str(f"ppo: {self.cfg.game} (evaluating update {update})")

    def evaluated(self, update: int, results: list[dict], seconds: float, counted: str) -> None:
        """Log an evaluation's line above the bar and keep its short form for the bar."""
        self.last_eval = " ".join(f"{r['opponent'][:1].upper()}{100 * r['score']:.0f}%" for r in results)
        msg = ", ".join(f"{r['opponent']} {100 * r['score']:.1f}% ({r['mean_diff']:+.2f} pts)" for r in results)
        if self.bar is not None:
            self.bar.clear()  # the line goes above the bar, not onto it
        self.log(f"update {update}: duplicate eval ({self.cfg.eval.deals} {counted}, {seconds:.0f}s): {msg}")
        if self.bar is not None:
            self.bar.set_description_str(f"ppo: {self.cfg.game}")

    def advanced(self, row: dict, entropy: float) -> None:
        if self.bar is not None:
            post = {"dec/s": f"{row['decisions_per_s']:.0f}", "ent": f"{entropy:.2f}"}
            if self.last_eval:
                post["eval"] = self.last_eval
            self.bar.set_postfix(post, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
