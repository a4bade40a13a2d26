"""The config of an expert-iteration run (``cavallo expert``): YAML -> dataclasses, validated first.

Built and checked the way ``training.config`` builds a PPO config (the same
strict YAML reader, unknown keys and out-of-range values refused with the key
path named), with its own top-level fields: how many generations, how many
self-play deals each, the expert search, the network and where it starts,
the training on the replay window and the evaluation.  docs/training.md,
"Expert iteration", describes every key.
"""

from __future__ import annotations

import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cavallo_env.bots import BotSpecError, make

from .config import (ConfigError, ModelSection, _build, _check_bot, _check_bot_game, _range, _short,
                     check_network_size, check_reward, check_run, read_yaml)

#: the search kinds an expert may be: today's ``ismcts`` (the network as its root bias) and the
#: network-guided ``search`` (the network inside the tree), given the generation's network file
EXPERT_KINDS = ("ismcts", "search")


@dataclass
class ExpertSection:
    # the search that plays the self-play deals; its root visit counts are the policy targets
    search: str = "ismcts:400,root=ucb"
    # ismcts: weight of the network's log-probabilities as the root's progressive bias
    # (reward units: bias = weight * (log p(move) - log p(best)), fading with visits;
    # 0 = the search ignores the network); root=halving only orders ties by it, so use root=ucb
    bias: float = 0.5
    # the policy target: soft * the root visit distribution + (1 - soft) on the move the expert
    # played. 1 = the visits alone (UCB / PUCT roots); a halving root spreads its visits over the
    # moves of its first rounds, so its visits alone are a flattened target (less there)
    soft: float = 1.0
    # what the (soft part of the) policy target is: "visits", the root visit distribution, or
    # "q", the softmax of the root moves' mean rewards (what halving ranks them by) at
    # temperature ``temp`` (the search's reward units: Briscola's 20 card points); ismcts only
    target: str = "visits"
    temp: float = 0.1

    def check(self, where, game: str):
        kind = self.search.partition(":")[0]
        if kind not in EXPERT_KINDS:
            raise ConfigError(f"{where}.search: an {' or '.join(EXPERT_KINDS)} bot spec, got {_short(self.search)}")
        if kind == "ismcts":
            _check_bot(where, "search", self.search)
            try:
                _check_bot_game(self.search, game)
            except ValueError as e:
                raise ConfigError(f"{where}.search: {e}") from None
        else:
            self._check_search(where, game)
        _range(where, "bias", self.bias, 0, 1000)
        _range(where, "soft", self.soft, 0, 1)
        if self.target not in ("visits", "q"):
            raise ConfigError(f"{where}.target: visits or q, got {_short(str(self.target))}")
        if self.target == "q" and kind != "ismcts":
            raise ConfigError(f"{where}.target: q needs an ismcts search (its root means), got {_short(self.search)}")
        _range(where, "temp", self.temp, 0, 1000, lo_open=True)

    def _check_search(self, where, game: str) -> None:
        """A ``search:<game>`` expert: the run gives it each generation's network (``model=``), and a
        time budget would make the self-play depend on the machine (``ms=0`` and ``iterations``)."""
        options = dict(part.partition("=")[::2] for part in self.search.split(",")[1:])
        if "model" in options:
            raise ConfigError(f"{where}.search: no model= option: the run gives the search each generation's network")
        try:
            budget = float(options.get("ms", "60"))
        except ValueError:
            budget = None
        if budget != 0:
            raise ConfigError(f"{where}.search: give ms=0 and iterations=N: a time budget makes the self-play "
                              f"depend on the machine's speed (and --resume could not continue bit for bit), "
                              f"got {_short(self.search)}")
        try:
            make(self.search, seed=0, game=game)
        except (BotSpecError, ValueError) as e:
            raise ConfigError(f"{where}.search: {e}") from None


@dataclass
class LearnSection:
    window: int = 4  # generations of self-play data the network trains on (the replay window)
    epochs: int = 2  # passes over the window each generation
    lr: float = 3e-4  # Adam's step size (Adam's moments carry over from generation to generation)
    minibatch_size: int = 512
    vf_coef: float = 0.5  # weight of the value loss (MSE) beside the policy's cross-entropy
    max_grad_norm: float = 1.0

    def check(self, where):
        _range(where, "window", self.window, 1, 100)
        _range(where, "epochs", self.epochs, 1, 100)
        _range(where, "lr", self.lr, 0, 1, lo_open=True)
        _range(where, "minibatch_size", self.minibatch_size, 1, 1 << 16)
        _range(where, "vf_coef", self.vf_coef, 0, 100)
        _range(where, "max_grad_norm", self.max_grad_norm, 0, 1e6, lo_open=True)


@dataclass
class ExpertEvalSection:
    every: int = 1  # generations between two evaluations (generation 0 and the last are always evaluated)
    deals: int = 200  # duplicate deals per opponent for the network (2 games each)
    expert_deals: int = 100  # the same for the expert search (0: the network only)
    opponents: list[str] = field(default_factory=lambda: ["greedy", "heuristic", "ismcts:1000"])
    seed: int = 12345  # the evaluation deals: fixed, so generations compare
    jobs: int = 2

    def check(self, where, game: str):
        _range(where, "every", self.every, 1, 1_000_000)
        _range(where, "deals", self.deals, 1, 100_000)
        _range(where, "expert_deals", self.expert_deals, 0, 100_000)
        _range(where, "seed", self.seed, 0, 2**63 - 1)
        _range(where, "jobs", self.jobs, 1, 64)
        if not 1 <= len(self.opponents) <= 16:
            raise ConfigError(f"{where}.opponents: 1 to 16 bots, got {len(self.opponents)}")
        for spec in self.opponents:
            _check_bot(where, "opponents", spec)
            try:
                _check_bot_game(spec, game)
            except ValueError as e:
                raise ConfigError(f"{where}.opponents: {e}") from None


@dataclass
class ExpertConfig:
    name: str = "expert"
    game: str = "briscola"
    game_options: dict[str, typing.Any] = field(default_factory=dict)
    generations: int = 10
    deals: int = 200  # self-play deals per generation, the expert in every seat
    jobs: int = 2  # processes playing them (the data is the same for any number)
    seed: int = 0
    threads: int = 1  # torch CPU threads of the training step
    reward: str = "points"  # the value target: points (team point difference / reward_scale) or win (+1/0/-1)
    reward_scale: float = 30.0
    # where the network starts: "scratch" (model below, random weights) or a checkpoint
    # (e.g. checkpoints/briscola.json: its network; model must then be the checkpoint's)
    init: str = "scratch"
    model: ModelSection = field(default_factory=ModelSection)
    expert: ExpertSection = field(default_factory=ExpertSection)
    train: LearnSection = field(default_factory=LearnSection)
    eval: ExpertEvalSection = field(default_factory=ExpertEvalSection)

    def check(self, where="config"):
        game = check_run(self, where)
        for key, top in (("generations", 100_000), ("deals", 100_000), ("jobs", 64), ("threads", 256)):
            _range(where, key, getattr(self, key), 1, top)
        check_reward(self, where)
        self.model.check(f"{where}.model")
        check_network_size(self, where, game.learning())
        if self.init != "scratch" and not self.init.endswith(".json"):
            raise ConfigError(f"{where}.init: scratch or a checkpoint's manifest (<name>.json), got {_short(self.init)}")
        self.expert.check(f"{where}.expert", self.game)
        self.train.check(f"{where}.train")
        self.eval.check(f"{where}.eval", self.game)

    def to_dict(self) -> dict:
        return asdict(self)

    def checked(self, where: str) -> "ExpertConfig":
        self.check(where)
        return self


def from_dict(data, where="config") -> ExpertConfig:
    """An ``ExpertConfig`` from a config's mapping, checked."""
    return _build(ExpertConfig, data, where).checked(where)


def load(path) -> ExpertConfig:
    """Read and validate an expert config; ``ConfigError`` says what is wrong."""
    return from_dict(read_yaml(path), where=Path(path).name)
