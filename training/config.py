"""Training configuration: YAML -> nested dataclasses, validated before anything runs.

Every key of ``configs/*.yaml`` is a field below; an unknown key, a missing
section's wrong type or a bad value raises ``ConfigError`` naming the key path
(``ppo.clip``) and what is allowed.  Defaults are the values of
``configs/cavalloicera.yaml`` unless stated.

Every number has a stated range (``check``), and the file itself has limits
(``read_yaml``): its size, how deep it nests, no duplicated key and no alias.
The sizes that cost memory (the network, deals per rollout, the teacher's
deals, snapshots) are bounded so that a config past them is refused before a
run directory is made, not a failed allocation after.  docs/training.md,
"Config limits", lists them.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cavallo_env import games as game_registry  # `games` is a config field here
from cavallo_env.bots import BotSpecError, make
from cavallo_env.files import read_capped
from cavallo_env.records import short_repr

OPPONENT_KINDS = ("self", "snapshots", "greedy", "heuristic")

#: The largest config file read; a config is a few KiB.
MAX_CONFIG_BYTES = 1 << 20
#: How deep mappings and lists may nest in a config file (the shipped ones nest 3 deep).
MAX_CONFIG_DEPTH = 32
#: The network: at most this many hidden layers, each at most this wide ...
MAX_LAYERS = 8
MAX_WIDTH = 8192
#: ... and at most this many parameters for its game (the shipped Cavalloìcera model, 256-256 with the prior, has 365,983).
MAX_PARAMETERS = 50_000_000
#: Parameters held in memory by a run: the learner, its gradient and the optimizer's two moments
#: (4 copies) and ``league.max_snapshots`` frozen snapshots; 500M float32 parameters are 2 GB.
MAX_HELD_PARAMETERS = 500_000_000


class ConfigError(ValueError):
    """A config file or value that cannot be used; the message names the key."""


@dataclass
class ModelSection:
    """The network (``training.model.PolicyNet``, whose ``ModelConfig`` is this class)."""

    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "relu"  # relu | tanh | gelu
    prior: bool = False  # read the heuristic prior and add it to the logits (cavallo_env.cavalloicera.prior)
    prior_gain: list[float] = field(default_factory=lambda: [1.0, 2.0])  # its initial gains: score, choice

    def check(self, where):
        if len(self.prior_gain) != 2 or not all(math.isfinite(g) and abs(g) <= 1000 for g in self.prior_gain):
            raise ConfigError(f"{where}.prior_gain: two numbers (score, choice) from -1000 to 1000, "
                              f"got {_short(self.prior_gain)}")
        if not self.hidden or len(self.hidden) > MAX_LAYERS or any(not 1 <= h <= MAX_WIDTH for h in self.hidden):
            raise ConfigError(f"{where}.hidden: a non-empty list of 1 to {MAX_LAYERS} layer widths, each 1 to "
                              f"{MAX_WIDTH}, got {_short(self.hidden)}")
        if self.activation not in ("relu", "tanh", "gelu"):
            raise ConfigError(f"{where}.activation: one of relu, tanh, gelu, got {self.activation!r}")

    def parameters(self, obs_size: int, num_actions: int, prior_size: int) -> int:
        """The number of parameters of this network for a game of these sizes (``training.model.PolicyNet``)."""
        width = obs_size + (prior_size if self.prior else 0)
        n = 0
        for h in self.hidden:
            n += (width + 1) * h
            width = h
        return n + (width + 1) * num_actions + (width + 1) + (2 if self.prior else 0)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class PPOSection:
    lr: float = 3e-4
    anneal_lr: bool = True  # linear decay to 0 over the run
    gamma: float = 1.0  # deals are short and rewarded only at the end
    gae_lambda: float = 0.95
    epochs: int = 4
    minibatch_size: int = 2048
    clip: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    max_grad_norm: float = 0.5
    norm_adv: bool = True
    target_kl: typing.Optional[float] = None  # stop the epochs early past this KL
    # "gae": advantages from the policy's value head (GAE); "paired": every deal is played
    # twice with the same seats and opponents, and a team's decisions get its result minus
    # its result in the twin game (the luck of the deal cancels; training.advantages)
    advantage: str = "gae"

    def check(self, where):
        if self.advantage not in ("gae", "paired"):
            raise ConfigError(f"{where}.advantage: gae or paired, got {self.advantage!r}")
        _range(where, "lr", self.lr, 0, 1, lo_open=True)
        _range(where, "gamma", self.gamma, 0, 1)
        _range(where, "gae_lambda", self.gae_lambda, 0, 1)
        _range(where, "epochs", self.epochs, 1, 100)
        _range(where, "minibatch_size", self.minibatch_size, 1, 1 << 16)
        _range(where, "clip", self.clip, 0, 10, lo_open=True)
        _range(where, "vf_coef", self.vf_coef, 0, 100)
        _range(where, "ent_coef", self.ent_coef, 0, 10)
        _range(where, "max_grad_norm", self.max_grad_norm, 0, 1e6, lo_open=True)
        if self.target_kl is not None:
            _range(where, "target_kl", self.target_kl, 0, 10, lo_open=True)


@dataclass
class LeagueSection:
    # Share of the games of a rollout against each kind of opponent:
    # self = the learner on both teams (both trained), snapshots = frozen past
    # copies of the learner (prioritised), greedy / heuristic = the fixed bots.
    mix: dict[str, float] = field(default_factory=lambda: {"self": 0.4, "snapshots": 0.3, "greedy": 0.1, "heuristic": 0.2})
    snapshot_every: int = 10  # updates between two snapshots joining the league
    max_snapshots: int = 12  # the oldest (except the first) leaves when full
    pfsp_power: float = 2.0  # snapshot weight = (1 - learner's score vs it) ** power
    score_decay: float = 0.9  # EMA of the learner's score against each opponent, per rollout

    def check(self, where):
        unknown = sorted(set(self.mix) - set(OPPONENT_KINDS))
        if unknown:
            raise ConfigError(f"{where}.mix: unknown opponent kind(s) {unknown}; known: {', '.join(OPPONENT_KINDS)}")
        for k, v in self.mix.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ConfigError(f"{where}.mix.{k}: a non-negative number, got {v!r}")
        if sum(self.mix.values()) <= 0:
            raise ConfigError(f"{where}.mix: the shares must not all be zero")
        # One order, whatever the order written: the league splits a rollout's games in this
        # order, and a checkpoint's JSON (sorted keys) must give back the same run on --resume.
        self.mix = {k: self.mix[k] for k in OPPONENT_KINDS if k in self.mix}
        _range(where, "snapshot_every", self.snapshot_every, 1, 1_000_000)
        _range(where, "max_snapshots", self.max_snapshots, 1, 64)
        _range(where, "pfsp_power", self.pfsp_power, 0, 100)
        _range(where, "score_decay", self.score_decay, 0, 1)


@dataclass
class EvalSection:
    every: int = 25  # updates between duplicate evaluations (0 = only at the end)
    deals: int = 200  # duplicate deals per opponent (2 games each)
    opponents: list[str] = field(default_factory=lambda: ["greedy", "heuristic"])
    seed: int = 12345  # the evaluation deals (fixed, so points on the curve compare)
    jobs: int = 2
    # a run without a warm start also evaluates its untrained network, as update 0: where its
    # learning curve starts (a warm start is always evaluated)
    untrained: bool = False

    def check(self, where):
        _range(where, "every", self.every, 0, 1_000_000)
        _range(where, "deals", self.deals, 1, 100_000)
        _range(where, "jobs", self.jobs, 1, 64)
        if not 1 <= len(self.opponents) <= 16:
            raise ConfigError(f"{where}.opponents: 1 to 16 bots, got {len(self.opponents)}")
        for spec in self.opponents:
            _check_bot(where, "opponents", spec)


@dataclass
class PretrainSection:
    # Warm start (training.warmstart): imitate `teacher` on `games` deals it
    # plays in every seat, then self-play PPO.  0 = start from scratch.
    games: int = 0
    teacher: str = "heuristic"
    epochs: int = 4
    lr: float = 1e-3
    minibatch_size: int = 1024
    jobs: int = 1  # processes playing the teacher's deals (a search teacher is slow)
    # with a search teacher (ismcts): weight of its root visit counts in the imitation
    # target, the rest on the move it plays (0 = imitate the move only)
    soft: float = 0.0
    anneal_lr: bool = False  # the imitation's step size falls linearly to 0 over its epochs
    # after the imitation, multiply the policy's logits by this (its head and prior gains):
    # the same argmax, a sharper policy for PPO to sample from (1 = unchanged)
    sharpen: float = 1.0
    # folder keeping the teacher's decisions, shared by runs with the same deals and
    # settings (null: the run's own teacher/; a relative path is from where `cavallo train`
    # runs); blocks are keyed, a mismatch is replayed
    cache: typing.Optional[str] = None

    def check(self, where):
        _range(where, "games", self.games, 0, 20_000)
        _range(where, "jobs", self.jobs, 1, 64)
        _range(where, "soft", self.soft, 0, 1)
        _range(where, "epochs", self.epochs, 1, 1000)
        _range(where, "lr", self.lr, 0, 1, lo_open=True)
        _range(where, "minibatch_size", self.minibatch_size, 1, 1 << 16)
        _range(where, "sharpen", self.sharpen, 0, 100, lo_open=True)
        if self.cache is not None and not self.cache.strip():
            raise ConfigError(f"{where}.cache: must be a folder path or null, got {self.cache!r}")
        _check_bot(where, "teacher", self.teacher)


@dataclass
class TrainConfig:
    name: str = "default"
    # the game trained (cavallo_env.games) and its deal options (deck; Scopa: match)
    game: str = game_registry.DEFAULT_GAME
    game_options: dict[str, typing.Any] = field(default_factory=dict)
    seed: int = 0
    device: str = "auto"  # auto | cpu | cuda | cuda:N
    threads: int = 1  # torch CPU threads (1 is fastest on a small shared CPU)
    prior_workers: int = 0  # extra processes computing the heuristic prior in rollouts (rollout.PriorWorkers)
    updates: int = 400  # PPO updates; each plays `games` deals in lockstep first
    games: int = 256  # deals per rollout, stepped in lockstep with batched inference
    reward: str = "points"  # points | win (docs/contract.md)
    reward_scale: float = 10.0  # "points" rewards are divided by this
    checkpoint_every: int = 10  # updates between checkpoints (the last one is always written)
    model: ModelSection = field(default_factory=ModelSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    league: LeagueSection = field(default_factory=LeagueSection)
    eval: EvalSection = field(default_factory=EvalSection)
    pretrain: PretrainSection = field(default_factory=PretrainSection)

    def check(self, where="config"):
        game = check_run(self, where)
        if not (self.device in ("auto", "cpu", "cuda") or (self.device.startswith("cuda:") and self.device[5:].isdigit())):
            raise ConfigError(f"{where}.device: auto, cpu, cuda or cuda:N, got {self.device!r}")
        _range(where, "threads", self.threads, 1, 256)
        _range(where, "prior_workers", self.prior_workers, 0, 16)
        _range(where, "updates", self.updates, 1, 1_000_000)
        _range(where, "games", self.games, 1, 4096)
        if self.ppo.advantage == "paired" and self.games % 2:
            raise ConfigError(f"{where}.games: ppo.advantage paired plays every deal twice, so games must be even, got {self.games}")
        check_reward(self, where)
        _range(where, "checkpoint_every", self.checkpoint_every, 1, 1_000_000)
        self.model.check(f"{where}.model")
        self.ppo.check(f"{where}.ppo")
        self.league.check(f"{where}.league")
        self.eval.check(f"{where}.eval")
        self.pretrain.check(f"{where}.pretrain")
        self._check_memory(where, game.learning())
        for key, spec in [("eval.opponents", s) for s in self.eval.opponents] + [("pretrain.teacher", self.pretrain.teacher)]:
            try:
                _check_bot_game(spec, self.game)
            except ValueError as e:
                raise ConfigError(f"{where}.{key}: {e}") from None

    def _check_memory(self, where, learning) -> None:
        """The network's parameters for the game, and those a run holds, within the stated bounds."""
        n = check_network_size(self, where, learning)
        held = (4 + self.league.max_snapshots) * n
        if held > MAX_HELD_PARAMETERS:
            raise ConfigError(f"{where}.league.max_snapshots: {self.league.max_snapshots} snapshots of a network of "
                              f"{n:,} parameters, with the learner, its gradient and optimizer, hold {held:,} "
                              f"parameters, more than {MAX_HELD_PARAMETERS:,}; keep fewer snapshots or a smaller "
                              "model.hidden")

    def to_dict(self) -> dict:
        return asdict(self)


def check_run(cfg, where: str):
    """The ``name``, ``game``, ``game_options`` and ``seed`` of a run's config (``TrainConfig``,
    ``training.expert_config.ExpertConfig``); returns the game."""
    if not cfg.name or len(cfg.name) > 100 or not all(c.isalnum() or c in "-_." for c in cfg.name):
        raise ConfigError(f"{where}.name: 1 to 100 letters, digits, '-', '_' or '.', got {_short(cfg.name)}")
    try:
        game = game_registry.get(cfg.game)
        game.check_options(cfg.game_options)
    except ValueError as e:
        raise ConfigError(f"{where}.{'game' if cfg.game not in game_registry.names() else 'game_options'}: {e}") from None
    _range(where, "seed", cfg.seed, 0, 2**63 - 1)
    return game


def check_reward(cfg, where: str) -> None:
    """A run's ``reward`` (points or win) and ``reward_scale`` (> 0)."""
    if cfg.reward not in ("points", "win"):
        raise ConfigError(f"{where}.reward: points or win, got {cfg.reward!r}")
    _range(where, "reward_scale", cfg.reward_scale, 0, 1e6, lo_open=True)


def check_network_size(cfg, where: str, learning) -> int:
    """The parameters of ``cfg.model``'s network for the game (``learning``: its sizes), at most
    ``MAX_PARAMETERS``; returns them."""
    n = cfg.model.parameters(learning.obs_size, learning.num_actions, learning.prior_size)
    if n > MAX_PARAMETERS:
        raise ConfigError(f"{where}.model.hidden: {_short(cfg.model.hidden)} makes a network of {n:,} parameters "
                          f"for {cfg.game}, more than {MAX_PARAMETERS:,}")
    return n


# ---------------------------------------------------------------- building from dicts


def _check_bot(where, key, spec):
    try:
        make(spec, seed=0)
    except BotSpecError as e:
        raise ConfigError(f"{where}.{key}: {e}") from None


def _check_bot_game(spec: str, game: str) -> None:
    """A bot spec that plays ``game`` (``make(spec, game=game)``); ``ValueError`` otherwise."""
    make(spec, seed=0, game=game)


#: the last commit with the options of ``REMOVED`` but ``model.mask_input`` (docs/training.md, "Measured and removed")
REMOVED_AFTER = "edb6454"
#: the last commit with ``model.mask_input`` (docs/experiments/mask-input.md)
MASK_INPUT_LAST = "36c2912"
#: options that measured no gain and left the code: key -> (the value that means "off", what it was,
#: the last commit that has it).  Configs and checkpoints written before may still carry them at that value.
REMOVED = {
    "shaping": (0.0, "potential-based reward shaping", REMOVED_AFTER),
    "model.members": (1, "EnsembleNet, an ensemble of imitation students", REMOVED_AFTER),
    "model.mask_input": (False, "mask_input, the legal-action mask fed to the network's body", MASK_INPUT_LAST),
    "ppo.critic": ("policy", "StateCritic, a centralised critic that saw the hidden hands", REMOVED_AFTER),
    "ppo.critic_hidden": (None, "StateCritic's layer widths", REMOVED_AFTER),
    "pretrain.dagger_rounds": (0, "DAgger rounds after the imitation", REMOVED_AFTER),
    "pretrain.dagger_games": (None, "DAgger", REMOVED_AFTER),
    "pretrain.dagger_opponent": (None, "DAgger", REMOVED_AFTER),
    "pretrain.dagger_epochs": (None, "DAgger", REMOVED_AFTER),
}


def drop_removed(data: dict, where: str) -> dict:
    """``data`` (a config's mapping) without the ``REMOVED`` options, which may only hold their "off" value."""
    data = dict(data)
    for path, (off, what, last) in REMOVED.items():
        *sections, key = path.split(".")
        node = data
        for sec in sections:
            node = node.get(sec) if isinstance(node, dict) else None
        if not isinstance(node, dict) or key not in node:
            continue
        if off is not None and node[key] != off:
            raise ConfigError(f"{where}.{path}: {what} measured no gain and was removed after commit "
                              f"{last} (docs/training.md, \"Measured and removed\"); drop the key, or train "
                              f"with commit {last}")
        # copy the section before removing the key (the caller's dict stays as it was)
        parent = data
        for sec in sections:
            parent[sec] = dict(parent[sec])
            parent = parent[sec]
        del parent[key]
    return data


def _short(value, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a config value may be long)."""
    return short_repr(value, limit)


def _range(where, key, v, lo, hi, lo_open=False):
    if not (lo < v if lo_open else lo <= v) or not v <= hi:
        raise ConfigError(f"{where}.{key}: must be {'>' if lo_open else '>='} {lo} and <= {hi}, got {_short(v)}")


def _coerce(value, tp, where):
    """Check ``value`` against the annotation ``tp`` (ints are accepted for floats)."""
    origin = typing.get_origin(tp)
    if origin is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return _coerce(value, args[0], where)
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, where)
    if origin is list:
        (item,) = typing.get_args(tp)
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        return [_coerce(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        kt, vt = typing.get_args(tp)
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping, got {value!r}")
        return {_coerce(k, kt, f"{where} key"): _coerce(v, vt, f"{where}.{k}") for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads "3e-4" as a string
            try:
                value = float(value)
            except ValueError:
                raise ConfigError(f"{where}: expected a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ConfigError(f"{where}: expected a finite number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    if tp is typing.Any:  # a game option: checked by the game (Game.check_options)
        if not isinstance(value, (str, bool, int, float)):
            raise ConfigError(f"{where}: expected a plain value (text, number, true/false), got {value!r}")
        return value
    raise TypeError(f"unsupported config annotation {tp!r}")  # pragma: no cover - programming error


def _build(cls, data, where):
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of keys to values, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in data if k not in names]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(names)}")
    kwargs = {k: _coerce(v, hints[k], f"{where}.{k}") for k, v in data.items()}
    return cls(**kwargs)


def from_dict(data, where="config") -> TrainConfig:
    if isinstance(data, dict):
        data = drop_removed(data, where)
    cfg = _build(TrainConfig, data, where)
    cfg.check(where)
    return cfg


def _config_loader():
    """``yaml.SafeLoader`` made strict for configs (built on first use: yaml is imported late).

    It refuses a key written twice in one mapping (naming it and both lines),
    an alias (``*name``: a config writes its values out, so the limits below
    hold for what is read) and mappings or lists nested deeper than
    ``MAX_CONFIG_DEPTH``.  The depth is counted as nodes are composed, so a
    deep file is refused before PyYAML's recursive composer could overflow
    the stack.  Problems are ``yaml.MarkedYAMLError`` with the line.
    """
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml  # lazy: pyyaml, the optional train extra
    from yaml.composer import ComposerError  # lazy: pyyaml
    from yaml.constructor import ConstructorError  # lazy: pyyaml

    class ConfigLoader(yaml.SafeLoader):
        def __init__(self, stream):
            super().__init__(stream)
            self.depth = 0

        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise ComposerError(None, None, f"an alias (*{event.anchor}): a config writes each value out",
                                    event.start_mark)
            nested = isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))
            if nested:
                self.depth += 1
                if self.depth > MAX_CONFIG_DEPTH:
                    raise ComposerError(None, None, f"nested more than {MAX_CONFIG_DEPTH} levels deep",
                                        event.start_mark)
            try:
                return super().compose_node(parent, index)
            finally:
                if nested:
                    self.depth -= 1

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":  # its keys could hide a duplicate
                        raise ConstructorError(None, None, "a merge key (<<): a config writes each key out once",
                                               key_node.start_mark)
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.setdefault((type(key), key), key_node.start_mark.line)
                    except TypeError:
                        continue  # an unhashable key: SafeLoader says so
                    if first != key_node.start_mark.line:
                        raise ConstructorError(None, None, f"duplicate key {_short(key)} (first at line {first + 1})",
                                               key_node.start_mark)
            return super().construct_mapping(node, deep)

    _LOADER = ConfigLoader
    return _LOADER


_LOADER = None


def read_yaml(path):
    """The data of a YAML config file; ``ConfigError`` in one line if it cannot be one.

    Missing, larger than ``MAX_CONFIG_BYTES``, binary (a NUL byte), not UTF-8,
    not YAML, or refused by ``_config_loader`` (a duplicated key, an alias,
    nesting deeper than ``MAX_CONFIG_DEPTH``): each names the file and, where
    there is one, the line.
    """
    import yaml  # lazy: pyyaml, the optional train extra

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    raw = read_capped(path, MAX_CONFIG_BYTES, "not a config (a config is a few KiB)", ConfigError)
    nul = raw.find(b"\0")
    if nul >= 0:
        raise ConfigError(f"{path}: a binary file (a NUL byte at byte {nul}), not a YAML config")
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_config_loader())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{path}: not valid YAML{where}: {problem}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not a text file ({e.reason} at byte {e.start})") from None
    except RecursionError:  # not expected past the depth check; still one line, never a traceback
        raise ConfigError(f"{path}: nested too deeply for a config") from None
    except ValueError as e:  # an integer of more than 4300 digits (Python's limit)
        raise ConfigError(f"{path}: not a usable value ({str(e).split(';')[0]})") from None
    if data is None:  # an empty file (or only comments) would silently be every default
        raise ConfigError(f"{path}: the config is empty; start from one in configs/, e.g. configs/quick-cavalloicera.yaml")
    return data


def load(path) -> TrainConfig:
    """Read and validate a YAML config; ``ConfigError`` says what is wrong."""
    return from_dict(read_yaml(path), where=Path(path).name)


def dump(cfg) -> str:
    """Any run's config (``TrainConfig``, the expert's, the RLlib backend's) as the YAML it was read from."""
    import yaml  # lazy: pyyaml, the optional train extra

    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)
