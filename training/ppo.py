"""PPO self-play training of a team policy, top to bottom (in the spirit of CleanRL's ppo.py).

    cavallo train --config configs/<game>.yaml [--resume RUN_DIR] [--device auto]

1. Setup (``training.run.Run``): config, run directory
   (``runs/<name>-<timestamp>/``), seeds, device, the network for the
   config's game, Adam, the league.
2. Warm start (``warm_start``, optional): imitate a teacher bot
   (``training.warmstart``), then evaluate the imitation.
3. Loop over updates:
   a. learning-rate schedule; draw the opponents of this rollout's games from
      the league mix (each twice with paired advantages);
   b. rollout (``training.rollout.play_rollout``): the games in lockstep,
      batched masked sampling, the learner's decisions into a buffer;
   c. advantages (``training.advantages``: ``gae`` or ``paired``) and the PPO
      update: clipped surrogate on the masked policy (the same mask as when
      acting), value loss, entropy bonus, a few epochs of minibatches;
   d. league bookkeeping: scores against each opponent, snapshots;
   e. logs (``training.logs``: CSV, TensorBoard, progress bar), checkpoint,
      and every ``eval.every`` updates a duplicate evaluation against the
      fixed bots and a fresh ``learning_curve.png`` (with ``eval.untrained``, a
      run without a warm start evaluates its untrained network first, as update 0).
4. ``--resume`` reloads the last checkpoint: weights, optimizer, league,
   every generator and the counters, and continues where the run stopped,
   bit for bit as if it had not stopped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from cavallo_env import games as game_registry

from . import advantages, warmstart
from .config import ConfigError, PPOSection, TrainConfig
from .interrupt import Guard
from .logs import Progress, RunLog, label, plot_learning_curve
from .model import PolicyNet
from .rollout import PHASES, PriorWorkers, Timers, play_rollout, start_prior_workers
from .run import Run

Batch = advantages.Batch

# ---------------------------------------------------------------- the update


@dataclass
class UpdateStats:
    loss_policy: float
    loss_value: float
    entropy: float
    approx_kl: float
    clipfrac: float
    explained_var: float
    epochs_run: int


def ppo_update(model: PolicyNet, opt: torch.optim.Optimizer, batch: Batch, p: PPOSection,
               gen: torch.Generator, device) -> UpdateStats:
    """A few epochs of clipped PPO over the batch, masked logits throughout."""
    data = _on_device(batch, device)
    m = len(batch)
    n_mb = max(1, m // p.minibatch_size)
    sums = {"lp": 0.0, "lv": 0.0, "ent": 0.0, "kl": 0.0, "cf": 0.0}
    steps = 0
    epochs_run = 0
    for _ in range(p.epochs):
        epochs_run += 1
        kls = []
        for idx in torch.tensor_split(torch.randperm(m, generator=gen), n_mb):
            obs, mask, actions, old_logp, adv, ret, prior = _rows(data, idx.to(device))
            logits, value = model(obs, mask, prior)
            logp_all = torch.log_softmax(logits, dim=-1)
            new_logp = logp_all.gather(1, actions[:, None]).squeeze(1)
            ent = -torch.where(mask, logp_all.exp() * logp_all, torch.zeros_like(logp_all)).sum(-1).mean()
            log_ratio = new_logp - old_logp
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfrac = ((ratio - 1.0).abs() > p.clip).float().mean()
            if p.norm_adv and len(idx) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            loss_pi = torch.max(-adv * ratio, -adv * ratio.clamp(1 - p.clip, 1 + p.clip)).mean()
            loss_v = 0.5 * F.mse_loss(value, ret)
            loss = loss_pi + p.vf_coef * loss_v - p.ent_coef * ent
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), p.max_grad_norm, foreach=True)
            opt.step()
            sums["lp"] += loss_pi.item()
            sums["lv"] += loss_v.item()
            sums["ent"] += ent.item()
            sums["kl"] += approx_kl.item()
            sums["cf"] += clipfrac.item()
            kls.append(approx_kl.item())
            steps += 1
        if p.target_kl is not None and float(np.mean(kls)) > p.target_kl:
            break
    var = float(np.var(batch.returns))
    ev = float("nan") if var == 0 else 1.0 - float(np.var(batch.returns - batch.values)) / var
    return UpdateStats(sums["lp"] / steps, sums["lv"] / steps, sums["ent"] / steps, sums["kl"] / steps,
                       sums["cf"] / steps, ev, epochs_run)


# what ``ppo_update`` reads of the batch, in the order ``_rows`` hands it out
_FIELDS = ("obs", "mask", "actions", "logp", "advantages", "returns", "prior")


def _on_device(batch: Batch, device) -> list:
    """The batch's arrays of ``_FIELDS`` as tensors on ``device`` (None: no prior)."""
    arrays = [getattr(batch, k) for k in _FIELDS]
    return [None if a is None else torch.from_numpy(a).to(device) for a in arrays]


def _rows(data: list, idx: torch.Tensor) -> list:
    """The minibatch ``idx`` of every tensor of ``data`` (``index_select``: the rows copied as
    ``t[idx]`` does, several times faster on the CPU)."""
    return [None if t is None else torch.index_select(t, 0, idx) for t in data]


def iteration(run: Run, timers: Timers, workers: PriorWorkers | None = None) -> tuple:
    """One PPO iteration: draw the opponents, play the rollout, compute the advantages,
    update the network and fold the results into the league; ``(stats, batch, UpdateStats)``."""
    cfg, league = run.cfg, run.league
    paired = cfg.ppo.advantage == "paired"
    if paired:
        opponents = [o for o in league.draw_opponents(cfg.games // 2, run.rng) for _ in (0, 1)]
    else:
        opponents = league.draw_opponents(cfg.games, run.rng)
    run.model.eval()
    buf, stats = play_rollout(run.model, opponents, league.nets(), run.learning, rng=run.rng, gen=run.gen,
                              device=run.device, game_options=cfg.game_options, reward=cfg.reward,
                              reward_scale=cfg.reward_scale, timers=timers, prior_workers=workers, paired=paired)
    batch = advantages.batch(buf.trajectories(), cfg.ppo.advantage, cfg.ppo.gamma, cfg.ppo.gae_lambda)
    run.model.train()
    with timers.phase("update"):
        us = ppo_update(run.model, run.opt, batch, cfg.ppo, run.gen, run.device)
    league.record(stats.results)
    return stats, batch, us


# ---------------------------------------------------------------- the warm start


def warm_start(run: Run, *, progress: bool = True, log=print) -> None:
    """Imitate ``pretrain.teacher`` on ``pretrain.games`` deals (``training.warmstart``),
    sharpen the logits, anchor the league with the imitation and evaluate it."""

    cfg, p = run.cfg, run.cfg.pretrain
    t0 = time.perf_counter()
    run.save()  # so that --resume works during the warm start too
    teacher_dir = Path(p.cache) if p.cache else run.run_dir / "teacher"
    log(f"warm start: {p.games} deals of {p.teacher} in every seat (recorded in {teacher_dir}, reused on --resume)")
    data = warmstart.teacher_games(run.learning, p.games, teacher=p.teacher, rng=run.rng, reward=cfg.reward,
                         reward_scale=cfg.reward_scale, prior=cfg.model.prior, jobs=p.jobs, progress=progress,
                         soft=p.soft, cache_dir=teacher_dir, options=cfg.game_options)
    t1 = time.perf_counter()
    log(f"warm start: {len(data['actions'])} decisions recorded in {t1 - t0:.0f}s")
    bc = warmstart.imitate(run.model, data, epochs=p.epochs, lr=p.lr, minibatch_size=p.minibatch_size,
                         vf_coef=cfg.ppo.vf_coef, gen=run.gen, device=run.device, log=log, anneal_lr=p.anneal_lr)
    del data
    if p.sharpen != 1.0:
        run.model.sharpen(p.sharpen)
        log(f"warm start: policy logits x {p.sharpen:g} (same argmax, {'sharper' if p.sharpen > 1 else 'softer'} sampling)")
    run.counters["pretrain"] = dict(bc, games=p.games, play_s=t1 - t0, wall_s=time.perf_counter() - t0)
    run.counters["wall_s"] += time.perf_counter() - t0
    run.league.add(run.model, 0)  # the imitation policy anchors the league
    if cfg.eval.every:  # how good the warm start is, before any PPO
        results = run.evaluate(0)
        log("warm start: duplicate eval (" + ", ".join(f"{r['opponent']} {100 * r['score']:.1f}%" for r in results) + ")")
    run.save()


def start_eval(run: Run, log=print) -> None:
    """A run from scratch evaluates its untrained network as update 0: where its learning curve starts."""
    results = run.evaluate(0)
    log("untrained network: duplicate eval (" + ", ".join(f"{r['opponent']} {100 * r['score']:.1f}%" for r in results) + ")")
    run.save()


# ---------------------------------------------------------------- the run


def train(cfg: TrainConfig, run_dir: Path | None = None, *, resume: bool = False, device: str | None = None,
          progress: bool = True, stop_after: int | None = None, stop_at: int | None = None, log=print) -> dict:
    """Run (or resume) training; returns a summary dict.

    ``stop_after``: stop after that many updates in this call; ``stop_at``:
    stop once update ``stop_at`` is done (0: once the warm start is; a
    checkpoint is written; ``--resume`` continues from it).  Ctrl-C raises
    ``training.interrupt.Interrupted`` once the last finished update is saved.
    """
    # ---- 1. setup
    run = _open(cfg, run_dir, resume, device, log)
    counters = run.counters
    end = min(cfg.updates, counters["update"] + stop_after if stop_after is not None else cfg.updates,
              stop_at if stop_at is not None else cfg.updates)
    timers = Timers()
    with Guard(run) as guard:
        # ---- 2. warm start
        if cfg.pretrain.games and counters["update"] == 0 and "pretrain" not in counters:
            warm_start(run, progress=progress, log=log)
            guard.finished()
        elif cfg.eval.untrained and counters["update"] == 0 and not run.evals:
            start_eval(run, log)
            guard.finished()
        log(f"run {run.run_dir}  game {cfg.game}  device {run.device}  seed {cfg.seed}  updates {cfg.updates} x {cfg.games} games")
        bar = Progress(cfg, counters["update"], enabled=progress, log=log)
        runlog = RunLog(run.run_dir, cfg)
        workers = start_prior_workers(cfg)
        try:
            # ---- 3. the updates
            while counters["update"] < end:
                run_update(run, timers, workers, runlog, bar)
                guard.finished()
                if counters["update"] % cfg.checkpoint_every == 0 or counters["update"] in (end, cfg.updates):
                    guard.save()
                if _evaluates(cfg, counters["update"]):
                    plot_learning_curve(run.run_dir, run.evals)
        finally:
            if workers is not None:
                workers.close()
            bar.close()
            runlog.close()
    total = sum(timers.values()) or 1.0
    return {"run_dir": str(run.run_dir), "update": counters["update"], "decisions": counters["decisions"],
            "learner_decisions": counters["learner_decisions"], "wall_s": counters["wall_s"],
            "shares": {p: timers[p] / total for p in PHASES}, "evals": run.evals}


def _open(cfg: TrainConfig, run_dir, resume: bool, device, log) -> Run:
    """A new run, or the run in ``run_dir`` as its last checkpoint left it."""
    if not resume:
        return Run.start(cfg, run_dir, device)
    run = Run.resume(cfg, Path(run_dir), device)
    counters = run.counters
    log(f"resumed {run.run_dir} at update {counters['update']} ({counters['learner_decisions']} learner decisions)")
    if counters["update"] > cfg.updates:
        raise ConfigError(f"the run in {run.run_dir} is already at update {counters['update']}, "
                          f"past updates = {cfg.updates}")
    return run


def _evaluates(cfg: TrainConfig, update: int) -> bool:
    """Whether update ``update`` ends with a duplicate evaluation (every ``eval.every``, and the last)."""
    return bool(cfg.eval.every and update % cfg.eval.every == 0) or update == cfg.updates


def run_update(run: Run, timers: Timers, workers, runlog: RunLog, bar: Progress) -> None:
    """One update of the run: steps 3a-e of the module doc (the checkpoint aside)."""
    cfg, counters = run.cfg, run.counters
    n = counters["update"] + 1
    t_start = time.perf_counter()
    # ---- 3a. learning-rate schedule (the opponents are drawn in ``iteration``)
    lr = cfg.ppo.lr * (1.0 - (n - 1) / cfg.updates) if cfg.ppo.anneal_lr else cfg.ppo.lr
    for g in run.opt.param_groups:
        g["lr"] = lr
    # ---- 3b-c. rollout, advantages, PPO update
    phase0 = dict(timers)
    stats, batch, us = iteration(run, timers, workers)
    elapsed = time.perf_counter() - t_start
    # ---- 3d. league
    if n % cfg.league.snapshot_every == 0:
        run.league.add(run.model, n)
    counters["update"] = n
    counters["decisions"] += stats.decisions
    counters["learner_decisions"] += stats.learner_decisions
    counters["wall_s"] += elapsed
    # ---- 3e. logs and evaluation
    spent = {p: timers[p] - phase0[p] for p in PHASES}
    row = _row(n, counters, stats, batch, us, lr, elapsed, run.league, spent)
    if _evaluates(cfg, n):
        t0 = time.perf_counter()
        bar.evaluating(n)
        results = run.evaluate(n)
        for r in results:
            row[f"eval_{label(r['opponent'])}_score"] = r["score"]
            row[f"eval_{label(r['opponent'])}_diff"] = r["mean_diff"]
        bar.evaluated(n, results, time.perf_counter() - t0, game_registry.counted_as(cfg.game, cfg.game_options))
    runlog.write(row)
    bar.advanced(row, us.entropy)


def _row(update, counters, stats, batch, us, lr, elapsed, league, spent) -> dict:
    """The ``metrics.csv`` row of an update."""
    row = {"update": update, "decisions": counters["decisions"], "learner_decisions": counters["learner_decisions"],
           "wall_s": counters["wall_s"], "decisions_per_s": stats.decisions / elapsed,
           "samples_per_s": stats.learner_decisions / elapsed, "lr": lr, "batch": len(batch),
           "loss_policy": us.loss_policy, "loss_value": us.loss_value, "entropy": us.entropy,
           "approx_kl": us.approx_kl, "clipfrac": us.clipfrac, "explained_var": us.explained_var}
    snap_res = [r for k, rs in stats.results.items() if isinstance(k, tuple) for r in rs]
    fixed = [(k, rs) for k, rs in stats.results.items() if not isinstance(k, tuple)]
    for key, rs in fixed + [("snapshots", snap_res)]:
        if rs:
            row[f"rollout_score_{key}"] = float(np.mean([r[0] for r in rs]))
            row[f"rollout_diff_{key}"] = float(np.mean([r[1] for r in rs]))
    ls = league.summary()
    row["league_snapshots"] = ls["snapshots"]
    row["league_min_score"] = ls.get("vs_snapshots_min")
    row["league_mean_score"] = ls.get("vs_snapshots_mean")
    total = sum(spent.values()) or 1.0
    for p in PHASES:
        row[f"share_{p}"] = spent[p] / total
    return row
