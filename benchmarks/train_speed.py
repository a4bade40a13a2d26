"""End-to-end training speed: agent decisions per second, rollout plus PPO update.

    .venv/bin/python benchmarks/train_speed.py --game briscola [--updates 10]
    .venv/bin/python benchmarks/train_speed.py --config configs/cavalloicera.yaml

Runs the training loop's iteration (``training.ppo.iteration``: league draw,
lockstep rollout, advantages, PPO update) for a few updates after a warm-up
one, with the config's league mix (so bot opponents cost what they cost in
training); ``--game G`` takes ``configs/G.yaml`` (Cavalloìcera:
``configs/cavalloicera.yaml``).  It reports:

- decisions/s: every decision taken in the training games (every seat,
  capture-building sub-steps included) per second of rollout + update wall
  time; learner samples/s: the decisions that are trained on;
- the share of that time spent in the engine (legal actions, stepping), the
  encoder (feature updates, observation gathers, masks), inference (batched
  forward passes and sampling), the fixed bots, and the PPO update.

On the compiled core (``cavallo_env.core.enabled()``) the prior and the
fixed bots run in C and no prior workers are started; ``CAVALLO_CORE=python``
measures the Python engines (the same run, bit for bit).

Nothing is written to disk.  The machine's other load matters: the numbers
are wall-clock.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default=None, choices=["cavalloicera", "briscola", "scopa"],
                    help="the game's training config (configs/<game>.yaml; Cavalloìcera: configs/cavalloicera.yaml)")
    ap.add_argument("--config", default=None, help="a training config (default: the --game's, else configs/cavalloicera.yaml)")
    ap.add_argument("--updates", type=int, default=10, help="timed updates (after one warm-up update)")
    ap.add_argument("--games", type=int, default=None, help="override the config's games per rollout")
    ap.add_argument("--threads", type=int, default=None, help="override the config's torch threads")
    ap.add_argument("--device", default=None, help="override the config's device (auto, cpu, cuda)")
    ap.add_argument("--prior-workers", type=int, default=None,
                    help="override the config's prior_workers (extra processes for the heuristic prior)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)

    import torch

    import tempfile

    from cavallo_env import core
    from training.config import load
    from training.ppo import iteration
    from training.rollout import PHASES, Timers, start_prior_workers
    from training.run import Run

    if args.config is None:
        args.config = f"configs/{args.game}.yaml" if args.game not in (None, "cavalloicera") else "configs/cavalloicera.yaml"
    cfg = load(args.config)
    if args.game is not None and cfg.game != args.game:
        ap.error(f"{args.config} trains {cfg.game}, not {args.game}")
    if args.games:
        cfg.games = args.games
    if args.threads:
        cfg.threads = args.threads
    if args.prior_workers is not None:
        cfg.prior_workers = args.prior_workers
    torch.set_num_threads(cfg.threads)
    run = Run.start(cfg, Path(tempfile.mkdtemp(prefix="train-speed-")), args.device)
    dev = run.device
    run.league.add(run.model, 0)  # so that the snapshot share of the mix is played too
    workers = start_prior_workers(cfg)

    def one_update(timers):
        return iteration(run, timers, workers)[0]

    one_update(Timers())  # warm-up
    timers = Timers()
    decisions = samples = 0
    t0 = time.perf_counter()
    for _ in range(args.updates):
        stats = one_update(timers)
        decisions += stats.decisions
        samples += stats.learner_decisions
    wall = time.perf_counter() - t0
    if workers is not None:
        workers.close()
    measured = sum(timers.values())
    out = {
        "config": args.config, "game": cfg.game, "device": str(dev), "threads": cfg.threads,
        "core": core.enabled(), "prior_workers": workers.n if workers is not None else 0,
        "games_per_rollout": cfg.games,
        "updates": args.updates, "wall_s": wall, "decisions": decisions, "learner_samples": samples,
        "decisions_per_s": decisions / wall, "learner_samples_per_s": samples / wall,
        "shares": {p: timers[p] / wall for p in PHASES},
        "other_share": max(0.0, 1 - measured / wall),
        "mix": cfg.league.mix,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"train_speed: {cfg.game}, {args.config}, {out['device']}, {cfg.threads} torch thread(s), "
          f"{'compiled core' if out['core'] else 'Python engines'}, {out['prior_workers']} prior worker(s), "
          f"{cfg.games} games per rollout, "
          f"{args.updates} updates in {wall:.1f} s")
    print(f"  decisions/s (all seats, rollout + update)   {out['decisions_per_s']:10.0f}")
    print(f"  learner samples/s (trained on)              {out['learner_samples_per_s']:10.0f}")
    print("  share of wall time:")
    for p in PHASES:
        print(f"    {p:<10} {100 * out['shares'][p]:5.1f}%")
    print(f"    {'other':<10} {100 * out['other_share']:5.1f}%  (advantages, batching, league draw)")
    print(f"  league mix: {cfg.league.mix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
