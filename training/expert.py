"""Expert iteration: the search plays, the network learns it, the next search uses the new network.

    cavallo expert --config configs/expert-briscola.yaml
    cavallo expert --resume runs/expert-briscola-20261206-093000 [--generations 30]

A run (``train``) is a sequence of generations.  Generation 0 is the
starting network (``init``: random weights or a checkpoint), evaluated.  Each
generation ``g`` then

1. plays ``deals`` self-play deals with the expert (``expert.search``, given
   the network of generation ``g - 1``: ``training.expert_bot``) in every seat
   and records every decision (``training.expert_play``), saved as
   ``replay/gen-NNNNN.npz`` (no pickle; its sha256 in the checkpoint);
2. trains the network on the last ``train.window`` generations of data:
   cross-entropy to the expert's root visit distribution plus the value MSE
   to the decision's final result, ``train.epochs`` passes of minibatches,
   Adam (its moments carried from generation to generation);
3. saves the network as ``checkpoints/gen-NNNNN`` (a model checkpoint that
   ``checkpoint:``, ``cavallo export`` and the next expert read) and, every
   ``eval.every`` generations and at the last, plays the duplicate evaluation
   of the network and of the expert against each ``eval.opponents`` bot;
4. appends its row to ``metrics.csv``, redraws ``expert_curve.png`` and
   saves ``checkpoints/last`` (weights, Adam, every generator's state, the
   replay window's files), so ``--resume`` continues bit for bit; Ctrl-C
   keeps the last finished generation (``training.interrupt.Guard``).
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from cavallo_env import games
from cavallo_env.evaluation import duplicate_eval

from . import checkpoint as ckpt
from . import expert_log
from .config import ConfigError, drop_removed, dump
from .expert_config import ExpertConfig, from_dict
from .expert_learn import agreement, fit
from .expert_play import draw_deals, self_play
from .interrupt import Guard
from .model import PolicyNet, build_policy
from .run import numeric_platform


def new_run_dir(cfg: ExpertConfig, root="runs", out=None) -> Path:
    """``out``, or ``root/<name>-<time>``: made with ``config.yaml``, refused if it holds a run already."""
    if out is not None:
        run_dir = Path(out)
        if (run_dir / "checkpoints" / "last.json").exists():
            raise ConfigError(f"{run_dir} holds a run already: continue it with --resume {run_dir}")
    else:
        run_dir = Path(root) / f"{cfg.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        k = 1
        while run_dir.exists():
            k += 1
            run_dir = Path(root) / f"{cfg.name}-{time.strftime('%Y%m%d-%H%M%S')}-{k}"
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(dump(cfg), encoding="utf-8")
    return run_dir


def check_init(cfg: ExpertConfig) -> None:
    """A checkpoint ``init`` must exist, be of the config's game and have the config's ``model``."""
    if cfg.init == "scratch":
        return
    try:
        meta, _, _ = ckpt.read_manifest(cfg.init)
    except ckpt.CheckpointError as e:
        raise ConfigError(f"init: {e}") from None
    if meta.get("game", games.DEFAULT_GAME) != cfg.game:
        raise ConfigError(f"init: {cfg.init} is a network of {meta.get('game', games.DEFAULT_GAME)}, "
                          f"but the config plays {cfg.game}")
    section = drop_removed({"model": meta.get("config", {}).get("model", {})}, cfg.init)["model"]
    if section != cfg.model.to_dict():
        raise ConfigError(f"model: {cfg.model.to_dict()} is not the network of init {cfg.init} ({section}); "
                          "write that checkpoint's model section")


def expert_spec(cfg: ExpertConfig, model_path) -> str:
    """The bot spec of the expert that reads the network ``model_path``."""
    if cfg.expert.search.startswith("ismcts:"):
        q = f";target=q;temp={cfg.expert.temp!r}" if cfg.expert.target == "q" else ""
        return f"expert:{cfg.expert.search};bias={cfg.expert.bias!r}{q};model={model_path}"
    return f"{cfg.expert.search},model={model_path}"  # search:<game>: the network inside the tree


@dataclass
class ExpertRun:
    """Everything an expert-iteration run changes as it goes (see the module doc)."""

    cfg: ExpertConfig
    run_dir: Path
    model: PolicyNet
    opt: torch.optim.Optimizer
    rng: np.random.Generator  # the self-play deals and bot seeds
    gen: torch.Generator  # the minibatch order
    generation: int = -1  # the last finished generation (-1: not even the start evaluated)
    counters: dict = field(default_factory=lambda: {"decisions": 0, "wall_s": 0.0})
    evals: list = field(default_factory=list)
    replay: list = field(default_factory=list)  # {"generation", "file", "sha256", "decisions"} of the window

    @property
    def last_path(self) -> Path:
        return self.run_dir / "checkpoints" / "last"

    def model_path(self, generation: int) -> Path:
        return self.run_dir / "checkpoints" / f"gen-{generation:05d}.json"

    @classmethod
    def start(cls, cfg: ExpertConfig, run_dir: Path) -> "ExpertRun":
        """A new run seeded from ``cfg.seed``, its network from ``cfg.init``."""
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        model = build_policy(cfg.model, games.get(cfg.game).learning())
        if cfg.init != "scratch":
            check_init(cfg)
            tensors, _ = ckpt.load(cfg.init)
            model.load_state_dict(ckpt.model_state(tensors))
        opt = torch.optim.Adam(model.parameters(), lr=cfg.train.lr)
        return cls(cfg, Path(run_dir), model, opt, np.random.default_rng(cfg.seed),
                   torch.Generator().manual_seed(cfg.seed))

    @classmethod
    def resume(cls, run_dir, generations: int | None = None) -> "ExpertRun":
        """The run in ``run_dir`` as its last checkpoint left it (``generations``: a new length)."""
        run_dir = Path(run_dir)
        if not (run_dir / "checkpoints" / "last.json").exists():
            raise ckpt.CheckpointError(f"{run_dir}: no checkpoints/last.json (not a run folder of cavallo expert?)")
        meta, _, _ = ckpt.read_manifest(run_dir / "checkpoints" / "last.json")
        if meta.get("kind") != "expert":
            raise ckpt.CheckpointError(f"{run_dir}: not a run of cavallo expert (its checkpoint is {meta.get('kind')!r})")
        cfg = from_dict(meta["config"], where=f"{run_dir.name} config")
        if generations is not None:
            cfg.generations = generations
            cfg.check()
            (run_dir / "config.yaml").write_text(dump(cfg), encoding="utf-8")
        run = cls.start(dataclass_replace_init(cfg), run_dir)
        run.cfg = cfg
        run.load(run.last_path)
        return run

    # -- checkpoints ----------------------------------------------------------------
    def meta(self, kind: str) -> dict:
        return {"game": self.cfg.game, "config": self.cfg.to_dict(), "seed": self.cfg.seed, "step": self.generation,
                "kind": kind, "counters": dict(self.counters), "evals": self.evals, "replay": self.replay,
                "platform": numeric_platform()}

    def state(self) -> tuple[dict, dict]:
        """What ``checkpoints/last`` holds: ``(tensors, meta)``; the tensors are the live ones."""
        tensors = {f"model.{k}": v for k, v in self.model.state_dict().items()}
        osd = self.opt.state_dict()
        for pid, st in osd["state"].items():
            for k, v in st.items():
                tensors[f"optim.{pid}.{k}"] = v if torch.is_tensor(v) else torch.tensor(v)
        tensors["rng.torch"] = torch.get_rng_state()
        tensors["rng.minibatch"] = self.gen.get_state()
        meta = self.meta("expert")
        meta["optim"] = sorted(osd["state"])
        meta["rng_numpy"] = self.rng.bit_generator.state
        return tensors, meta

    def save_model(self, generation: int) -> Path:
        """The network alone as ``checkpoints/gen-NNNNN`` (what ``checkpoint:`` and the expert read)."""
        tensors = {f"model.{k}": v for k, v in self.model.state_dict().items()}
        ckpt.save(self.model_path(generation), tensors, self.meta("model"))
        return self.model_path(generation)

    def load(self, path) -> None:
        """Restore the network, Adam, the generators, counters, evaluations and replay window."""
        tensors, meta = ckpt.load(path)
        try:
            self.model.load_state_dict(ckpt.model_state(tensors))
            osd = self.opt.state_dict()
            osd["state"] = {pid: {k[len(f"optim.{pid}."):]: v for k, v in tensors.items()
                                  if k.startswith(f"optim.{pid}.")} for pid in meta["optim"]}
            self.opt.load_state_dict(osd)
            torch.set_rng_state(tensors["rng.torch"])
            self.gen.set_state(tensors["rng.minibatch"])
            self.rng.bit_generator.state = meta["rng_numpy"]
            self.generation, self.counters = meta["step"], meta["counters"]
            self.evals, self.replay = meta["evals"], meta["replay"]
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise ckpt.CheckpointError(f"{path}: incomplete or mismatched expert checkpoint "
                                       f"({type(e).__name__}: {e})") from None

    # -- the replay window ----------------------------------------------------------
    def add_replay(self, generation: int, data: dict) -> None:
        """Save a generation's decisions (``replay/gen-NNNNN.npz``) and keep the window's last files."""
        folder = self.run_dir / "replay"
        folder.mkdir(exist_ok=True)
        path = folder / f"gen-{generation:05d}.npz"
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **data)
        os.replace(tmp, path)
        self.replay.append({"generation": generation, "file": path.name, "sha256": ckpt.file_sha256(path),
                            "decisions": int(len(data["returns"]))})
        self.replay = self.replay[-self.cfg.train.window:]

    def drop_old_replay(self) -> None:
        """Remove the replay files that left the window (once ``checkpoints/last`` no longer names
        them): a run keeps ``train.window`` generations of data on disk, not all of them."""
        keep = {entry["file"] for entry in self.replay}
        for path in (self.run_dir / "replay").glob("gen-*.npz"):
            if path.name not in keep:
                path.unlink()

    def window(self) -> dict:
        """The decisions of the replay window, each file checked against its recorded sha256."""
        parts = []
        for entry in self.replay:
            path = self.run_dir / "replay" / entry["file"]
            with open(path, "rb") as f:
                raw = f.read()
            if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
                raise ckpt.CheckpointError(f"{path}: the replay data does not match the sha256 in "
                                           "checkpoints/last.json (changed or damaged); the run cannot resume")
            with np.load(path, allow_pickle=False) as z:
                parts.append({k: z[k] for k in z.files})
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def dataclass_replace_init(cfg: ExpertConfig) -> ExpertConfig:
    """``cfg`` starting from scratch (a resumed run's network comes from its own checkpoint)."""
    return from_dict(dict(cfg.to_dict(), init="scratch"), where="config")


# ---------------------------------------------------------------- evaluation


def evaluate(run: ExpertRun, generation: int) -> list[dict]:
    """Duplicate evaluation of generation ``generation``'s network (``checkpoint:``) and, with
    ``eval.expert_deals``, of the expert reading it, against each ``eval.opponents`` bot."""
    from . import expert_bot, policy_bot  # noqa: F401  (lazy: register the expert and checkpoint bot kinds)

    cfg = run.cfg
    path = run.model_path(generation)
    players = [("net", f"checkpoint:{path}", cfg.eval.deals)]
    if cfg.eval.expert_deals:
        players.append(("expert", expert_spec(cfg, path), cfg.eval.expert_deals))
    out = []
    for who, spec, deals in players:
        for opp in cfg.eval.opponents:
            r = duplicate_eval(spec, opp, deals, seed=cfg.eval.seed, jobs=cfg.eval.jobs, game=cfg.game,
                               **cfg.game_options)
            out.append({"generation": generation, "who": who, "opponent": opp, "deals": r.deals,
                        "score": r.score, "score_ci": list(r.score_ci), "mean_diff": r.mean_diff,
                        "mean_diff_ci": list(r.mean_diff_ci), "ms_per_decision": r.timing["a_ms_per_decision"]})
    return out


def _evaluated(run: ExpertRun, generation: int, row: dict, log) -> None:
    """Evaluate the generation when it is due: its results go to the run, the row and the log."""
    cfg = run.cfg
    if generation % cfg.eval.every and generation not in (0, cfg.generations):
        return
    t0 = time.perf_counter()
    results = evaluate(run, generation)
    row["eval_s"] = time.perf_counter() - t0
    run.evals.extend(results)
    row.update(expert_log.eval_row(results))
    log(f"generation {generation}: " + ", ".join(
        f"{e['who']} vs {e['opponent']} {100 * e['score']:.1f}% [{100 * e['score_ci'][0]:.1f}, "
        f"{100 * e['score_ci'][1]:.1f}]" for e in results))


# ---------------------------------------------------------------- generations


def _generation(run: ExpertRun, progress) -> dict:
    """Play, record and learn generation ``run.generation + 1``; its metrics row (no evaluation)."""
    cfg, g = run.cfg, run.generation + 1
    t0 = time.perf_counter()
    progress.phase(g, "self-play")
    seeds = draw_deals(run.rng, cfg.deals, games.get(cfg.game).num_seats)
    data = self_play(seeds, cfg.game, cfg.game_options, expert_spec(cfg, run.model_path(g - 1)), cfg.reward,
                     cfg.reward_scale, run.model.uses_prior, cfg.expert.soft, jobs=cfg.jobs,
                     advance=progress.advance)
    t1 = time.perf_counter()
    progress.phase(g, "training")
    row = dict(agreement(run.model, data), generation=g, deals=cfg.deals, decisions=len(data["returns"]),
               selfplay_s=t1 - t0)
    run.add_replay(g, data)
    window = run.window()
    row.update(fit(run.model, run.opt, window, cfg.train, run.gen))
    row.update(window_decisions=len(window["returns"]), train_s=time.perf_counter() - t1)
    run.counters["decisions"] += row["decisions"]
    run.generation = g
    run.save_model(g)
    return row


def _finish(run: ExpertRun, row: dict, progress, started: float, log) -> None:
    """Evaluate when due, write the row, the plot and ``checkpoints/last``."""
    progress.phase(run.generation, "evaluating")
    _evaluated(run, run.generation, row, log)
    run.counters["wall_s"] += time.perf_counter() - started
    row["wall_s"] = run.counters["wall_s"]
    expert_log.write_row(run.run_dir, run.cfg, row)
    if run.evals:
        expert_log.plot(run.run_dir, run.evals)
    ckpt.save(run.last_path, *run.state())
    if run.replay:
        run.drop_old_replay()


def train(run: ExpertRun, progress: bool = True, log=print) -> dict:
    """Run the generations still to play (see the module doc); a summary of the run."""
    expert_log.truncate(run.run_dir, run.generation)
    bar = Progress(run, enabled=progress, log=log)
    try:
        with Guard(run) as guard:
            if run.generation < 0:
                started = time.perf_counter()
                run.generation = 0
                run.save_model(0)
                _finish(run, {"generation": 0, "deals": 0, "decisions": 0}, bar, started, bar.log)
                guard.finished()
            while run.generation < run.cfg.generations:
                started = time.perf_counter()
                row = _generation(run, bar)
                _finish(run, row, bar, started, bar.log)
                guard.finished()
    finally:
        bar.close()
    return {"run_dir": str(run.run_dir), "generation": run.generation, "decisions": run.counters["decisions"],
            "wall_s": run.counters["wall_s"], "evals": run.evals}


class Progress:
    """The run's progress bar (tqdm, over self-play deals) and the lines logged above it."""

    def __init__(self, run: ExpertRun, *, enabled: bool, log=print):
        from tqdm import tqdm  # lazy: only a run with a progress bar needs it

        cfg = run.cfg
        self.game, self._log, self.bar = cfg.game, log, None
        if enabled:
            done = max(run.generation, 0) * cfg.deals
            self.bar = tqdm(total=cfg.generations * cfg.deals, initial=done, unit="deal", dynamic_ncols=True,
                            desc=f"expert: {cfg.game}")

    def phase(self, generation: int, what: str) -> None:
        if self.bar is not None:
            self.bar.set_description_str(f"expert: {self.game} generation {generation} ({what})")

    def advance(self, deals: int) -> None:
        if self.bar is not None:
            self.bar.update(deals)

    def log(self, message: str) -> None:
        if self.bar is not None:
            self.bar.clear()
        self._log(message)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
