"""The RLlib backend's config: ``configs/rllib/<game>.yaml`` -> ``RLlibTrainConfig``, validated first.

It reuses the project's sections (``training.config``) so a run of each
backend is described with the same words:

- ``model``: the network, exactly ``training.model.PolicyNet`` (hidden sizes,
  activation); ``prior`` must be false: RLlib's env runners
  see the PettingZoo observation, which does not carry the heuristic prior;
- ``ppo``: lr, gamma, gae_lambda, epochs, minibatch_size, clip, vf_coef,
  ent_coef, max_grad_norm (see ``training.rllib.train.ppo_config`` for how
  each maps onto RLlib's names); ``advantage`` must be ``gae`` (the paired
  advantages need twin deals RLlib does not play) and ``target_kl`` null;
- ``league``: ``mix`` (shares of the episodes against ``self``,
  ``snapshots``, ``greedy``, ``heuristic``), ``snapshot_every`` (iterations
  between two snapshots), ``max_snapshots`` (snapshot slots, played
  uniformly; ``pfsp_power`` and ``score_decay`` are not used);
- ``eval``: the duplicate evaluation of the converted checkpoint, every
  ``every`` iterations and at the end;
- ``rllib``: where and how wide it runs (cluster address, env runners, envs
  per runner, learners, batch size).

``init_from`` starts ``main`` (and the snapshot slots) from a project
checkpoint of the same network, e.g. the imitation warm start of a
``cavallo train`` run.  A run stops after ``iterations`` or once ``time_limit_s`` seconds of training
(sampling + update, evaluations excluded) are spent, whichever comes first.
"""

from __future__ import annotations

import copy
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..config import (
    ConfigError,
    EvalSection,
    LeagueSection,
    ModelSection,
    PPOSection,
    TrainConfig,
    _build,
    _check_bot_game,
    _range,
    read_yaml,
)


@dataclass
class RLlibSection:
    # null: $RAY_ADDRESS when set (`ray job submit` sets it), else a Ray started for this run;
    # "auto": the cluster running on this machine (`ray start --head`); or "ray://host:10001"
    address: typing.Optional[str] = None
    env_runners: int = 1  # sampling processes (0 = sample in the driver process)
    envs_per_env_runner: int = 8  # games each env runner steps together (batched inference)
    cpus_per_env_runner: int = 1
    learners: int = 0  # 0 = the learner runs in the driver process; N = N learner actors (DDP)
    gpus_per_learner: float = 0.0
    train_batch_size: int = 8192  # env steps (decisions of RLlib-driven seats) per iteration
    rollout_fragment_length: int = 0  # env steps per runner per sample call; 0 = RLlib's "auto"
    sample_timeout_s: float = 600.0
    save_algorithm: bool = True  # also write RLlib's own algorithm checkpoint (run_dir/rllib) at the end

    def check(self, where):
        if self.address is not None and not self.address.strip():
            raise ConfigError(f"{where}.address: null, 'auto' or a Ray address, got {self.address!r}")
        _range(where, "env_runners", self.env_runners, 0, 10_000)
        _range(where, "envs_per_env_runner", self.envs_per_env_runner, 1, 4096)
        _range(where, "cpus_per_env_runner", self.cpus_per_env_runner, 1, 256)
        _range(where, "learners", self.learners, 0, 1024)
        _range(where, "gpus_per_learner", self.gpus_per_learner, 0, 16)
        _range(where, "train_batch_size", self.train_batch_size, 1, 1 << 26)
        _range(where, "rollout_fragment_length", self.rollout_fragment_length, 0, 1 << 20)
        _range(where, "sample_timeout_s", self.sample_timeout_s, 0, 1e6, lo_open=True)


@dataclass
class RLlibTrainConfig:
    name: str = "rllib"
    game: str = "briscola"
    game_options: dict[str, typing.Any] = field(default_factory=dict)
    seed: int = 0
    threads: int = 1  # torch CPU threads of the driver (where the learner runs with learners: 0)
    iterations: int = 100  # RLlib training iterations (sample train_batch_size env steps, then update)
    time_limit_s: float = 0.0  # stop once this much training wall time is spent (0 = no limit)
    reward: str = "points"  # points | win (docs/contract.md)
    reward_scale: float = 10.0  # rewards are divided by this
    checkpoint_every: int = 10  # iterations between project checkpoints (checkpoints/last)
    # start main and the snapshot slots from a project checkpoint of the same network (e.g. the
    # warm start of a `cavallo train` run: checkpoints/update-00000.json); null = random weights
    init_from: typing.Optional[str] = None
    model: ModelSection = field(default_factory=ModelSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    league: LeagueSection = field(default_factory=LeagueSection)
    eval: EvalSection = field(default_factory=EvalSection)
    rllib: RLlibSection = field(default_factory=RLlibSection)

    def check(self, where="config"):
        # the sections and keys shared with the project's trainer are checked by its own rules
        twin = TrainConfig(name=self.name, game=self.game, game_options=self.game_options, seed=self.seed,
                           threads=self.threads, reward=self.reward, reward_scale=self.reward_scale,
                           model=self.model, ppo=self.ppo, league=self.league, eval=self.eval)
        twin.check(where)
        _range(where, "iterations", self.iterations, 1, 1 << 30)
        _range(where, "time_limit_s", self.time_limit_s, 0, 1e9)
        _range(where, "checkpoint_every", self.checkpoint_every, 1, 1 << 30)
        if self.model.prior:
            raise ConfigError(f"{where}.model.prior: must be false with the RLlib backend (the env runners see the "
                              "PettingZoo observation, which does not carry the heuristic prior)")
        if self.ppo.advantage != "gae":
            raise ConfigError(f"{where}.ppo.advantage: only gae with the RLlib backend (paired advantages need "
                              f"twin deals), got {self.ppo.advantage!r}")
        if self.ppo.target_kl is not None:
            raise ConfigError(f"{where}.ppo.target_kl: must be null with the RLlib backend (RLlib's PPO has no "
                              "early stop on the KL)")
        self.rllib.check(f"{where}.rllib")
        learners = max(1, self.rllib.learners)
        if self.rllib.train_batch_size % learners:
            raise ConfigError(f"{where}.rllib.train_batch_size: {self.rllib.train_batch_size} does not divide among "
                              f"{learners} learners")
        if self.ppo.minibatch_size > self.rllib.train_batch_size // learners:
            raise ConfigError(f"{where}.ppo.minibatch_size: {self.ppo.minibatch_size} is more than "
                              f"rllib.train_batch_size {self.rllib.train_batch_size}"
                              + (f" / {learners} learners" if learners > 1 else ""))
        for kind in ("greedy", "heuristic"):
            if self.league.mix.get(kind, 0) > 0:
                _check_bot_game(kind, self.game)

    def to_dict(self) -> dict:
        return asdict(self)


def from_dict(data, where="config") -> RLlibTrainConfig:
    cfg = _build(RLlibTrainConfig, data, where)
    cfg.check(where)
    return cfg


def load(path) -> RLlibTrainConfig:
    """Read and validate a YAML config of the RLlib backend; ``ConfigError`` says what is wrong."""
    path = Path(path)
    data = read_yaml(path)
    if isinstance(data, dict) and "rllib" not in data and "updates" in data:
        raise ConfigError(f"{path}: a config of the project's trainer (it has `updates`, no `rllib` section); "
                          "use it without --backend rllib, or a configs/rllib/*.yaml")
    return from_dict(data, where=path.name)


def project_twin(cfg: RLlibTrainConfig, games_per_rollout: int, updates: int | None = None) -> TrainConfig:
    """The project trainer's config of the same game, network, PPO settings and league mix
    (``games_per_rollout`` deals per update, no warm start): what the benchmarks compare with."""
    twin = TrainConfig(name=f"{cfg.name}-project", game=cfg.game, game_options=dict(cfg.game_options), seed=cfg.seed,
                       device="cpu", threads=cfg.threads, updates=updates or cfg.iterations, games=games_per_rollout,
                       reward=cfg.reward, reward_scale=cfg.reward_scale, checkpoint_every=cfg.checkpoint_every,
                       model=copy.deepcopy(cfg.model), ppo=copy.deepcopy(cfg.ppo), league=copy.deepcopy(cfg.league),
                       eval=copy.deepcopy(cfg.eval))
    twin.check("project twin")
    return twin
