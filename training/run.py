"""A training run: everything that changes as it trains, in one object that saving,
loading and evaluation take.

``Run.start(cfg)`` seeds a new run (torch, the sampling generator and the
numpy generator, all from ``cfg.seed``), builds the network for the config's
game, Adam and the league; ``Run.resume(run_dir)`` restores all of it from
``checkpoints/last``.  ``run.save(path)`` writes a checkpoint (weights,
optimizer, league and every generator's state with ``full=True``; the model
alone otherwise); ``run.evaluate(update)`` saves the model as
``checkpoints/update-NNNNN`` and plays the duplicate evaluation of the config.
"""

from __future__ import annotations

import functools
import json
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from cavallo_env import games
from cavallo_env.evaluation import duplicate_eval

from . import checkpoint as ckpt
from .config import ConfigError, TrainConfig, dump, from_dict
from .league import League
from .model import PolicyNet, build_policy


@functools.cache
def numeric_platform() -> str:
    """What a run's floating-point results depend on besides its config and seed: torch's
    version, the CPU kernels it picked (``torch.backends.cpu.get_cpu_capability()``) and the
    CPU's vendor (MKL, torch's BLAS here, takes other code paths on other vendors' CPUs).
    A run reproduces bit for bit on the same platform; on another one the weights can
    differ in their last bits (and a long run's sampled games with them).  Read once per
    process: every checkpoint records it."""
    vendor = "unknown vendor"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("vendor_id"):
                vendor = line.split(":", 1)[1].strip()
                break
    except OSError:
        vendor = platform.processor() or vendor
    return f"torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()}, {vendor}"


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {name!r} asked for, but no CUDA GPU is available (use auto or cpu)")
    return torch.device(name)


def make_net(cfg: TrainConfig, device) -> PolicyNet:
    """The config's network for its game, on ``device``."""
    return build_policy(cfg.model, games.get(cfg.game).learning()).to(device)


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
        raise ckpt.CheckpointError(f"{run_dir}: no checkpoints/last.json (not a run folder of cavallo train?)")
    try:
        meta = json.loads(last.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ckpt.CheckpointError(f"{last}: not a valid JSON sidecar ({e}); truncated or foreign file?") from None
    if not isinstance(meta, dict) or meta.get("format") != ckpt.FORMAT or "config" not in meta:
        raise ckpt.CheckpointError(f"{last}: not a cavallo training checkpoint")
    return from_dict(meta["config"], where=f"{last.name} config")


@dataclass
class Run:
    """The state of one training run (see the module doc)."""

    cfg: TrainConfig
    run_dir: Path
    device: torch.device
    model: PolicyNet
    opt: torch.optim.Optimizer
    league: League
    rng: np.random.Generator  # deals, seats, opponents, bot seeds, teacher deals
    gen: torch.Generator  # sampled actions, minibatch order
    counters: dict = field(default_factory=lambda: {"update": 0, "decisions": 0, "learner_decisions": 0,
                                                    "wall_s": 0.0})
    evals: list = field(default_factory=list)

    @property
    def learning(self):
        return games.get(self.cfg.game).learning()

    @property
    def last_path(self) -> Path:
        return self.run_dir / "checkpoints" / "last"

    @classmethod
    def start(cls, cfg: TrainConfig, run_dir: Path | None = None, device: str | None = None) -> "Run":
        """A new run, seeded from ``cfg.seed`` (``run_dir``: default ``runs/<name>-<time>/``)."""
        torch.set_num_threads(cfg.threads)
        dev = resolve_device(device or cfg.device)
        run_dir = Path(run_dir) if run_dir is not None else new_run_dir(cfg)
        (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        torch.manual_seed(cfg.seed)
        gen = torch.Generator().manual_seed(cfg.seed)
        rng = np.random.default_rng(cfg.seed)
        model = make_net(cfg, dev)
        # foreach: a few batched ops per step instead of a loop over the tensors (the same numbers)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.ppo.lr, eps=1e-5, foreach=True)
        return cls(cfg, run_dir, dev, model, opt, League(cfg.league), rng, gen)

    @classmethod
    def resume(cls, cfg: TrainConfig, run_dir: Path, device: str | None = None) -> "Run":
        """The run in ``run_dir`` as its last checkpoint left it (``cfg`` may change only its length)."""
        run = cls.start(cfg, run_dir, device)
        run.load(run.last_path)
        return run

    # -- checkpoints ----------------------------------------------------------------
    def save(self, path=None, *, full: bool = True, evals: list | None = None):
        """Write a checkpoint (default ``checkpoints/last``): the weights, and with ``full``
        the optimizer, the league and every generator's state, to resume from.  The save is
        atomic as a whole (``training.checkpoint.save``: a kill at any instant leaves the
        previous checkpoint or this one), and weights that are not finite are refused, so a
        diverged run keeps its last good checkpoint."""
        return ckpt.save(self.last_path if path is None else path, *self.state(full=full, evals=evals))

    def state(self, *, full: bool = True, evals: list | None = None) -> tuple[dict, dict]:
        """What ``save`` writes: ``(tensors, meta)``; the tensors are the live ones (not copies)."""
        cfg, counters = self.cfg, self.counters
        tensors = {f"model.{k}": v for k, v in self.model.state_dict().items()}
        meta = {"game": cfg.game, "config": cfg.to_dict(), "seed": cfg.seed, "step": counters["update"],
                "counters": dict(counters), "evals": self.evals if evals is None else evals,
                "kind": "training" if full else "model", "platform": numeric_platform()}
        if full:
            osd = self.opt.state_dict()
            for pid, st in osd["state"].items():
                for k, v in st.items():
                    tensors[f"optim.{pid}.{k}"] = v if torch.is_tensor(v) else torch.tensor(v)
            meta["optim"] = {"lr": osd["param_groups"][0]["lr"], "params": sorted(osd["state"])}
            lt, lm = self.league.state()
            tensors.update(lt)
            meta["league"] = lm
            tensors["rng.torch"] = torch.get_rng_state()
            tensors["rng.sample"] = self.gen.get_state()
            meta["rng_numpy"] = self.rng.bit_generator.state
        return tensors, meta

    def load(self, path) -> None:
        """Restore weights, optimizer, league, generators, counters and evaluations from a
        training checkpoint, verified by ``training.checkpoint.load`` (its sha256, finite values)."""
        tensors, meta = ckpt.load(path)
        if meta.get("kind") != "training":
            raise ckpt.CheckpointError(f"{path}: a model-only checkpoint, not a training checkpoint to resume from")
        if meta.get("game", games.DEFAULT_GAME) != self.cfg.game:
            raise ckpt.CheckpointError(f"{path}: a checkpoint of {meta.get('game', games.DEFAULT_GAME)}, "
                                       f"but the config trains {self.cfg.game}")
        try:
            self.model.load_state_dict(ckpt.model_state(tensors))
            osd = self.opt.state_dict()
            osd["state"] = {}
            for pid in meta["optim"]["params"]:
                prefix = f"optim.{pid}."
                osd["state"][pid] = {k[len(prefix):]: v.to(self.device) if k[len(prefix):] != "step" else v
                                     for k, v in tensors.items() if k.startswith(prefix)}
            osd["param_groups"][0]["lr"] = meta["optim"]["lr"]
            self.opt.load_state_dict(osd)
            self.league.load_state(tensors, meta["league"], lambda: make_net(self.cfg, self.device))
            torch.set_rng_state(tensors["rng.torch"])
            self.gen.set_state(tensors["rng.sample"])
            self.rng = np.random.default_rng()
            self.rng.bit_generator.state = meta["rng_numpy"]
            self.counters = meta["counters"]
            self.evals = meta.get("evals", [])
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise ckpt.CheckpointError(f"{path}: incomplete or mismatched training checkpoint "
                                       f"({type(e).__name__}: {e})") from None

    # -- evaluation -----------------------------------------------------------------
    def evaluate(self, update: int) -> list[dict]:
        """Save the model as ``checkpoints/update-NNNNN``, play the config's duplicate evaluation
        against each ``eval.opponents`` bot, add the results to ``evals`` and to that checkpoint."""
        model_path = self.run_dir / "checkpoints" / f"update-{update:05d}"
        self.save(model_path, full=False)
        results = evaluate_checkpoint(model_path.with_suffix(".json"), self.cfg)
        for r in results:
            r.update(update=update, learner_decisions=self.counters["learner_decisions"],
                     decisions=self.counters["decisions"])
        self.evals.extend(results)
        self.save(model_path, full=False, evals=results)
        return results


def evaluate_checkpoint(model_path: Path, cfg: TrainConfig, deals: int | None = None) -> list[dict]:
    """Duplicate evaluation of a checkpoint against each of ``cfg.eval.opponents``, on the
    config's game (Scopa: single deals; the ``match`` option decides)."""
    # lazy: a side effect, registering the checkpoint:<path> bot kind, wanted only when a run evaluates
    from . import policy_bot  # noqa: F401

    out = []
    for spec in cfg.eval.opponents:
        r = duplicate_eval(f"checkpoint:{model_path}", spec, deals or cfg.eval.deals, seed=cfg.eval.seed,
                           jobs=cfg.eval.jobs, game=cfg.game, **cfg.game_options)
        out.append({"opponent": spec, "deals": r.deals, "score": r.score, "score_ci": list(r.score_ci),
                    "wins": r.wins, "draws": r.draws, "losses": r.losses, "mean_diff": r.mean_diff,
                    "mean_diff_ci": list(r.mean_diff_ci), "seed": cfg.eval.seed})
    return out
