"""Self-play PPO training of a team policy from a YAML config.

    cavallo train --config configs/quick.yaml
    cavallo train --resume runs/default-20261130-204500

A run writes runs/<name>-<timestamp>/: config.yaml, metrics.csv, TensorBoard
events (tb/), checkpoints/ (last.* to resume, update-NNNNN.* evaluated
models) and learning_curve.png.  --resume continues a stopped run from its
last checkpoint (weights, optimizer, league, RNG); --config may then be given
to change the run's length: it must match the run's config except `updates`
(the learning-rate schedule follows the new length from then on).
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="YAML", help="training config, e.g. configs/quick.yaml or configs/default.yaml")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint")
    p.add_argument("--device", default=None, help="auto (GPU when present), cpu, cuda or cuda:N (default: the config's)")
    p.add_argument("--runs", default="runs", metavar="DIR", help="where new run directories go (default: runs)")
    p.add_argument("--stop-at", type=int, default=None, metavar="UPDATE",
                   help="stop after this update, 0 = after the warm start (checkpointed; --resume continues)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (log lines only)")


#: config keys a ``--resume --config`` may change: the run's length, and how many processes
#: share the heuristic prior (the run is the same with any number of them)
RESUME_MAY_CHANGE = ("updates", "prior_workers")


def run(args) -> int:
    if not args.config and not args.resume:
        raise ValueError("give --config YAML to start a run or --resume RUN_DIR to continue one")
    if args.stop_at is not None and args.stop_at < 0:
        raise ValueError(f"--stop-at must be 0 (after the warm start) or an update number, got {args.stop_at}")
    from pathlib import Path

    from training.config import ConfigError, dump, load
    from training.ppo import train
    from training.run import config_of_run, new_run_dir

    if args.device is not None:
        from training.config import TrainConfig

        TrainConfig(device=args.device).check("--device")
    if args.resume:
        run_dir = Path(args.resume)
        cfg = config_of_run(run_dir)
        if args.config:
            new = load(args.config)
            a, b = new.to_dict(), cfg.to_dict()
            for key in RESUME_MAY_CHANGE:
                a.pop(key), b.pop(key)
            if a != b:
                diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
                raise ConfigError(f"{args.config} differs from the config of {run_dir} in {', '.join(diff)}; "
                                  f"only {' and '.join(f'`{k}`' for k in RESUME_MAY_CHANGE)} may change when resuming")
            for key in RESUME_MAY_CHANGE:
                setattr(cfg, key, getattr(new, key))
            (run_dir / "config.yaml").write_text(dump(cfg), encoding="utf-8")
        summary = train(cfg, run_dir, resume=True, device=args.device, progress=not args.no_progress,
                        stop_at=args.stop_at, log=lambda m: print(m, file=sys.stderr))
    else:
        cfg = load(args.config)
        run_dir = new_run_dir(cfg, args.runs)
        summary = train(cfg, run_dir, device=args.device, progress=not args.no_progress,
                        stop_at=args.stop_at, log=lambda m: print(m, file=sys.stderr))
    print(f"run directory: {summary['run_dir']}")
    print(f"updates {summary['update']}, decisions {summary['decisions']} "
          f"({summary['learner_decisions']} by the learner), {summary['wall_s'] / 60:.1f} min training wall time")
    last = {}
    for e in summary["evals"]:
        last[e["opponent"]] = e
    for opp, e in last.items():
        lo, hi = e["score_ci"]
        print(f"  vs {opp:<10} score {100 * e['score']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]  "
              f"points/game {e['mean_diff']:+.2f}  (update {e['update']}, {e['deals']} duplicate deals)")
    return 0
