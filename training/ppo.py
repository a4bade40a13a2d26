"""PPO self-play training of a team policy, top to bottom (in the spirit of CleanRL's ppo.py).

    cavallo train --config configs/default.yaml [--resume RUN_DIR] [--device auto]

1. Setup: config, run directory (``runs/<name>-<timestamp>/``), seeds, device,
   network (``training.model.PolicyNet``), Adam, the league.
2. Loop over updates:
   a. draw the opponents of this rollout's games from the league mix;
   b. play them in lockstep (``collect_rollout`` -> ``training.selfplay.play_rollout``):
      batched, masked sampling; the learner's decisions with GAE or paired
      advantages (with ``prior_workers``, other processes compute part of the
      heuristic prior);
   c. PPO update: clipped surrogate on the masked policy (the same mask
      as when acting), value loss, entropy bonus, a few epochs of minibatches;
   d. league bookkeeping: scores against each opponent, snapshots;
   e. logs (CSV, TensorBoard, progress bar), checkpoint, and every
      ``eval.every`` updates a duplicate evaluation against the fixed bots
      and a fresh ``learning_curve.png``.
3. ``--resume`` reloads the last checkpoint: weights, optimizer, league,
   every RNG and the counters, and continues where the run stopped.
"""

from __future__ import annotations

import csv
import json
import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from . import checkpoint as ckpt
from .config import ConfigError, PPOSection, TrainConfig, dump, from_dict
from .league import League
from .model import EnsembleNet, ModelConfig, PolicyNet, StateCritic, build_policy
from .selfplay import PHASES, Batch, PriorWorkers, Timers, play_rollout

# ---------------------------------------------------------------- helpers


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {name!r} asked for, but no CUDA GPU is available (use auto or cpu)")
    return torch.device(name)


def make_net(cfg: TrainConfig, device) -> PolicyNet | EnsembleNet:
    return build_policy(ModelConfig(hidden=list(cfg.model.hidden), activation=cfg.model.activation,
                                    mask_input=cfg.model.mask_input, prior=cfg.model.prior,
                                    prior_gain=list(cfg.model.prior_gain), members=cfg.model.members)).to(device)


def make_critic(cfg: TrainConfig, device) -> StateCritic | None:
    if cfg.ppo.critic != "state":
        return None
    return StateCritic(list(cfg.ppo.critic_hidden), cfg.model.activation).to(device)


def make_prior_workers(cfg: TrainConfig) -> PriorWorkers | None:
    """The config's prior worker processes (None: none asked for, or a model without the prior)."""
    return PriorWorkers(cfg.prior_workers) if cfg.prior_workers and cfg.model.prior else None


def _label(spec: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in spec)


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
               gen: torch.Generator, device, critic: StateCritic | None = None) -> UpdateStats:
    """A few epochs of clipped PPO over the batch, masked logits throughout.

    With a centralised ``critic`` the value loss trains it and the policy's
    own value head alike (so the exported model keeps a meaningful value).
    """
    obs = torch.from_numpy(batch.obs).to(device)
    mask = torch.from_numpy(batch.mask).to(device)
    actions = torch.from_numpy(batch.actions).to(device)
    old_logp = torch.from_numpy(batch.logp).to(device)
    adv_all = torch.from_numpy(batch.advantages).to(device)
    ret_all = torch.from_numpy(batch.returns).to(device)
    cobs = torch.from_numpy(batch.critic_obs).to(device) if critic is not None else None
    prior = torch.from_numpy(batch.prior).to(device) if batch.prior is not None else None
    m = len(batch)
    n_mb = max(1, m // p.minibatch_size)
    sums = {"lp": 0.0, "lv": 0.0, "ent": 0.0, "kl": 0.0, "cf": 0.0}
    steps = 0
    epochs_run = 0
    for _ in range(p.epochs):
        epochs_run += 1
        kls = []
        for idx in torch.tensor_split(torch.randperm(m, generator=gen), n_mb):
            idx = idx.to(device)
            logits, value = model(obs[idx], mask[idx], prior[idx] if prior is not None else None)
            logp_all = torch.log_softmax(logits, dim=-1)
            new_logp = logp_all.gather(1, actions[idx, None]).squeeze(1)
            ent = -torch.where(mask[idx], logp_all.exp() * logp_all, torch.zeros_like(logp_all)).sum(-1).mean()
            log_ratio = new_logp - old_logp[idx]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfrac = ((ratio - 1.0).abs() > p.clip).float().mean()
            adv = adv_all[idx]
            if p.norm_adv and len(idx) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            loss_pi = torch.max(-adv * ratio, -adv * ratio.clamp(1 - p.clip, 1 + p.clip)).mean()
            loss_v = 0.5 * F.mse_loss(value, ret_all[idx])
            if critic is not None:
                loss_v = 0.5 * (loss_v + 0.5 * F.mse_loss(critic(cobs[idx]), ret_all[idx]))
            loss = loss_pi + p.vf_coef * loss_v - p.ent_coef * ent
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), p.max_grad_norm)
            if critic is not None:
                torch.nn.utils.clip_grad_norm_(critic.parameters(), p.max_grad_norm)
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


# ---------------------------------------------------------------- checkpoints


def save_checkpoint(path, model, opt, league, cfg, counters: dict, rng, gen, evals, *, full: bool = True, critic=None):
    """Weights (+ critic, optimizer, league, RNG when ``full``) and the JSON sidecar."""
    tensors = {f"model.{k}": v for k, v in model.state_dict().items()}
    if full and critic is not None:
        tensors.update({f"critic.{k}": v for k, v in critic.state_dict().items()})
    meta = {"config": cfg.to_dict(), "seed": cfg.seed, "step": counters["update"], "counters": dict(counters),
            "evals": evals, "kind": "training" if full else "model"}
    if full:
        osd = opt.state_dict()
        for pid, st in osd["state"].items():
            for k, v in st.items():
                tensors[f"optim.{pid}.{k}"] = v if torch.is_tensor(v) else torch.tensor(v)
        meta["optim"] = {"lr": osd["param_groups"][0]["lr"], "params": sorted(osd["state"])}
        lt, lm = league.state()
        tensors.update(lt)
        meta["league"] = lm
        tensors["rng.torch"] = torch.get_rng_state()
        tensors["rng.sample"] = gen.get_state()
        meta["rng_numpy"] = rng.bit_generator.state
    return ckpt.save(path, tensors, meta)


def load_training_checkpoint(path, model, opt, league, cfg, gen, device, critic=None):
    tensors, meta = ckpt.load(path)
    if meta.get("kind") != "training":
        raise ckpt.CheckpointError(f"{path}: a model-only checkpoint, not a training checkpoint to resume from")
    try:
        model.load_state_dict(ckpt.model_state(tensors))
        if critic is not None:
            critic.load_state_dict({k[len("critic."):]: v for k, v in tensors.items() if k.startswith("critic.")})
        osd = opt.state_dict()
        osd["state"] = {}
        for pid in meta["optim"]["params"]:
            prefix = f"optim.{pid}."
            osd["state"][pid] = {k[len(prefix):]: v.to(device) if k[len(prefix):] != "step" else v
                                 for k, v in tensors.items() if k.startswith(prefix)}
        osd["param_groups"][0]["lr"] = meta["optim"]["lr"]
        opt.load_state_dict(osd)
        league.load_state(tensors, meta["league"], lambda: make_net(cfg, device))
        torch.set_rng_state(tensors["rng.torch"])
        gen.set_state(tensors["rng.sample"])
        rng = np.random.default_rng()
        rng.bit_generator.state = meta["rng_numpy"]
    except (KeyError, RuntimeError, ValueError, TypeError) as e:
        raise ckpt.CheckpointError(f"{path}: incomplete or mismatched training checkpoint ({type(e).__name__}: {e})") from None
    return rng, meta["counters"], meta.get("evals", [])


# ---------------------------------------------------------------- logging


class RunLog:
    """metrics.csv + TensorBoard events + learning_curve.png in the run directory."""

    def __init__(self, run_dir: Path, cfg: TrainConfig):
        self.run_dir = run_dir
        self.columns = ["update", "decisions", "learner_decisions", "wall_s", "decisions_per_s", "samples_per_s", "lr",
                        "loss_policy", "loss_value", "entropy", "approx_kl", "clipfrac", "explained_var", "batch"]
        self.columns += [f"rollout_score_{k}" for k in ("self", "greedy", "heuristic", "snapshots")]
        self.columns += [f"rollout_diff_{k}" for k in ("greedy", "heuristic", "snapshots")]
        self.columns += ["league_snapshots", "league_min_score", "league_mean_score"]
        self.columns += [f"share_{p}" for p in PHASES]
        for spec in cfg.eval.opponents:
            self.columns += [f"eval_{_label(spec)}_score", f"eval_{_label(spec)}_diff"]
        path = run_dir / "metrics.csv"
        new = not path.exists()
        self.csv_file = open(path, "a", newline="", encoding="utf-8")
        self.csv = csv.DictWriter(self.csv_file, fieldnames=self.columns, extrasaction="ignore")
        if new:
            self.csv.writeheader()
        self.tb = None
        try:
            from torch.utils.tensorboard import SummaryWriter

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


def plot_learning_curve(run_dir: Path, evals: list, out: Path | None = None) -> Path:
    """Duplicate-evaluation score against each fixed bot and the rollout scores, by decisions trained."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
        x = [e["learner_decisions"] / 1e6 for e in es]
        y = [100 * e["score"] for e in es]
        lo = [100 * (e["score"] - e["score_ci"][0]) for e in es]
        hi = [100 * (e["score_ci"][1] - e["score"]) for e in es]
        ax1.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {opp}")
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


# ---------------------------------------------------------------- evaluation


def evaluate(model_path: Path, cfg: TrainConfig, deals: int | None = None) -> list[dict]:
    """Duplicate evaluation of a checkpoint against each ``eval.opponents`` bot."""
    from cavallo_env.evaluation import duplicate_eval

    from . import policy_bot  # noqa: F401  (registers the checkpoint:<path> bot kind)

    out = []
    for spec in cfg.eval.opponents:
        r = duplicate_eval(f"checkpoint:{model_path}", spec, deals or cfg.eval.deals, seed=cfg.eval.seed, jobs=cfg.eval.jobs)
        out.append({"opponent": spec, "deals": r.deals, "score": r.score, "score_ci": list(r.score_ci),
                    "wins": r.wins, "draws": r.draws, "losses": r.losses, "mean_diff": r.mean_diff,
                    "mean_diff_ci": list(r.mean_diff_ci), "seed": cfg.eval.seed})
    return out


# ---------------------------------------------------------------- the run


def new_run_dir(cfg: TrainConfig, root="runs") -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(root) / f"{cfg.name}-{stamp}"
    k = 1
    while run_dir.exists():
        k += 1
        run_dir = Path(root) / f"{cfg.name}-{stamp}-{k}"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text(dump(cfg), encoding="utf-8")
    return run_dir


def config_of_run(run_dir: Path) -> TrainConfig:
    """The config a run directory was started with (from its last checkpoint)."""
    last = Path(run_dir) / "checkpoints" / "last.json"
    if not Path(run_dir).is_dir():
        raise FileNotFoundError(f"{run_dir}: run directory not found")
    if not last.exists():
        raise ckpt.CheckpointError(f"{run_dir}: no checkpoints/last.json to resume from")
    try:
        meta = json.loads(last.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ckpt.CheckpointError(f"{last}: not a valid JSON sidecar ({e}); truncated or foreign file?") from None
    if not isinstance(meta, dict) or meta.get("format") != ckpt.FORMAT or "config" not in meta:
        raise ckpt.CheckpointError(f"{last}: not a cavallo training checkpoint")
    return from_dict(meta["config"], where=f"{last.name} config")


def evaluate_update(run_dir: Path, update: int, model, opt, league, cfg, counters, rng, gen, evals: list) -> list[dict]:
    """Save the model as ``checkpoints/update-NNNNN``, evaluate it against ``cfg.eval.opponents``,
    append the results to ``evals`` and rewrite the checkpoint with its own evaluation."""
    model_path = run_dir / "checkpoints" / f"update-{update:05d}"
    save_checkpoint(model_path, model, opt, league, cfg, counters, rng, gen, evals, full=False)
    results = evaluate(model_path.with_suffix(".json"), cfg)
    for r in results:
        r.update(update=update, learner_decisions=counters["learner_decisions"], decisions=counters["decisions"])
    evals.extend(results)
    save_checkpoint(model_path, model, opt, league, cfg, counters, rng, gen, results, full=False)
    return results


def collect_rollout(cfg: TrainConfig, model, league: League, rng, gen, dev, critic, timers: Timers,
                    workers: PriorWorkers | None):
    """Draw this rollout's opponents from the league mix and play it (``play_rollout``); with
    ``ppo.advantage: paired`` every opponent gets a deal played twice."""
    paired = cfg.ppo.advantage == "paired"
    if paired:
        opponents = [o for o in league.draw_opponents(cfg.games // 2, rng) for _ in (0, 1)]
    else:
        opponents = league.draw_opponents(cfg.games, rng)
    return play_rollout(model, opponents, league.nets(), rng=rng, gen=gen, device=dev, reward=cfg.reward,
                        reward_scale=cfg.reward_scale, shaping=cfg.shaping, gamma=cfg.ppo.gamma,
                        gae_lambda=cfg.ppo.gae_lambda, critic=critic, timers=timers, prior_workers=workers,
                        paired=paired)


def build_learner(cfg, dev):
    """Seeded RNGs, the network, the optional critic and the optimizer of a run.

    Shared by ``train`` and ``benchmarks/train_speed.py`` so both start alike.
    """
    torch.manual_seed(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    model = make_net(cfg, dev)
    critic = make_critic(cfg, dev)
    params = list(model.parameters()) + (list(critic.parameters()) if critic is not None else [])
    opt = torch.optim.Adam(params, lr=cfg.ppo.lr, eps=1e-5)
    return gen, rng, model, critic, opt


def train(cfg: TrainConfig, run_dir: Path | None = None, *, resume: bool = False, device: str | None = None,
          progress: bool = True, stop_after: int | None = None, stop_at: int | None = None, log=print) -> dict:
    """Run (or resume) training; returns a summary dict.

    ``stop_after``: stop after that many updates in this call; ``stop_at``:
    stop once update ``stop_at`` is done (0: once the warm start is; a checkpoint is written; ``--resume``
    continues from it).
    """
    # ---- 1. setup
    torch.set_num_threads(cfg.threads)
    dev = resolve_device(device or cfg.device)
    if run_dir is None:
        run_dir = new_run_dir(cfg)
    run_dir = Path(run_dir)
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    last_path = run_dir / "checkpoints" / "last"

    gen, rng, model, critic, opt = build_learner(cfg, dev)
    league = League(cfg.league)
    counters = {"update": 0, "decisions": 0, "learner_decisions": 0, "wall_s": 0.0}
    evals: list[dict] = []
    if resume:
        rng, counters, evals = load_training_checkpoint(last_path, model, opt, league, cfg, gen, dev, critic)
        log(f"resumed {run_dir} at update {counters['update']} ({counters['learner_decisions']} learner decisions)")
        if counters["update"] > cfg.updates:
            raise ConfigError(f"the run in {run_dir} is already at update {counters['update']}, past updates = {cfg.updates}")
    if cfg.pretrain.games and counters["update"] == 0 and "pretrain" not in counters:
        # ---- 1b. optional warm start: imitate the teacher bot (training.pretrain)
        from .pretrain import behaviour_clone, concat_decisions, teacher_games

        t0 = time.perf_counter()
        if not resume:  # so that --resume works during the warm start too
            save_checkpoint(last_path, model, opt, league, cfg, counters, rng, gen, evals, critic=critic)
        teacher_dir = Path(cfg.pretrain.cache) if cfg.pretrain.cache else run_dir / "teacher"
        log(f"pretrain: {cfg.pretrain.games} deals of {cfg.pretrain.teacher} in every seat "
            f"(recorded in {teacher_dir}, reused on --resume)")
        record = partial(teacher_games, teacher=cfg.pretrain.teacher, rng=rng, reward=cfg.reward,
                         reward_scale=cfg.reward_scale, prior=cfg.model.prior, jobs=cfg.pretrain.jobs,
                         progress=progress, soft=cfg.pretrain.soft)
        fit = partial(behaviour_clone, model, lr=cfg.pretrain.lr, minibatch_size=cfg.pretrain.minibatch_size,
                      vf_coef=cfg.ppo.vf_coef, gen=gen, device=dev, log=log, anneal_lr=cfg.pretrain.anneal_lr)
        data = record(cfg.pretrain.games, cache_dir=teacher_dir)
        t1 = time.perf_counter()
        log(f"pretrain: {len(data['actions'])} decisions recorded in {t1 - t0:.0f}s")
        bc = fit(data, epochs=cfg.pretrain.epochs)
        for r in range(1, cfg.pretrain.dagger_rounds + 1):
            # DAgger: the teacher labels the positions the student reaches against dagger_opponent
            student = run_dir / "checkpoints" / f"dagger-{r}"
            save_checkpoint(student, model, opt, league, cfg, counters, rng, gen, evals, full=False)
            log(f"pretrain: DAgger round {r}/{cfg.pretrain.dagger_rounds}: {cfg.pretrain.dagger_games} deals of "
                f"the student vs {cfg.pretrain.dagger_opponent}, labelled by {cfg.pretrain.teacher}")
            extra = record(cfg.pretrain.dagger_games, cache_dir=run_dir / f"dagger-{r}",
                           players=(f"checkpoint:{student.with_suffix('.json')}", cfg.pretrain.dagger_opponent))
            data = concat_decisions([data, extra])
            del extra
            bc = fit(data, epochs=cfg.pretrain.dagger_epochs)
        del data
        if cfg.pretrain.sharpen != 1.0:
            model.sharpen(cfg.pretrain.sharpen)
            log(f"pretrain: policy logits x {cfg.pretrain.sharpen:g} (same argmax, sharper sampling)")
        counters["pretrain"] = dict(bc, games=cfg.pretrain.games, play_s=t1 - t0, wall_s=time.perf_counter() - t0)
        counters["wall_s"] += time.perf_counter() - t0
        league.add(model, 0)  # the imitation policy anchors the league
        if cfg.eval.every:  # how good the warm start is, before any PPO
            results = evaluate_update(run_dir, 0, model, opt, league, cfg, counters, rng, gen, evals)
            log("pretrained: duplicate eval (" + ", ".join(f"{r['opponent']} {100 * r['score']:.1f}%" for r in results) + ")")
        save_checkpoint(last_path, model, opt, league, cfg, counters, rng, gen, evals, critic=critic)
    runlog = RunLog(run_dir, cfg)
    log(f"run {run_dir}  device {dev}  seed {cfg.seed}  updates {cfg.updates} x {cfg.games} games")

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.updates, initial=counters["update"], unit="upd", dynamic_ncols=True)
    timers = Timers()
    done_this_call = 0
    workers = make_prior_workers(cfg)
    try:
        while counters["update"] < cfg.updates and (stop_at is None or counters["update"] < stop_at) and stop_after != 0:
            update = counters["update"] + 1
            t_start = time.perf_counter()
            # ---- 2a. learning-rate schedule and opponents
            lr = cfg.ppo.lr * (1.0 - (update - 1) / cfg.updates) if cfg.ppo.anneal_lr else cfg.ppo.lr
            for g in opt.param_groups:
                g["lr"] = lr
            # ---- 2b. rollout
            model.eval()
            phase0 = dict(timers)
            batch, stats = collect_rollout(cfg, model, league, rng, gen, dev, critic, timers, workers)
            # ---- 2c. PPO update
            model.train()
            t0 = time.perf_counter()
            us = ppo_update(model, opt, batch, cfg.ppo, gen, dev, critic)
            timers["update"] += time.perf_counter() - t0
            elapsed = time.perf_counter() - t_start
            # ---- 2d. league
            league.record(stats.results)
            if update % cfg.league.snapshot_every == 0:
                league.add(model, update)
            counters["update"] = update
            counters["decisions"] += stats.decisions
            counters["learner_decisions"] += stats.learner_decisions
            counters["wall_s"] += elapsed
            # ---- 2e. logs
            spent = {p: timers[p] - phase0[p] for p in PHASES}
            total = sum(spent.values()) or 1.0
            row = {"update": update, "decisions": counters["decisions"], "learner_decisions": counters["learner_decisions"],
                   "wall_s": counters["wall_s"], "decisions_per_s": stats.decisions / elapsed,
                   "samples_per_s": stats.learner_decisions / elapsed, "lr": lr, "batch": len(batch),
                   "loss_policy": us.loss_policy, "loss_value": us.loss_value, "entropy": us.entropy,
                   "approx_kl": us.approx_kl, "clipfrac": us.clipfrac, "explained_var": us.explained_var}
            snap_res = [r for k, rs in stats.results.items() if k.startswith("snapshot") for r in rs]
            for key, rs in list(stats.results.items()) + [("snapshots", snap_res)]:
                if rs and not key.startswith("snapshot") or key == "snapshots" and rs:
                    row[f"rollout_score_{key}"] = float(np.mean([r[0] for r in rs]))
                    row[f"rollout_diff_{key}"] = float(np.mean([r[1] for r in rs]))
            ls = league.summary()
            row["league_snapshots"] = ls["snapshots"]
            row["league_min_score"] = ls.get("vs_snapshots_min")
            row["league_mean_score"] = ls.get("vs_snapshots_mean")
            for p in PHASES:
                row[f"share_{p}"] = spent[p] / total
            is_last = update == cfg.updates
            if cfg.eval.every and update % cfg.eval.every == 0 or is_last:
                t0 = time.perf_counter()
                results = evaluate_update(run_dir, update, model, opt, league, cfg, counters, rng, gen, evals)
                for r in results:
                    row[f"eval_{_label(r['opponent'])}_score"] = r["score"]
                    row[f"eval_{_label(r['opponent'])}_diff"] = r["mean_diff"]
                msg = ", ".join(f"{r['opponent']} {100 * r['score']:.1f}% ({r['mean_diff']:+.2f} pts)" for r in results)
                log(f"update {update}: duplicate eval ({cfg.eval.deals} deals, {time.perf_counter() - t0:.0f}s): {msg}")
            runlog.write(row)
            if update % cfg.checkpoint_every == 0 or is_last:
                save_checkpoint(last_path, model, opt, league, cfg, counters, rng, gen, evals, critic=critic)
            if cfg.eval.every and update % cfg.eval.every == 0 or is_last:
                plot_learning_curve(run_dir, evals)
            if bar is not None:
                post = {"dec/s": f"{row['decisions_per_s']:.0f}", "H": f"{ls.get('vs_heuristic', float('nan')):.2f}",
                        "G": f"{ls.get('vs_greedy', float('nan')):.2f}", "ent": f"{us.entropy:.2f}"}
                bar.set_postfix(post, refresh=False)
                bar.update(1)
            done_this_call += 1
            if (stop_after is not None and done_this_call >= stop_after
                    or stop_at is not None and update >= stop_at) and not is_last:
                save_checkpoint(last_path, model, opt, league, cfg, counters, rng, gen, evals, critic=critic)
                break
    finally:
        if workers is not None:
            workers.close()
        if bar is not None:
            bar.close()
        runlog.close()
    total = sum(timers.values()) or 1.0
    return {"run_dir": str(run_dir), "update": counters["update"], "decisions": counters["decisions"],
            "learner_decisions": counters["learner_decisions"], "wall_s": counters["wall_s"],
            "shares": {p: timers[p] / total for p in PHASES}, "evals": evals}
