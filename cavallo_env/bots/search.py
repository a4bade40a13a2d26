"""``search:<game>``: the network-guided search, each game's strong AI (docs/bots.md).

The information-set search of ``ismcts`` (one tree over the determinizations
of what the seat has not seen, dealt by today's inference) run in the
compiled core, guided by the game's policy network as AlphaZero and Expert
Iteration do: the network's policy (softmax over the legal moves) is the
prior of every node, PUCT picks the moves down the tree (``Q + c_puct * P *
sqrt(avail) / (1 + visits)``), and a position where the tree stops is valued
by the network's value head, by the search's rollout and evaluation, or a
mix (``lambda``); positions the game can solve exactly (Briscola: at most
one card left in the stock) are solved.  The network runs in C
(core/mlp.c), float32, from the weights of an exported ``.onnx`` or a
training checkpoint, checked against the game's ``Learning``.

Specs (``cavallo_env.bots.make``): ``search:<game>`` (a game with a search in
the core: Briscola, Cavalloìcera, Scopa) and ``search:default`` (the view's game), options after
commas: ``ms`` (the time budget of a decision: milliseconds of the CPU time
of the thread that searches, so a busy machine searches as far as an idle one,
default 60; 0: none, the search runs ``iterations``), ``wall_ms`` (the
wall-clock milliseconds after which a search with a time budget stops all
the same, default 800: the view's checks come on top, and a decision stays
under 1 s; with ``ms=0`` only ``iterations`` bounds it),
``iterations`` (most iterations a decision, default 20000, at most 100000:
the tree holds at most eight nodes an iteration, about 100 bytes each with
its share of the hash table, so under 80 MB; Cavalloìcera's at most
200,000 nodes), ``model`` (an exported ``.onnx``, or a checkpoint:
its ``.json`` manifest or a folder holding ``last.json``; default the game's
shipped model), ``c_puct`` (default 2.0; Cavalloìcera 1), ``root``
(``puct``: the move visited most, or ``halving``: sequential halving's best
mean, Scopa's default), ``leaf`` (``value``, ``rollout``
or ``mix``, default ``mix``) and ``lambda`` (the value head's weight in a
mixed leaf, default 0.5), ``temp`` (the prior's softmax temperature, default
1; Cavalloìcera 3), ``fpu`` (the value of a move not visited yet, in reward units, default
0), ``fpu_base`` (``zero``, or ``parent``, Briscola's default: then such a
move counts the mean of its position's visited moves plus ``fpu``) and the
options of the game's ``ismcts`` search (Briscola: ``rollout``,
``epsilon``, ``win``, ``infer``; Cavalloìcera: ``rollout``, ``epsilon``,
``infer``, ``hand``; Scopa: ``epsilon``, ``lookahead``, ``infer``
and ``opponent``, its ``ismcts`` option ``model``, renamed as ``model`` names
the network; ``reward``, ``scale``, ``depth``).
Example: ``search:briscola,ms=100,model=runs/x/checkpoints/last.json``.

A decision is seeded from the bot's seed and the view; with ``ms=0`` the
same view always gets the same move, with a time budget the number of
iterations (so the move) depends on the machine's speed.
"""

from __future__ import annotations

import math
import random
import time
from array import array
from pathlib import Path

import numpy as np

from .. import core, games
from ..budget import OverBudget, check, remaining
from .base import Bot, BotSpecError, PerGameBot, decision_start
from .policy import ModelError, _fields, _varint, shipped_model, verify_model

MAX_ITERATIONS = 100_000
LEAVES = {"value": 1.0, "rollout": 0.0}
#: the root: PUCT as below it (the card visited most), or sequential halving (the best mean)
ROOTS = {"puct": "ucb", "halving": "halving"}
#: what a move not visited yet counts, ``fpu`` added: 0, or the mean of its position's visited moves
FPU_BASES = ("zero", "parent")
#: the generic options and their defaults
DEFAULTS = {"ms": 60.0, "iterations": 20_000, "c_puct": 2.0, "leaf": "mix", "lambda": 0.5, "temp": 1.0, "fpu": 0.0,
            "fpu_base": "zero", "reward": "points", "scale": None, "depth": None, "value_scale": None, "root": "puct",
            "wall_ms": 800.0}
#: a game's own defaults over the generic ones (docs/bots.md). Cavalloìcera: its network's policy is peaked,
#: the top move 0.98 at the median position, so at temperature 1 the search hardly leaves it; and c_puct 1
#: scored 57.1% against ismcts:1000 on 1,000 duplicate deals where 2 scored 55.4%. Scopa: sequential halving
#: at the root scored 49.2%, -0.02 points a game, against ismcts:1000 on 2,000 single deals where PUCT's
#: root scored 47.8%, -0.16. Briscola: a move not visited yet counting its position's mean (fpu_base=parent)
#: scored 54.8%, +2.67 points a game, against ismcts:1000 on 2,000 duplicate deals where fpu_base=zero
#: scored 53.6%, +2.36.
GAME_DEFAULTS = {"cavalloicera": {"temp": 3.0, "c_puct": 1.0}, "scopa": {"root": "halving"},
                 "briscola": {"fpu_base": "parent"}}


# -- the network: weights from an exported .onnx or a checkpoint, checked against the game -----------------

def _tensor(buf) -> tuple[str, np.ndarray]:
    """``(name, float32 array)`` of an ONNX TensorProto stored as raw float32 data."""
    name, dims, dtype, raw = "", [], None, None
    for field, wire, value in _fields(buf):
        if field == 1:
            dims += [value] if wire == 0 else _packed(value)
        elif field == 2 and wire == 0:
            dtype = value
        elif field == 8 and wire == 2:
            name = bytes(value).decode("utf-8", "replace")
        elif field == 9 and wire == 2:
            raw = bytes(value)
    if dtype != 1 or raw is None:
        return name, None
    return name, np.frombuffer(raw, "<f4").reshape(dims).astype(np.float32)


def _packed(value) -> list:
    out, i = [], 0
    while i < len(value):
        v, i = _varint(value, i)
        out.append(v)
    return out


def onnx_weights(data: bytes) -> tuple[dict, list]:
    """The float32 initializers of an exported PolicyNet (by name) and the names of the scalar
    initializers its ``Mul`` nodes read, in graph order (the prior gains, score then choice)."""
    tensors, muls = {}, []
    for field, wire, graph in _fields(memoryview(data)):
        if field != 7 or wire != 2:
            continue
        for f, w, value in _fields(graph):
            if f == 5 and w == 2:
                name, arr = _tensor(value)
                if arr is not None:
                    tensors[name] = arr
            elif f == 1 and w == 2:
                node = {}
                for nf, nw, nv in _fields(value):
                    if nw == 2 and nf in (1, 4):
                        node.setdefault(nf, []).append(bytes(nv).decode("utf-8", "replace"))
                if node.get(4) == ["Mul"]:
                    muls += node.get(1, [])
    return tensors, [m for m in muls if m in tensors and tensors[m].size == 1]


def _layers(tensors: dict, prefix: str, where) -> tuple[list, tuple, tuple]:
    layers, k = [], 0
    while f"{prefix}body.{k}.weight" in tensors:
        layers.append((tensors[f"{prefix}body.{k}.weight"], tensors[f"{prefix}body.{k}.bias"]))
        k += 2
    try:
        heads = tuple((tensors[f"{prefix}{h}.weight"], tensors[f"{prefix}{h}.bias"]) for h in ("policy", "value"))
    except KeyError as e:
        raise ModelError(f"{where}: not a PolicyNet: no tensor {e}") from None
    if not layers:
        raise ModelError(f"{where}: not a PolicyNet: no hidden layer body.0")
    return layers, heads[0], heads[1]


def _from_onnx(path: Path):
    meta, data = verify_model(path)  # the sidecar, the sha256 and finite weights
    tensors, gains = onnx_weights(data)
    model = meta.get("model") or {}
    config = meta.get("training_config") or {}
    gain_values = [float(tensors[g].reshape(-1)[0]) for g in gains]
    return tensors, "", gain_values, model, config, meta.get("game", games.DEFAULT_GAME)


def _from_checkpoint(path: Path):
    # lazy: torch is the training extra, needed only to read a training checkpoint
    from training import checkpoint

    if path.is_dir():
        path = path / "last.json"
    try:
        tensors, meta = checkpoint.load(path)
    except checkpoint.CheckpointError as e:
        raise ModelError(str(e)) from None
    arrays = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in tensors.items() if k.startswith("model.")}
    config = meta.get("config") or {}
    gains = arrays.get("model.prior_gain")
    return arrays, "model.", [] if gains is None else [float(g) for g in gains], config.get("model") or {}, \
        config, meta.get("game", games.DEFAULT_GAME)


def load_network(model, game: str):
    """``(Network, value_scale, name)`` of a model for ``game``: an exported ``.onnx`` (its
    sidecar beside it) or a training checkpoint (``.json`` manifest, ``.safetensors`` or a folder
    with ``last.json``), verified, its sizes those of the game's ``Learning``; ``ModelError``
    saying what is wrong otherwise."""
    path = Path(model).expanduser()
    if not path.exists():
        raise ModelError(f"{path}: model not found (an exported .onnx or a checkpoint)")
    load = _from_onnx if path.suffix == ".onnx" else _from_checkpoint
    tensors, prefix, gains, model_cfg, config, model_game = load(path)
    if model_game != game:
        raise ModelError(f"{path}: a model of {model_game}, not {game}")
    learning = games.get(game).learning()
    layers, policy, value = _layers(tensors, prefix, path)
    prior_size = learning.prior_size if gains else 0
    want = (learning.obs_size + prior_size, learning.num_actions)
    if layers[0][0].shape[1] != want[0] or policy[0].shape[0] != want[1]:
        raise ModelError(f"{path}: the network takes {layers[0][0].shape[1]} inputs and plays {policy[0].shape[0]} "
                         f"actions; {game}'s are {want[0]} (observation{' + prior' if gains else ''}) and {want[1]}")
    try:
        net = core.extension(game).Network(layers, policy, value, gains or None, model_cfg.get("activation", "relu"),
                                           learning.obs_size, prior_size)
    except ValueError as e:
        raise ModelError(f"{path}: {e}") from None
    return net, _value_scale(config, path), str(path)


def _value_scale(config: dict, where) -> float:
    """Points of one unit of the value head: the training's reward_scale (its value target is the
    team's final point difference over it, training/advantages.py)."""
    if config.get("reward", "points") != "points":
        raise ModelError(f"{where}: trained with reward {config.get('reward')!r}: its value head predicts no point "
                         "difference; pass value_scale= to say how many points one unit is")
    return float(config.get("reward_scale", 10.0))


# -- the games: what each game's search in the core takes --------------------------------------------------

def _briscola(base, hooks, net, options: dict, seed: int, seconds: float, budget: tuple) -> tuple:
    """Briscola's decision: today's inference deals the other hand (``BriscolaSearch``)."""
    inferred = hooks._inference(base, 1 - base.current)
    weights = array("d", inferred[0]) if inferred is not None else None
    options = dict(options, epsilon=hooks.epsilon, rollout=hooks.policy, win=hooks.win)
    return core.extension("briscola").net_search(base, net, options, weights, seed, seconds, *budget)


#: Cavalloìcera's node cap: a position of thousands of moves gives every legal move a node when first met
CAVALLOICERA_MAX_NODES = 200_000


def _cavalloicera(base, hooks, net, options: dict, seed: int, seconds: float, budget: tuple) -> tuple:
    """Cavalloìcera's decision: today's inference (the ranks each seat likely lacks) leans the deals."""
    missing = hooks._missing(base, base.current)
    masks = None if missing is None else [sum(1 << r for r in missing.get(s, ())) for s in range(4)]
    options = dict(options, rollout=hooks.rollout_name, epsilon=hooks.epsilon, hand=hooks.hand_p, infer=hooks.infer,
                   max_nodes=CAVALLOICERA_MAX_NODES)
    index, visits = core.extension("cavalloicera").net_search(base, net, options, masks, seed, seconds, *budget)
    legal = base.legal_moves()
    return None if index is None else legal[index], dict(zip(legal, visits))


def _scopa(base, hooks, net, options: dict, seed: int, seconds: float, budget: tuple) -> tuple:
    """Scopa's decision: the other hand dealt from the hands the inference weighs, each with the kind of
    player the other seat is taken for (``ScopaSearch.core_deals``, drawn from the decision's seed)."""
    start = time.perf_counter()
    deals = hooks.core_deals(base, random.Random(seed))  # the weighing: its time counts against the wall cap
    cpu, wall = budget
    wall = max(wall - (time.perf_counter() - start), 1e-3) if cpu > 0 else wall
    options = dict(options, epsilon=hooks.epsilon, lookahead=hooks.lookahead, model=hooks.model)
    index, visits = core.extension("scopa").net_search(base, net, options, deals, seed, seconds, cpu, wall)
    legal = base.legal_moves()
    return (None if index is None else legal[index]), dict(zip(legal, visits))


#: the games whose search runs in the core with a network, and how a decision calls it
SEARCHES = {"briscola": _briscola, "cavalloicera": _cavalloicera, "scopa": _scopa}


def _check(options: dict) -> None:
    o = options
    if not (isinstance(o["ms"], (int, float)) and 0 <= o["ms"] <= 60_000):
        raise BotSpecError(f"search ms must be a number of milliseconds in 0..60000 (0: no time budget), "
                           f"got {o['ms']!r}")
    if not (isinstance(o["wall_ms"], (int, float)) and 1 <= o["wall_ms"] <= 60_000):
        raise BotSpecError(f"search wall_ms must be a number of milliseconds in 1..60000, got {o['wall_ms']!r}")
    if not 1 <= o["iterations"] <= MAX_ITERATIONS:
        raise BotSpecError(f"search iterations must be an int in 1..{MAX_ITERATIONS}, got {o['iterations']!r}")
    for key in ("c_puct", "temp", "scale", "value_scale"):
        if o[key] is not None and not (math.isfinite(o[key]) and o[key] > (0 if key != "c_puct" else -1e-300)):
            raise BotSpecError(f"search {key} must be a finite number > 0{'' if key != 'c_puct' else ' (or 0)'}, "
                               f"got {o[key]!r}")
    if o["leaf"] not in (*LEAVES, "mix"):
        raise BotSpecError(f"unknown search leaf {o['leaf']!r}; known: value, rollout, mix")
    if not 0.0 <= o["lambda"] <= 1.0:
        raise BotSpecError(f"search lambda must be in 0..1, got {o['lambda']!r}")
    if not (math.isfinite(o["fpu"]) and abs(o["fpu"]) <= 10):
        raise BotSpecError(f"search fpu must be a number in -10..10, got {o['fpu']!r}")
    if o["fpu_base"] not in FPU_BASES:
        raise BotSpecError(f"unknown search fpu_base {o['fpu_base']!r}; known: {', '.join(FPU_BASES)}")
    if o["root"] not in ROOTS:
        raise BotSpecError(f"unknown search root {o['root']!r}; known: {', '.join(ROOTS)}")
    if o["reward"] not in ("points", "win", "mixed"):
        raise BotSpecError(f"unknown search reward {o['reward']!r}; known: points, win, mixed")
    if o["depth"] is not None and not 0 <= o["depth"] <= 40:
        raise BotSpecError(f"search depth must be an int in 0..40, got {o['depth']!r}")


def _game_options(game: str, options: dict, where: str | None = None) -> tuple[dict, object]:
    """The generic options of ``game``'s search (its defaults, then the spec's), checked, and its
    search hooks built from the spec's other options; ``BotSpecError`` naming a bad one."""
    generic = dict(DEFAULTS, **GAME_DEFAULTS.get(game, {}))
    generic.update({k: v for k, v in options.items() if k in DEFAULTS})
    _check(generic)
    own = {_OWN_NAME.get(k, k): v for k, v in options.items() if k not in DEFAULTS}
    try:
        return generic, games.get(game).search(**own)
    except (TypeError, ValueError) as e:
        message = str(e)
        for spelled, internal in _OWN_NAME.items():  # the option as the spec spells it
            message = message.replace(f"'{internal}'", f"'{spelled}'").replace(f" {internal} ", f" {spelled} ")
        raise BotSpecError(f"{where or f'search:{game}'}: {message}") from None


class SearchBot(Bot):
    """``search:<game>``: the network-guided search of one game (see the module doc)."""

    def __init__(self, game: str, seed=None, model=None, name: str | None = None, **options):
        super().__init__(seed)
        if game not in SEARCHES:
            raise BotSpecError(f"search:{game}: {games.get(game).title} has no network-guided search in the core yet; "
                               f"games with one: {', '.join(SEARCHES)} (ismcts:1000 plays every game)")
        core.require()
        self.game = game
        self.options, self.hooks = _game_options(game, options)
        self.net, value_scale, self.model = load_network(model or shipped_model(game), game)
        o = self.options
        self.settings = {"iterations": o["iterations"], "c": 0.0, "reward": o["reward"],
                         "scale": o["scale"] or self.hooks.scale,
                         "depth": self.hooks.depth if o["depth"] is None else o["depth"],
                         "c_puct": o["c_puct"], "temp": o["temp"], "fpu": o["fpu"],
                         "fpu_base": o["fpu_base"],
                         "lambda": LEAVES.get(o["leaf"], o["lambda"]),
                         "value_scale": o["value_scale"] or value_scale, "root": ROOTS[o["root"]]}
        self.name = name or f"search:{game}"

    def choose_move(self, view, legal):
        return self.move_and_visits(view, legal)[0]

    def move_and_visits(self, view, legal) -> tuple:
        """The move and the root visits of every legal move (what expert iteration learns from)."""
        game, rng, base = decision_start(self.seed, view, self.game)
        root_legal = base.legal_moves()
        if set(root_legal) != set(legal):
            raise ValueError("the view's legal moves disagree with the rules for its position")
        if len(root_legal) == 1:
            return root_legal[0], {root_legal[0]: 1}
        left = remaining()
        move, counts = SEARCHES[self.game](base, self.hooks, self.net, self.settings, rng.getrandbits(64),
                                           0.0 if left is None else max(left, 1e-9),
                                           (self.options["ms"] / 1000.0, self.options["wall_ms"] / 1000.0))
        if move is None:
            check()
            raise OverBudget("the search passed its deadline")
        return move, {m: counts[m] for m in root_legal}

    @property
    def info(self) -> dict:
        return {"name": self.name, "game": self.game, "model": self.model, "options": dict(self.options)}


class DefaultSearch(PerGameBot):
    """``search:default``: the search of the view's game, each built on first use."""

    def __init__(self, seed=None, name: str = "search:default", **options):
        super().__init__(name, seed)
        self.options = options
        # every game's options checked now, not at the game's first decision
        for game in SEARCHES:
            _game_options(game, {k: v for k, v in options.items() if k != "model"},
                          f"{name} ({games.get(game).title}'s search; an option of one game only needs "
                          f"search:<game>)")

    def for_game(self, game_name: str) -> SearchBot:
        bot = self._bots.get(game_name)
        if bot is None:
            bot = self._bots[game_name] = SearchBot(game_name, seed=self.seed, name=f"{self.name} ({game_name})",
                                                    **self.options)
        return bot


#: a game's own search option named as one of search's takes another name here: Scopa's opponent model
#: (``ismcts``' ``model``) is ``opponent``, as ``model`` names the network
RENAMED = {"model": "opponent"}
_OWN_NAME = {v: k for k, v in RENAMED.items()}

_PARSE = {"ms": float, "iterations": int, "c_puct": float, "lambda": float, "temp": float, "fpu": float,
          "scale": float, "depth": int, "value_scale": float, "leaf": str, "reward": str, "model": str, "root": str,
          "fpu_base": str, "wall_ms": float}


def _parse(pieces: list, spec: str, game_options: dict) -> dict:
    out = {}
    for part in pieces:
        k, sep, v = part.partition("=")
        k, v = k.strip(), v.strip()
        if not sep or not k:
            raise BotSpecError(f"search option {part!r} in {spec!r} must look like key=value (e.g. ms=100)")
        entry = _PARSE.get(k) or game_options.get(k)
        if entry is None:
            raise BotSpecError(f"unknown search option {k!r} in {spec!r}; known: "
                               f"{', '.join(sorted(_PARSE))} and the game's own ({', '.join(sorted(game_options))})")
        attr, parse = (k, entry) if k in _PARSE else entry
        try:
            out[attr] = parse(v)
        except ValueError:
            raise BotSpecError(f"search option {k}={v!r} in {spec!r} is not a number") from None
    return out


def from_spec(arg, seed=None, game: str | None = None):
    """Build from the text after ``search:``: ``<game>`` or ``default``, then options."""
    if arg is None or not str(arg).strip():
        raise BotSpecError("search needs a game: 'search:default' or 'search:<game>' (e.g. search:briscola)")
    first, *pieces = str(arg).split(",")
    which = first.strip()
    spec = f"search:{arg}"
    if which != "default" and which not in games.names():
        raise BotSpecError(f"{spec}: search:<game> names a game ({', '.join(games.names())}) or default")
    target = game if which == "default" else which
    game_options = {}
    for name in [target] if target else list(SEARCHES):
        for key, (attr, parse) in getattr(type(games.get(name).search()), "OPTIONS", {}).items():
            game_options[RENAMED.get(key, key)] = (RENAMED.get(attr, attr), parse)
    options = _parse(pieces, spec, game_options)
    if target is None:
        return DefaultSearch(seed=seed, name=f"search:{arg}", **options)
    if game is not None and target != game:
        raise BotSpecError(f"{spec} plays {target}, not {game}")
    return SearchBot(target, seed=seed, name=f"search:{arg}", **options)
