"""``cavallo train --backend rllib``: self-play PPO of a game on Ray RLlib, into project checkpoints.

    cavallo train --backend rllib --config configs/rllib/briscola.yaml [--address auto]

1. Ray: ``ray.init(address)`` -- a Ray started for the run on this machine,
   or a running cluster (``--address auto`` / ``rllib.address``, or
   ``$RAY_ADDRESS``, which ``ray job submit`` sets); docs/rllib.md.
2. ``ppo_config(cfg)``: RLlib's ``PPOConfig`` on the new API stack: the env
   adapter (``training.rllib.env``) registered as ``cavallo_league``, the
   modules ``main`` + snapshot slots (``MaskedPolicyModule``, one per team
   role), the team-aware mapping and the league callback
   (``training.rllib.selfplay``), the project's PPO settings in RLlib's names.
3. Loop: ``algo.train()`` (env runners sample ``train_batch_size`` env steps,
   the learner runs ``epochs`` of minibatch PPO, the weights go back to the
   env runners) until ``iterations`` or ``time_limit_s``; after each iteration
   a row of ``metrics.csv`` (the project's columns, ``update`` = iteration);
   every ``checkpoint_every`` iterations ``checkpoints/last`` and every
   ``eval.every`` iterations ``checkpoints/update-NNNNN`` plus the duplicate
   evaluation against ``eval.opponents`` (the project's
   ``training.run.evaluate_checkpoint``), and ``learning_curve.png``.
4. At the end: the last checkpoint, its evaluation and (``save_algorithm``)
   RLlib's own algorithm checkpoint in ``run_dir/rllib``.

The run directory is the project's: ``runs/<name>-<timestamp>/`` with
``config.yaml`` (the RLlib config), ``metrics.csv``, ``checkpoints/``.
There is no ``--resume`` for this backend (RLlib's ``Algorithm.from_checkpoint``
on ``run_dir/rllib`` restores the algorithm itself).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from tqdm import tqdm

from cavallo_env import games

from . import require_ray
from ..config import dump
from .config import RLlibTrainConfig

ENV_RUNNERS = "env_runners"
LEARNERS = "learners"


def ppo_config(cfg: RLlibTrainConfig, *, env_runners: int | None = None, envs_per_env_runner: int | None = None):
    """RLlib's ``PPOConfig`` for ``cfg`` (see the module doc); the counts may be overridden."""
    require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig  # lazy: ray, the optional rllib extra
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # lazy: ray, the optional rllib extra
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # lazy: ray, the optional rllib extra

    from .env import ENV_NAME, register  # lazy: numpy, gymnasium and pettingzoo, kept out of this light module
    from .module import MaskedPolicyModule, model_config_of  # lazy: ray (RLlib's TorchRLModule) and torch
    from .selfplay import MAIN, SelfPlayLeague, agent_to_module, module_ids  # lazy: ray (RLlib callbacks)

    register()
    r, p = cfg.rllib, cfg.ppo
    slots = cfg.league.max_snapshots if cfg.league.mix.get("snapshots", 0) > 0 else 0
    modules = module_ids(slots)
    env_config = {"game": cfg.game, "game_options": dict(cfg.game_options), "reward": cfg.reward,
                  "reward_scale": cfg.reward_scale, "seed": cfg.seed,
                  "league": {"mix": dict(cfg.league.mix), "slots": slots, "snapshot_every": cfg.league.snapshot_every}}
    learners = max(1, r.learners)
    lr = p.lr
    if p.anneal_lr:  # linear decay to 0 over the planned env steps, as the project's trainer does over its updates
        lr = [[0, p.lr], [cfg.iterations * r.train_batch_size, 0.0]]
    mc = model_config_of(cfg.model)
    n_runners = r.env_runners if env_runners is None else env_runners
    n_envs = r.envs_per_env_runner if envs_per_env_runner is None else envs_per_env_runner
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=n_runners, num_envs_per_env_runner=n_envs,
                     num_cpus_per_env_runner=r.cpus_per_env_runner,
                     rollout_fragment_length=r.rollout_fragment_length or "auto",
                     sample_timeout_s=r.sample_timeout_s, batch_mode="truncate_episodes")
        .learners(num_learners=r.learners, num_gpus_per_learner=r.gpus_per_learner)
        .training(lr=lr, gamma=p.gamma, lambda_=p.gae_lambda, num_epochs=p.epochs,
                  minibatch_size=p.minibatch_size, train_batch_size_per_learner=r.train_batch_size // learners,
                  clip_param=p.clip,
                  vf_loss_coeff=0.5 * p.vf_coef,  # the project's value loss is 0.5 * MSE, RLlib's the MSE
                  vf_clip_param=float("inf"),  # the project does not clip the value loss
                  entropy_coeff=p.ent_coef, grad_clip=p.max_grad_norm, grad_clip_by="global_norm",
                  use_kl_loss=False, kl_coeff=0.0)
        .multi_agent(policies=set(modules), policy_mapping_fn=agent_to_module, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            m: RLModuleSpec(module_class=MaskedPolicyModule, model_config=dict(mc)) for m in modules}))
        .callbacks(SelfPlayLeague)
        .debugging(seed=cfg.seed, log_level="WARN")
    )


def init_ray(address: str | None = None, *, quiet: bool = True) -> bool:
    """``ray.init`` unless Ray is up already; ``address``: None ($RAY_ADDRESS or a new local Ray),
    ``"auto"`` or a cluster address.  Returns whether this call started (or joined) Ray."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    kwargs = {"include_dashboard": False} if address is None and not os.environ.get("RAY_ADDRESS") else {}
    ray.init(address=address, logging_level=logging.WARNING if quiet else logging.INFO,
             configure_logging=True, **kwargs)
    return True


def iteration_counts(result: dict) -> tuple[float, float, float]:
    """``(decisions, learner decisions, env steps)`` of one iteration: every action applied in the
    games (the bots' included: RLlib's env steps scaled by all decisions / RLlib-stepped decisions of
    the episodes that ended in it), those of ``main`` (trained on), and RLlib's env steps."""
    from .selfplay import MAIN  # lazy: ray (RLlib callbacks)

    er = result.get(ENV_RUNNERS, {})
    env_steps = float(er.get("num_env_steps_sampled", 0) or 0)
    main_steps = float((er.get("num_module_steps_sampled") or {}).get(MAIN, 0) or 0)
    dec, bots = float(er.get("decisions", 0) or 0), float(er.get("bot_decisions", 0) or 0)
    decisions = env_steps * (dec / (dec - bots) if dec > bots else 1.0)
    return decisions, main_steps, env_steps


def result_row(result: dict, iteration: int, counters: dict, elapsed: float) -> dict:
    """The ``metrics.csv`` row of one RLlib iteration (the project's column names)."""
    from .selfplay import MAIN  # lazy: ray (RLlib callbacks)

    er = result.get(ENV_RUNNERS, {})
    lr_ = result.get(LEARNERS, {}).get(MAIN, {})
    decisions, main_steps, _ = iteration_counts(result)
    row = {"update": iteration, "decisions": counters["decisions"], "learner_decisions": counters["learner_decisions"],
           "wall_s": counters["wall_s"], "decisions_per_s": decisions / elapsed if elapsed else 0.0,
           "samples_per_s": main_steps / elapsed if elapsed else 0.0, "batch": main_steps,
           "lr": lr_.get("default_optimizer_learning_rate"), "loss_policy": lr_.get("policy_loss"),
           "loss_value": lr_.get("vf_loss"), "entropy": lr_.get("entropy"),
           "explained_var": lr_.get("vf_explained_var")}
    for kind in ("greedy", "heuristic", "snapshots"):
        if f"score_vs_{kind}" in er:
            row[f"rollout_score_{kind}"] = er[f"score_vs_{kind}"]
            row[f"rollout_diff_{kind}"] = er.get(f"diff_vs_{kind}")
    row["league_snapshots"] = result.get("league_snapshots_taken")
    return {k: _plain(v) for k, v in row.items()}


def _plain(v):
    """A numpy scalar as a Python number; NaN (a metric without data this iteration) as None."""
    if v is None or isinstance(v, str):
        return v
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else (int(f) if isinstance(v, int) else f)


def start_from_checkpoint(algo, cfg: RLlibTrainConfig) -> None:
    """Load ``cfg.init_from`` (a project checkpoint of the same game and network) into ``main`` on
    the learner and every env runner, and into every snapshot slot."""
    from ..checkpoint import CheckpointError  # lazy: torch
    from .convert import ConversionError, module_state_from_checkpoint, policy_state  # lazy: torch
    from .selfplay import MAIN, set_snapshots  # lazy: ray (RLlib callbacks)

    state, meta = module_state_from_checkpoint(cfg.init_from)
    if meta.get("game", games.DEFAULT_GAME) != cfg.game:
        raise CheckpointError(f"{cfg.init_from}: a checkpoint of {meta.get('game', games.DEFAULT_GAME)}, "
                              f"but the config trains {cfg.game}")
    theirs = (meta.get("config") or {}).get("model") or {}
    for key in ("hidden", "activation", "prior"):  # shapes alone miss e.g. the activation
        mine = getattr(cfg.model, key)
        if key in theirs and theirs[key] != (list(mine) if isinstance(mine, tuple) else mine):
            raise ConversionError(f"init_from {cfg.init_from}: its model.{key} is {theirs[key]!r}, the config's "
                                  f"{mine!r}: the network must be the same")
    try:
        policy_state(state, cfg.model.__dict__, cfg.game)  # the same network, or a clear error
    except ConversionError as e:
        raise ConversionError(f"init_from {cfg.init_from}: {e}") from None
    algo.learner_group.set_weights({MAIN: state})

    def put(env_runner, state=state):
        if env_runner.module is not None:
            env_runner.module[MAIN].set_state(state)

    algo.env_runner_group.foreach_env_runner(put, local_env_runner=True)
    slots = [m for m in algo.config.policies if m != MAIN]
    set_snapshots(algo, sorted(slots))


def save_main(algo, path, cfg, counters, evals=None):
    from .convert import save_checkpoint  # lazy: torch
    from .selfplay import main_weights  # lazy: ray (RLlib callbacks)

    return save_checkpoint(main_weights(algo), path, cfg, step=counters["update"], counters=counters, evals=evals)


def build(cfg: RLlibTrainConfig, run_dir: Path, ray, log):
    """The RLlib PPO algorithm of ``cfg`` (from ``init_from`` where the config names one)."""
    t0 = time.perf_counter()
    algo = ppo_config(cfg).build_algo()
    if cfg.init_from:
        start_from_checkpoint(algo, cfg)
        log(f"rllib: main and the snapshot slots start from {cfg.init_from}")
    res = ray.cluster_resources()
    log(f"rllib: {cfg.game} on Ray ({int(res.get('CPU', 0))} CPUs, {len(ray.nodes())} node(s)), "
        f"{cfg.rllib.env_runners} env runner(s) x {cfg.rllib.envs_per_env_runner} envs, built in "
        f"{time.perf_counter() - t0:.0f}s; run {run_dir}")
    return algo


def iterate(algo, counters: dict) -> dict:
    """One RLlib iteration: ``counters`` advanced; its ``metrics.csv`` row."""
    t_it = time.perf_counter()
    result = algo.train()
    elapsed = time.perf_counter() - t_it
    it = counters["update"] = int(result.get("training_iteration", counters["update"] + 1))
    decisions, main_steps, env_steps = iteration_counts(result)
    counters["decisions"] += int(decisions)
    counters["learner_decisions"] += int(main_steps)
    counters["env_steps"] += int(env_steps)
    counters["wall_s"] += elapsed
    return result_row(result, it, counters, elapsed)


def evaluate_iteration(algo, cfg: RLlibTrainConfig, run_dir: Path, counters: dict, row: dict, log) -> list[dict]:
    """Save main as ``checkpoints/update-NNNNN``, play the duplicate evaluation, add it to ``row``."""
    from ..logs import label  # lazy: numpy and torch (via rollout)
    from ..run import evaluate_checkpoint  # lazy: torch

    it, t_ev = counters["update"], time.perf_counter()
    path = run_dir / "checkpoints" / f"update-{it:05d}"
    save_main(algo, path, cfg, counters)
    results = evaluate_checkpoint(path.with_suffix(".json"), cfg)
    for r in results:
        r.update(update=it, learner_decisions=counters["learner_decisions"], decisions=counters["decisions"])
        row[f"eval_{label(r['opponent'])}_score"] = r["score"]
        row[f"eval_{label(r['opponent'])}_diff"] = r["mean_diff"]
    save_main(algo, path, cfg, counters, evals=results)
    log(f"iteration {it}: duplicate eval ({cfg.eval.deals} deals, {time.perf_counter() - t_ev:.0f}s): "
        + ", ".join(f"{r['opponent']} {100 * r['score']:.1f}% ({r['mean_diff']:+.2f} pts)" for r in results))
    return results


def train(cfg: RLlibTrainConfig, run_dir: Path, *, address: str | None = None, progress: bool = True,
          log=print, stop_after: int | None = None) -> dict:
    """Train ``cfg`` on RLlib into ``run_dir``; returns the project's summary dict (``cavallo train``)."""
    ray = require_ray()
    import torch  # lazy: torch, kept out of this light module

    from ..logs import RunLog, plot_learning_curve  # lazy: numpy and torch (via rollout)

    torch.set_num_threads(cfg.threads)
    run_dir = Path(run_dir)
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(dump(cfg), encoding="utf-8")
    started = init_ray(address if address is not None else cfg.rllib.address)
    counters = {"update": 0, "decisions": 0, "learner_decisions": 0, "env_steps": 0, "wall_s": 0.0}
    evals: list = []
    algo = None
    runlog = RunLog(run_dir, cfg)
    bar = None
    try:
        algo = build(cfg, run_dir, ray, log)
        if progress:
            bar = tqdm(total=cfg.iterations, unit="it", desc=f"rllib: {cfg.game}", dynamic_ncols=True)
        done = 0
        while True:
            row = iterate(algo, counters)
            it = counters["update"]
            done += 1
            last = (it >= cfg.iterations or (cfg.time_limit_s and counters["wall_s"] >= cfg.time_limit_s)
                    or (stop_after is not None and done >= stop_after))
            if cfg.eval.every and it % cfg.eval.every == 0 or last:
                evals.extend(evaluate_iteration(algo, cfg, run_dir, counters, row, log))
            runlog.write(row)
            if it % cfg.checkpoint_every == 0 or last:
                save_main(algo, run_dir / "checkpoints" / "last", cfg, counters, evals)
            if evals and (last or cfg.eval.every and it % cfg.eval.every == 0):
                plot_learning_curve(run_dir, evals)
            if bar is not None:
                bar.set_postfix({"dec/s": f"{row['decisions_per_s']:.0f}"}, refresh=False)
                bar.update(1)
            if last:
                break
        if cfg.rllib.save_algorithm:
            algo.save_to_path(str((run_dir / "rllib").resolve()))
    finally:
        if bar is not None:
            bar.close()
        runlog.close()
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
    return {"run_dir": str(run_dir), "update": counters["update"], "decisions": counters["decisions"],
            "learner_decisions": counters["learner_decisions"], "wall_s": counters["wall_s"], "evals": evals}
