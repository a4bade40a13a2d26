"""Self-play PPO training of a team policy from a YAML config.

    cavallo train --config configs/quick-cavalloicera.yaml
    cavallo train --resume runs/quick-cavalloicera-20261206-041502
    cavallo train --backend rllib --config configs/rllib/briscola.yaml [--address auto]

A run writes runs/<name>-<timestamp>/: config.yaml, metrics.csv, TensorBoard
events (tb/), checkpoints/ (last.json and the last.<hash>.safetensors it
names, to resume; update-NNNNN.* evaluated models) and learning_curve.png.
Checkpoints are saved atomically, so --resume works after a kill at any
instant; it continues a stopped run from its last checkpoint (weights,
optimizer, league, RNG; verified: sha256, finite weights); --config may then
be given to change the run's length: it must match the run's config except `updates`
(the learning-rate schedule follows the new length from then on) and
`prior_workers` (how many processes compute the prior; the run is the same).

--backend rllib trains on Ray RLlib instead (training.rllib, the `rllib`
extra: pip install -e '.[rllib]'), from a configs/rllib/*.yaml, on this
machine or a Ray cluster (--address); it writes the same run directory and
checkpoints (docs/rllib.md).  It has no --resume.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from .. import games


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="YAML", help="training config, e.g. configs/quick-cavalloicera.yaml or configs/cavalloicera.yaml")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint")
    p.add_argument("--device", default=None, help="auto (GPU when present), cpu, cuda or cuda:N (default: the config's)")
    p.add_argument("--runs", default="runs", metavar="DIR", help="where new run directories go (default: runs)")
    p.add_argument("--stop-at", type=int, default=None, metavar="UPDATE",
                   help="stop after this update, 0 = after the warm start (checkpointed; --resume continues)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (log lines only)")
    p.add_argument("--backend", choices=("project", "rllib"), default="project",
                   help="project: the project's own trainer (default); rllib: Ray RLlib, from a "
                        "configs/rllib/*.yaml (pip install -e '.[rllib]'; docs/rllib.md)")
    p.add_argument("--address", default=None, metavar="RAY_ADDRESS",
                   help="--backend rllib: the Ray cluster to run on, e.g. auto (the cluster of `ray start "
                        "--head` on this machine) or ray://host:10001 (default: the config's rllib.address, "
                        "else $RAY_ADDRESS, else a Ray started for the run)")
    p.add_argument("--init-from", default=None, metavar="CHECKPOINT",
                   help="--backend rllib: start from this project checkpoint of the same network, e.g. a "
                        "run's warm start checkpoints/update-00000.json (default: the config's init_from)")


#: config keys a ``--resume --config`` may change: the run's length, and how many processes
#: share the heuristic prior (the run is the same with any number of them)
RESUME_MAY_CHANGE = ("updates", "prior_workers")


def run(args) -> int:
    if getattr(args, "backend", "project") == "rllib":
        return run_rllib(args)
    for opt in ("address", "init_from"):
        if getattr(args, opt, None) is not None:
            raise ValueError(f"--{opt.replace('_', '-')} is for --backend rllib")
    if not args.config and not args.resume:
        raise ValueError("give --config YAML to start a run or --resume RUN_DIR to continue one")
    if args.stop_at is not None and args.stop_at < 0:
        raise ValueError(f"--stop-at must be 0 (after the warm start) or an update number, got {args.stop_at}")
    from training.config import ConfigError, dump, load  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.run import config_of_run, new_run_dir  # lazy: the trainer package, never imported by cavallo_env at module level

    if args.device is not None:
        from training.config import TrainConfig  # lazy: the trainer package, never imported by cavallo_env at module level

        try:
            TrainConfig(device=args.device).check("config")
        except ConfigError as e:
            raise ConfigError(str(e).replace("config.device", "--device", 1)) from None
    if args.resume:
        run_dir = Path(args.resume)
        try:
            cfg = config_of_run(run_dir)
        except ConfigError as e:
            if "unknown key 'rllib'" in str(e) or "unknown key 'iterations'" in str(e):
                raise ConfigError(f"{run_dir} is a run of the RLlib backend, which cannot be resumed "
                                  "(docs/rllib.md); start a new run with --init-from its checkpoint") from None
            raise
        if args.config:
            new = load(args.config)
            a, b = new.to_dict(), cfg.to_dict()
            for key in RESUME_MAY_CHANGE:
                a.pop(key), b.pop(key)
            if a != b:
                diff = _differences(a, b)
                raise ConfigError(f"{args.config} differs from the config of {run_dir} in {', '.join(diff)}; "
                                  f"only {' and '.join(f'`{k}`' for k in RESUME_MAY_CHANGE)} may change when resuming")
            for key in RESUME_MAY_CHANGE:
                setattr(cfg, key, getattr(new, key))
            (run_dir / "config.yaml").write_text(dump(cfg), encoding="utf-8")
        return _train(cfg, run_dir, args, resume=True)
    else:
        try:
            cfg = load(args.config)
        except ConfigError as e:
            if "unknown key 'rllib'" in str(e) or "unknown key 'iterations'" in str(e):
                raise ConfigError(f"{e}\n(an RLlib config: add --backend rllib)") from None
            raise
        from training.run import resolve_device  # lazy: the trainer package, never imported by cavallo_env at module level

        resolve_device(args.device or cfg.device)  # no GPU for `cuda`: say so before a run directory is made
        return _train(cfg, new_run_dir(cfg, args.runs), args, resume=False)


def _train(cfg, run_dir: Path, args, *, resume: bool) -> int:
    """``training.ppo.train`` with the command's options; Ctrl-C says how to resume."""
    from training.interrupt import Interrupted  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.ppo import train  # lazy: the trainer package, never imported by cavallo_env at module level

    try:
        summary = train(cfg, run_dir, resume=resume, device=args.device, progress=not args.no_progress,
                        stop_at=args.stop_at, log=lambda m: print(m, file=sys.stderr))
    except Interrupted as e:
        print(f"interrupted: update {e.update} is saved in {e.run_dir / 'checkpoints' / 'last.json'}; "
              f"continue with:\n  cavallo train --resume {e.run_dir}", file=sys.stderr)
        return 130
    print_summary(summary, "updates", "update", cfg)
    return 0


def _differences(a: dict, b: dict, prefix: str = "") -> list[str]:
    """The dotted keys (``ppo.lr``) where two config dicts differ."""
    out = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if isinstance(x, dict) and isinstance(y, dict):
            out.extend(_differences(x, y, f"{prefix}{k}."))
        elif x != y:
            out.append(f"{prefix}{k}")
    return out


def print_summary(summary: dict, steps: str, step: str, cfg=None) -> None:
    """The run's directory, its size and its last evaluation against each opponent."""

    what = games.counted_as(cfg.game, cfg.game_options) if cfg is not None else "deals"
    print(f"run directory: {summary['run_dir']}")
    print(f"{steps} {summary['update']}, decisions {summary['decisions']} "
          f"({summary['learner_decisions']} by the learner), {summary['wall_s'] / 60:.1f} min training wall time")
    last = {}
    for e in summary["evals"]:
        last[e["opponent"]] = e
    for opp, e in last.items():
        lo, hi = e["score_ci"]
        print(f"  vs {opp:<10} score {100 * e['score']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]  "
              f"points/game {e['mean_diff']:+.2f}  ({step} {e['update']}, {e['deals']} duplicate {what})")


def run_rllib(args) -> int:
    """``cavallo train --backend rllib``: ``training.rllib.train`` (imported only here)."""
    if args.resume:
        raise ValueError("--resume is not supported with --backend rllib (RLlib's own checkpoint of a run is in "
                         "<run dir>/rllib; docs/rllib.md)")
    if not args.config:
        raise ValueError("give --config configs/rllib/<game>.yaml with --backend rllib")
    if args.stop_at is not None or args.device is not None:
        raise ValueError("--stop-at and --device are options of the project's trainer; with --backend rllib "
                         "set iterations/time_limit_s and rllib.gpus_per_learner in the config")
    try:
        import ray  # noqa: F401  (lazy: probes the optional rllib extra)
        import safetensors  # noqa: F401  (lazy: probes the optional rllib extra)
        import torch  # noqa: F401  (lazy: probes the optional rllib extra)
    except ImportError:
        raise SystemExit("cavallo train --backend rllib needs Ray RLlib, which is not installed: "
                         "pip install -e '.[rllib]'") from None
    from training.rllib.config import load  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.rllib.train import train  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.run import new_run_dir  # lazy: the trainer package, never imported by cavallo_env at module level

    cfg = load(args.config)
    if args.init_from is not None:
        cfg.init_from = args.init_from
    run_dir = new_run_dir(cfg, args.runs)
    summary = train(cfg, run_dir, address=args.address, progress=not args.no_progress,
                    log=lambda m: print(m, file=sys.stderr))
    print_summary(summary, "iterations", "iteration")
    print(f"checkpoint: {summary['run_dir']}/checkpoints/last.json (cavallo export / eval checkpoint:...)")
    return 0
