"""``checkpoint:<path>``: a bot that plays a training checkpoint without an export.

It rebuilds the network the checkpoint describes (``training.export.
load_policy_net``, the same ``PolicyNet.forward`` that training runs and the
ONNX export is made of: one forward pass), rebuilds the game from the view
(``state_from_view``; the observation holds nothing hidden, so where the
unseen cards are placed does not matter) and plays the most probable legal
action one step at a time through the game's action space
(``cavallo_env.games.learning.decide_move``, shared with the ``policy:``
runtime) until a whole move is chosen.  Importing this module registers the
``checkpoint`` bot kind.  The shipped in-game AI is the ONNX export
(``policy:<path>``), which needs no torch.
"""

from __future__ import annotations

import random
from pathlib import Path

from cavallo_env.bots import Bot, BotSpecError, register
from cavallo_env.budget import ByteCache
from cavallo_env.bots.base import game_of
from cavallo_env.games.learning import decide_move

from .export import load_policy_net

#: checkpoints loaded by this process, bounded in bytes (a net holds about its tensors file)
CACHE_MB = 512
_CACHE = ByteCache(CACHE_MB)


def load_net(path: str):
    """``(PolicyNet, meta)`` of a checkpoint, loaded once per process (while the cache holds it)."""
    hit = _CACHE.get(path)
    if hit is None:
        hit = load_policy_net(path)
        _CACHE.put(path, hit, sum(p.numel() * p.element_size() for p in hit[0].parameters()))
    return hit


class CheckpointBot(Bot):
    name = "checkpoint"

    def __init__(self, path: str, seed=None, endgame: bool = True):
        super().__init__(seed)
        self.endgame = endgame
        from .checkpoint import learning_of  # lazy: torch (safetensors), loaded with the first checkpoint

        self.path = path
        self.net, meta = load_net(path)
        self.learning = learning_of(meta)
        self.game = self.learning.game
        self.uses_prior = self.net.uses_prior

    def choose_move(self, view, legal):
        import torch  # lazy: torch, loaded with the first checkpoint

        torch.set_num_threads(1)  # evaluation workers are forked: one thread each
        game = game_of(view, self.game)
        net = self.net

        def pick(obs, mask, prior, acts):
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(obs), torch.from_numpy(mask),
                                None if prior is None else torch.from_numpy(prior))
            row = logits[0]
            return max(acts, key=lambda a: float(row[a]))

        state = game.state_from_view(view, random.Random(0))
        return decide_move(self.learning.table(state), pick, self.uses_prior, self.learning, self.endgame)


def from_spec(arg, seed):
    """``checkpoint:<path>``, or ``checkpoint:<path>@endgame=0`` for the network's own move in an
    exact endgame too (the ``policy:`` runtime's option of the same name)."""
    if not arg:
        raise BotSpecError("checkpoint bot needs a path: checkpoint:<path to .safetensors or .json>")
    endgame = True
    if "@" in arg and not Path(arg).exists():
        arg, _, option = arg.partition("@")
        if option.replace(" ", "").lower() not in ("endgame=0", "endgame=1"):
            raise BotSpecError(f"unknown checkpoint option {option!r} in checkpoint:{arg}@{option}; known: endgame=0, endgame=1")
        endgame = option.replace(" ", "").endswith("1")
    return CheckpointBot(arg, seed=seed, endgame=endgame)


register("checkpoint", from_spec)
