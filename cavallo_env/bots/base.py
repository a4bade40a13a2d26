"""The bot interface and the ``make(spec)`` registry."""

from __future__ import annotations

import hashlib
import importlib
import json
import random
from typing import Callable

from ..views import legal_moves_of, move_to_dict


class BotSpecError(ValueError):
    """A bot spec string that names no bot or has a bad argument."""


class Bot:
    """Base class: subclasses implement ``choose_move(view, legal) -> (card, capture)``.

    ``choose`` parses the view's legal moves, asks the subclass, and returns
    the chosen move as a dict that is one of ``view["legal_moves"]``.
    """

    name = "bot"

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> dict:
        legal = legal_moves_of(view)
        if not legal:
            raise ValueError("the view has no legal moves: it is not this seat's turn or the deal is over")
        if len(legal) == 1:
            return move_to_dict(legal[0])
        return move_to_dict(self.choose_move(view, legal))

    def choose_move(self, view: dict, legal: list[tuple]) -> tuple:  # pragma: no cover - interface
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def view_seed(seed, view) -> int:
    """A per-decision seed from the bot seed and what the seat sees.

    Seeding each decision this way keeps random choices reproducible while the
    bot stays stateless: the same view gets the same answer whatever came before.
    """
    key = json.dumps([repr(seed), view.get("seat"), view.get("hand"), view.get("table"), view.get("history")],
                     separators=(",", ":"), sort_keys=True)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


# name -> (module, factory attribute); modules are imported lazily so that e.g.
# the policy bot's onnxruntime is only loaded when asked for.
_REGISTRY: dict[str, tuple[str, str] | Callable] = {
    "random": ("cavallo_env.bots.simple", "RandomBot"),
    "greedy": ("cavallo_env.bots.simple", "GreedyBot"),
    "heuristic": ("cavallo_env.bots.heuristic", "HeuristicBot"),
    "ismcts": ("cavallo_env.bots.ismcts", "from_spec"),
    "policy": ("cavallo_env.bots.policy", "from_spec"),
}


def register(name: str, factory: Callable) -> None:
    """Add a bot kind: ``factory(arg: str | None, seed)`` returns a bot."""
    _REGISTRY[name] = factory


def registered() -> list[str]:
    return sorted(_REGISTRY)


def make(spec: str, seed=None) -> Bot:
    """Build a bot from a spec string such as ``"greedy"`` or ``"ismcts:1000"``."""
    if not isinstance(spec, str) or not spec:
        raise BotSpecError(f"a bot spec must be a non-empty string, got {spec!r}")
    name, _, arg = spec.partition(":")
    entry = _REGISTRY.get(name)
    if entry is None:
        raise BotSpecError(f"unknown bot {name!r} in spec {spec!r}; known: {', '.join(registered())}")
    if isinstance(entry, tuple):
        module, attr = entry
        factory = getattr(importlib.import_module(module), attr)
    else:
        factory = entry
    if isinstance(factory, type):  # a Bot class taking no argument
        if arg:
            raise BotSpecError(f"bot {name!r} takes no argument, got {spec!r}")
        return factory(seed=seed)
    return factory(arg or None, seed)
