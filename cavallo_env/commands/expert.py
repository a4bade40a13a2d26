"""Expert iteration: the search plays, the network learns its moves and results, repeated.

    cavallo expert --config configs/expert-briscola.yaml
    cavallo expert --config configs/expert-briscola.yaml --out runs/my-expert --generations 5
    cavallo expert --resume runs/expert-briscola-20261206-093000 [--generations 30]

Each generation plays self-play deals with the expert search (given the
network of the generation before), trains the network on the recent
generations' decisions (the search's root visit distribution and the final
result) and evaluates the network and the expert against fixed bots on
duplicate deals.  A run writes runs/<name>-<timestamp>/ (or --out): config.yaml,
metrics.csv, expert_curve.png, replay/gen-NNNNN.npz (the self-play data),
checkpoints/gen-NNNNN.* (each generation's network: checkpoint:<path>, cavallo
export) and checkpoints/last.* (to resume, bit for bit).  Ctrl-C keeps the
last finished generation.  docs/training.md, "Expert iteration".
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="YAML", help="expert-iteration config, e.g. configs/expert-briscola.yaml")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last finished generation")
    p.add_argument("--out", metavar="DIR", help="the new run's directory (default: runs/<name>-<timestamp>)")
    p.add_argument("--runs", default="runs", metavar="DIR", help="where new run directories go without --out (default: runs)")
    p.add_argument("--generations", type=int, default=None, metavar="N",
                   help="the run's length in generations (default: the config's; with --resume, a new length)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (log lines only)")


def run(args) -> int:
    if bool(args.config) == bool(args.resume):
        raise ValueError("give --config YAML to start a run or --resume RUN_DIR to continue one (not both)")
    if args.generations is not None and not 1 <= args.generations <= 100_000:
        raise ValueError(f"--generations must be from 1 to 100000, got {args.generations}")
    if args.resume and args.out:
        raise ValueError("--out names a new run's directory; --resume continues the run where it is")
    # lazy: the trainer package, never imported by cavallo_env at module level
    from training.expert import ExpertRun, check_init, new_run_dir, train
    from training.expert_config import load  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.interrupt import Interrupted  # lazy: the trainer package, never imported by cavallo_env at module level

    if args.resume:
        expert_run = ExpertRun.resume(args.resume, args.generations)
    else:
        cfg = load(args.config)
        if args.generations is not None:
            cfg.generations = args.generations
        check_init(cfg)  # a bad init checkpoint is refused before a run directory is made
        expert_run = ExpertRun.start(cfg, new_run_dir(cfg, args.runs, args.out))
    try:
        summary = train(expert_run, progress=not args.no_progress, log=lambda m: print(m, file=sys.stderr))
    except Interrupted as e:
        print(f"interrupted: generation {e.update} is saved in {e.run_dir / 'checkpoints' / 'last.json'}; "
              f"continue with:\n  cavallo expert --resume {e.run_dir}", file=sys.stderr)
        return 130
    _print_summary(summary)
    return 0


def _print_summary(summary: dict) -> None:
    print(f"run directory: {summary['run_dir']}")
    print(f"generations {summary['generation']}, self-play decisions {summary['decisions']}, "
          f"{summary['wall_s'] / 60:.1f} min")
    last = {}
    for e in summary["evals"]:
        last[(e["who"], e["opponent"])] = e
    for (who, opp), e in last.items():
        lo, hi = e["score_ci"]
        print(f"  {who:<6} vs {opp:<12} score {100 * e['score']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]  "
              f"points/game {e['mean_diff']:+.2f}  (generation {e['generation']}, {e['deals']} duplicate deals)")
    print(f"network: {summary['run_dir']}/checkpoints/gen-{summary['generation']:05d}.json "
          "(checkpoint:<path>; cavallo export)")
