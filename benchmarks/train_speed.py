"""End-to-end training speed: agent decisions per second, rollout plus PPO update.

    .venv/bin/python benchmarks/train_speed.py --game briscola [--updates 10]
    .venv/bin/python benchmarks/train_speed.py --game briscola --updates 3 --engines both
    .venv/bin/python benchmarks/train_speed.py --config configs/cavalloicera.yaml

Runs the training loop's iteration (``training.ppo.iteration``: league draw,
lockstep rollout, advantages, PPO update) for a few updates after a warm-up
one, with the config's league mix (so bot opponents cost what they cost in
training); ``--game G`` takes ``configs/G.yaml`` (Cavalloìcera:
``configs/cavalloicera.yaml``).  It reports:

- decisions/s: every decision taken in the training games (every seat,
  capture-building sub-steps included) per second of rollout + update wall
  time; learner samples/s: the decisions that are trained on;
- decisions per CPU second of this process (steadier than wall time on a
  loaded machine; prior worker processes are not counted);
- the share of that time spent in the engine (legal actions, stepping), the
  encoder (feature updates, observation gathers, masks), inference (batched
  forward passes and sampling), the fixed bots, and the PPO update.

On the compiled core (``cavallo_env.core.enabled()``) the rollout plays on
the core's tables (observations, masks, the prior and the fixed bots from C)
and no prior workers are started; ``CAVALLO_CORE=python`` measures the Python
engines (the same run, bit for bit).  ``--engines both`` runs the two in one
process, one update of each in turn from the same seed (so the machine's load
falls on both alike), and prints the core's speed-up: the figure to quote on
a shared machine.

Nothing is written to disk.  The machine's other load matters: the numbers
are wall-clock.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ENGINES = ("auto", "core", "python", "both")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default=None, choices=["cavalloicera", "briscola", "scopa"],
                    help="the game's training config (configs/<game>.yaml; Cavalloìcera: configs/cavalloicera.yaml)")
    ap.add_argument("--config", default=None, help="a training config (default: the --game's, else configs/cavalloicera.yaml)")
    ap.add_argument("--updates", type=int, default=10, help="timed updates (after one warm-up update)")
    ap.add_argument("--engines", default="auto", choices=ENGINES,
                    help="auto: as CAVALLO_CORE says; core or python: that one; both: the two in turn, and the ratio")
    ap.add_argument("--games", type=int, default=None, help="override the config's games per rollout")
    ap.add_argument("--threads", type=int, default=None, help="override the config's torch threads")
    ap.add_argument("--device", default=None, help="override the config's device (auto, cpu, cuda)")
    ap.add_argument("--prior-workers", type=int, default=None,
                    help="override the config's prior_workers (extra processes for the heuristic prior)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    if args.updates < 1:
        ap.error(f"--updates must be at least 1, got {args.updates}")

    import torch

    from training.config import load

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
    engines = {"auto": [None], "both": ["python", "core"]}.get(args.engines, [args.engines])
    benches = [Bench(cfg, engine, args.device) for engine in engines]
    try:
        for _ in range(args.updates):  # one update of each engine in turn: the same machine state for both
            for b in benches:
                b.update()
    finally:
        for b in benches:
            b.close()
    outs = [b.result(args.config, args.updates) for b in benches]
    if len(outs) == 2:
        ratio = outs[1]["decisions_per_s"] / outs[0]["decisions_per_s"]
        cpu_ratio = outs[1]["decisions_per_cpu_s"] / outs[0]["decisions_per_cpu_s"]
        if args.json:
            print(json.dumps({"python": outs[0], "core": outs[1], "core_speedup": ratio,
                              "core_speedup_cpu": cpu_ratio}, indent=2))
            return 0
        for out in outs:
            report(out, cfg)
        print(f"core / python decisions/s: {ratio:.2f}x (one process, updates in turn; "
              f"per CPU second of this process: {cpu_ratio:.2f}x)")
        return 0
    if args.json:
        print(json.dumps(outs[0], indent=2))
    else:
        report(outs[0], cfg)
    return 0


class Bench:
    """One engine's training run: set up, warmed up by one update, then timed update by update."""

    def __init__(self, cfg, engine: str | None, device):
        from training.rollout import Timers, start_prior_workers
        from training.run import Run

        self.engine = engine
        with self.switched():
            self.run = Run.start(cfg, Path(tempfile.mkdtemp(prefix="train-speed-")), device)
            self.run.league.add(self.run.model, 0)  # so that the snapshot share of the mix is played too
            self.workers = start_prior_workers(cfg)
            self.core = _core_enabled()
        self.n_workers = self.workers.n if self.workers is not None else 0
        self.timers = Timers()
        self.wall = self.cpu = 0.0
        self.decisions = self.samples = 0
        self._one(Timers())  # warm-up

    def switched(self):
        """``with self.switched():`` runs with ``CAVALLO_CORE`` set to this bench's engine (None: as it is)."""
        return switched(self.engine)

    def _one(self, timers):
        from training.ppo import iteration

        with self.switched():
            return iteration(self.run, timers, self.workers)[0]

    def update(self) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        stats = self._one(self.timers)
        self.wall += time.perf_counter() - t0
        self.cpu += time.process_time() - c0
        self.decisions += stats.decisions
        self.samples += stats.learner_decisions

    def close(self) -> None:
        if self.workers is not None:
            self.workers.close()
            self.workers = None

    def result(self, config: str, updates: int) -> dict:
        from training.rollout import PHASES

        cfg, wall = self.run.cfg, self.wall
        return {
            "config": config, "game": cfg.game, "device": str(self.run.device), "threads": cfg.threads,
            "core": self.core, "prior_workers": self.n_workers,
            "games_per_rollout": cfg.games,
            "updates": updates, "wall_s": wall, "cpu_s": self.cpu, "decisions": self.decisions, "learner_samples": self.samples,
            "decisions_per_s": self.decisions / wall, "learner_samples_per_s": self.samples / wall,
            "decisions_per_cpu_s": self.decisions / self.cpu,
            "shares": {p: self.timers[p] / wall for p in PHASES},
            "other_share": max(0.0, 1 - sum(self.timers.values()) / wall),
            "mix": cfg.league.mix,
        }


def _core_enabled() -> bool:
    from cavallo_env import core

    return core.enabled()


@contextmanager
def switched(engine: str | None):
    """Sets ``CAVALLO_CORE`` to ``engine`` for the block (None: leaves it as it is), then puts it back."""
    old = os.environ.get("CAVALLO_CORE")
    if engine is not None:
        os.environ["CAVALLO_CORE"] = engine
    try:
        yield
    finally:
        if engine is not None:
            if old is None:
                os.environ.pop("CAVALLO_CORE", None)
            else:
                os.environ["CAVALLO_CORE"] = old


def report(out: dict, cfg) -> None:
    from training.rollout import PHASES

    print(f"train_speed: {cfg.game}, {out['config']}, {out['device']}, {cfg.threads} torch thread(s), "
          f"{'compiled core' if out['core'] else 'Python engines'}, {out['prior_workers']} prior worker(s), "
          f"{cfg.games} games per rollout, "
          f"{out['updates']} updates in {out['wall_s']:.1f} s")
    print(f"  decisions/s (all seats, rollout + update)   {out['decisions_per_s']:10.0f}")
    print(f"  learner samples/s (trained on)              {out['learner_samples_per_s']:10.0f}")
    workers = f" (its {out['prior_workers']} prior worker(s) not counted)" if out["prior_workers"] else ""
    print(f"  decisions per CPU second of this process     {out['decisions_per_cpu_s']:10.0f}{workers}")
    print("  share of wall time:")
    for p in PHASES:
        print(f"    {p:<10} {100 * out['shares'][p]:5.1f}%")
    print(f"    {'other':<10} {100 * out['other_share']:5.1f}%  (advantages, batching, league draw)")
    print(f"  league mix: {cfg.league.mix}")


if __name__ == "__main__":
    sys.exit(main())
