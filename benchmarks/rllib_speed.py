"""Training speed on Ray RLlib against the project's own trainer: the same game, network and league.

    .venv/bin/python benchmarks/rllib_speed.py --game briscola [--iterations 5] [--runners 1 2]

For ``configs/rllib/<game>.yaml`` it times, in one session on this machine:

- the project's trainer (``training.ppo.iteration``: lockstep rollout + PPO
  update) on the config's *project twin* (``training.rllib.config.project_twin``:
  the same network, PPO settings and league mix, no warm start), with as
  many deals per update as RLlib's ``train_batch_size`` holds;
- RLlib with 1 and 2 env runners (``--runners``; 0 = sampling in the driver)
  of ``envs_per_env_runner`` games each, the learner in the driver process
  (``learners: 0``).

The unit is the same for both: **decisions/s** = every decision taken in the
training games (every seat, the fixed bots' and capture-building steps
included) per second of wall time over whole iterations (sampling + update +
weight sync), after one warm-up iteration; and **learner samples/s** = the
decisions of the trained network (``main``) per second.  For RLlib the
iteration's decisions are its env steps (the decisions of ``main`` and the
snapshots) times the ratio of all decisions to those in the episodes that
ended in it (the bots play inside the env).  It also reports the share of an
RLlib iteration spent sampling and in the learner update, which says which
side a cluster should grow.  Results go to ``benchmarks/results/rllib/``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def decisions_per_deal(game: str, options: dict, deals: int = 30) -> float:
    """Mean decisions of an episode of ``game`` under random play (every seat, every action)."""
    from cavallo_env import games

    learning = games.get(game).learning()
    n = 0
    for d in range(deals):
        table = learning.table(learning.deal(d, **options))
        rng = random.Random(d)
        while not table.done:
            table.step(rng.choice(table.legal_actions()))
            n += 1
    return n / deals


def twin_games(cfg, per_deal: float) -> int:
    """Deals per project update holding about RLlib's ``train_batch_size`` env steps: in an episode
    against a fixed bot RLlib steps only the learner's team (about half the decisions)."""
    mix = {k: v for k, v in cfg.league.mix.items() if v > 0}
    total = sum(mix.values())
    bots = sum(v for k, v in mix.items() if k in ("greedy", "heuristic")) / total
    steps_per_deal = per_deal * (1 - bots) + per_deal / 2 * bots
    return max(2, round(cfg.rllib.train_batch_size / steps_per_deal))


def bench_project(cfg, games_per_rollout: int, iterations: int) -> dict:
    import torch

    from training.ppo import iteration
    from training.rllib.config import project_twin
    from training.rollout import Timers
    from training.run import Run

    twin = project_twin(cfg, games_per_rollout)
    torch.set_num_threads(twin.threads)
    run = Run.start(twin, Path(tempfile.mkdtemp(prefix="rllib-speed-project-")), "cpu")
    run.league.add(run.model, 0)  # so that the snapshot share of the mix is played too
    iteration(run, Timers())  # warm-up
    timers = Timers()
    decisions = samples = 0
    t0 = time.perf_counter()
    for _ in range(iterations):
        stats = iteration(run, timers)[0]
        decisions += stats.decisions
        samples += stats.learner_decisions
    wall = time.perf_counter() - t0
    return {"backend": "project", "games_per_rollout": games_per_rollout, "iterations": iterations, "wall_s": wall,
            "decisions": decisions, "learner_samples": samples, "decisions_per_s": decisions / wall,
            "learner_samples_per_s": samples / wall, "update_share": timers["update"] / wall}


def bench_rllib(cfg, runners: int, iterations: int) -> dict:
    import torch
    import ray.rllib.algorithms.ppo.ppo as ppo_module

    from training.rllib.train import iteration_counts, ppo_config

    torch.set_num_threads(cfg.threads)
    t0 = time.perf_counter()
    algo = ppo_config(cfg, env_runners=runners).build_algo()
    build_s = time.perf_counter() - t0
    spent = {"sampling": 0.0, "learner": 0.0}

    def timed(fn, key):  # wall time of PPO's two phases (RLlib's own timers are smoothed)
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.perf_counter() - t
        return wrapper

    sample_fn = ppo_module.synchronous_parallel_sample
    ppo_module.synchronous_parallel_sample = timed(sample_fn, "sampling")
    algo.learner_group.update = timed(algo.learner_group.update, "learner")
    try:
        algo.train()  # warm-up
        spent.update(sampling=0.0, learner=0.0)
        env_steps = main = decisions = 0.0
        t0 = time.perf_counter()
        for _ in range(iterations):
            d, m, e = iteration_counts(algo.train())
            decisions += d
            main += m
            env_steps += e
        wall = time.perf_counter() - t0
    finally:
        ppo_module.synchronous_parallel_sample = sample_fn
        algo.stop()
    return {"backend": "rllib", "env_runners": runners, "envs_per_env_runner": cfg.rllib.envs_per_env_runner,
            "rollout_fragment_length": cfg.rllib.rollout_fragment_length,
            "train_batch_size": cfg.rllib.train_batch_size, "iterations": iterations, "build_s": build_s,
            "wall_s": wall, "env_steps": env_steps, "decisions": decisions, "learner_samples": main,
            "decisions_per_s": decisions / wall, "env_steps_per_s": env_steps / wall,
            "learner_samples_per_s": main / wall, "sampling_share": spent["sampling"] / wall,
            "learner_share": spent["learner"] / wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="briscola", choices=["cavalloicera", "briscola", "scopa"])
    ap.add_argument("--config", default=None, help="an RLlib config (default configs/rllib/<game>.yaml)")
    ap.add_argument("--iterations", type=int, default=5, help="timed iterations of each (after one warm-up)")
    ap.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="env runner counts to time")
    ap.add_argument("--envs", type=int, default=None, help="override envs_per_env_runner")
    ap.add_argument("--batch", type=int, default=None, help="override train_batch_size")
    ap.add_argument("--fragment", type=int, default=None, help="override rollout_fragment_length")
    ap.add_argument("--no-project", action="store_true", help="skip the project trainer")
    ap.add_argument("--out", default=None, help="JSON results (default benchmarks/results/rllib/<game>_speed.json)")
    args = ap.parse_args(argv)

    from training.rllib.config import load
    from training.rllib.train import init_ray

    cfg = load(args.config or ROOT / "configs" / "rllib" / f"{args.game}.yaml")
    if args.envs:
        cfg.rllib.envs_per_env_runner = args.envs
    if args.batch:
        cfg.rllib.train_batch_size = args.batch
    if args.fragment is not None:
        cfg.rllib.rollout_fragment_length = args.fragment
    import os

    load_before = os.getloadavg()
    per_deal = decisions_per_deal(cfg.game, cfg.game_options)
    games = twin_games(cfg, per_deal)
    rows = []
    if not args.no_project:
        rows.append(bench_project(cfg, games, args.iterations))
        print(json.dumps(rows[-1]), flush=True)
    init_ray(None)
    import ray

    cpus = int(ray.cluster_resources().get("CPU", 0))
    for n in args.runners:
        rows.append(bench_rllib(cfg, n, args.iterations))
        print(json.dumps(rows[-1]), flush=True)
    ray.shutdown()
    import torch

    out = {"game": cfg.game, "config": str(args.config or f"configs/rllib/{args.game}.yaml"),
           "model": cfg.model.hidden, "decisions_per_deal_random": per_deal, "cpus": cpus,
           "torch": torch.__version__, "ray": ray.__version__, "mix": cfg.league.mix,
           "loadavg_before": load_before, "loadavg_after": os.getloadavg(), "rows": rows}
    path = Path(args.out) if args.out else ROOT / "benchmarks" / "results" / "rllib" / f"{cfg.game}_speed.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"\n{cfg.game}: {cfg.model.hidden} relu, no prior; mix {cfg.league.mix}; {cpus} CPUs; "
          f"load average before {load_before[0]:.2f}, after {out['loadavg_after'][0]:.2f}")
    print(f"{'backend':<28}{'decisions/s':>12}{'learner samples/s':>19}{'sampling':>10}{'learner':>9}")
    for r in rows:
        name = "project trainer" if r["backend"] == "project" else \
            f"rllib, {r['env_runners']} runner(s) x {r['envs_per_env_runner']} envs"
        samp = "" if r["backend"] == "project" else f"{100 * r['sampling_share']:.0f}%"
        learn = f"{100 * (r.get('update_share') or r.get('learner_share')):.0f}%"
        print(f"{name:<28}{r['decisions_per_s']:>12.0f}{r['learner_samples_per_s']:>19.0f}{samp:>10}{learn:>9}")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
