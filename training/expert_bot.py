"""The expert of expert iteration: today's ``ismcts`` search with a network's policy as its root prior.

``NetGuidedSearch`` plays like an ``ismcts:<n>,...`` bot except for the
root's progressive bias (``ISMCTSBot.search``'s ``bias``): instead of the
game's heuristic move scores it is ``weight * (log p(move) - log p(best))``
from a training checkpoint's policy (``training.model.PolicyNet``, the
observation, mask and prior it reads at that decision).  A move of several
actions (a Scopa capture) has the product of its actions' probabilities.
``move_and_visits`` returns the move and the root visit counts, the
targets the next network learns; with ``target=q`` it returns instead the
softmax of the root moves' mean rewards (what sequential halving ranks
them by) at temperature ``temp`` (the search's reward units: Briscola's 20
card points), since a halving root's visits depend only on the round each
move left in (docs/experiments/expert-iteration.md).

Importing this module registers the bot kind ``expert``, so an evaluation
(``cavallo_env.evaluation``, in forked workers too) can play it::

    expert:ismcts:400,root=ucb;bias=0.5;model=runs/<run>/checkpoints/gen-00003.json
    expert:ismcts:2000;bias=0;target=q;temp=0.1;model=runs/<run>/checkpoints/gen-00003.json

``model=`` comes last (the rest of the spec is the path).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from cavallo_env.bots import Bot, BotSpecError, make, register
from cavallo_env.bots.base import decision_start

from .policy_bot import load_net


class NetGuidedSearch(Bot):
    """An ``ismcts`` bot whose root bias comes from a network (see the module doc)."""

    name = "expert"

    def __init__(self, search: str, model: str, weight: float, seed=None, game: str | None = None,
                 target: str = "visits", temp: float = 0.1):
        super().__init__(seed)
        from .checkpoint import learning_of  # lazy: the manifest's game

        self.search_bot = make(search, seed=seed, game=game)
        if not hasattr(self.search_bot, "search"):
            raise BotSpecError(f"expert: {search!r} is not an ismcts search")
        self.net, meta = load_net(model)
        self.learning = learning_of(meta)
        self.game = self.learning.game
        if game is not None and game != self.game:
            raise BotSpecError(f"expert: the network {model} plays {self.game}, not {game}")
        self.weight = weight
        self.target, self.temp = target, temp
        option = "" if target == "visits" else f";target={target};temp={temp}"
        self.spec = f"expert:{search};bias={weight}{option};model={model}"

    def __repr__(self):
        return f"<NetGuidedSearch {self.spec}>"

    def choose_move(self, view, legal):
        return self.move_and_visits(view, legal)[0]

    def move_and_visits(self, view, legal) -> tuple:
        """The move the search plays and the root visit count of every legal move (``target=q``:
        the softmax of their mean rewards at ``temp`` instead, see ``q_weights``)."""
        game, rng, base = decision_start(self.seed, view, self.game)
        bias = None
        if self.weight > 0 and len(legal) > 1:
            logp = move_logprobs(self.net, self.learning, base, legal)
            top = max(logp.values())
            bias = {m: self.weight * (lp - top) for m, lp in logp.items()}
        visits: dict = {}
        means = {} if self.target == "q" else None
        move = self.search_bot.search(base, rng, legal, bias, visits, game=game, means=means)
        return move, (visits if means is None else q_weights(means, self.temp, visits))


def q_weights(means: dict, temp: float, visits: dict | None = None) -> dict:
    """The softmax of the root moves' mean rewards ``means`` at temperature ``temp`` (> 0), a
    distribution over the moves (the largest mean subtracted first, so no overflow).  A move
    ``visits`` gives no visit weighs 0: its mean (0) is no estimate, and where the visited moves'
    means are below 0 it would draw the whole target (a wide Cavalloìcera root can have more
    moves than the search has iterations)."""
    seen = {m: q for m, q in means.items() if visits is None or visits.get(m, 0) > 0} or means
    top = max(seen.values())
    w = {m: math.exp((q - top) / temp) if m in seen else 0.0 for m, q in means.items()}
    total = sum(w.values())
    return {m: v / total for m, v in w.items()}


def _action_logprobs(net, learning, table, seat: int) -> dict:
    """log p(action) of the network at ``table`` (seat ``seat`` to act), over its legal actions."""
    acts = table.legal_actions()
    if len(acts) == 1:
        return {acts[0]: 0.0}
    obs = np.empty((1, learning.obs_size), np.float32)
    table.observation(seat, obs[0])
    mask = np.zeros((1, learning.num_actions), np.float32)
    mask[0, acts] = 1.0
    prior = None
    if net.uses_prior:
        prior = np.empty((1, learning.prior_size), np.float32)
        table.prior(prior[0])
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs), torch.from_numpy(mask),
                        None if prior is None else torch.from_numpy(prior))
        logp = torch.log_softmax(logits[0].double(), dim=-1)
    return {a: float(logp[a]) for a in acts}


def move_logprobs(net, learning, state, moves) -> dict:
    """log p(move) for every move of the seat to act at ``state`` (not changed): the sum of the
    log-probabilities of its actions, each read where the actions before it have been taken."""
    seat = state.current
    seqs = {m: learning.table(state.copy()).move_actions(m) for m in moves}
    out: dict = {}
    reached = {(): 0.0}  # log p of each action prefix still to expand
    # one network call per prefix shared by several moves (a capture's later steps)
    frontier = [((), list(moves))]
    while frontier:
        prefix, group = frontier.pop()
        table = learning.table(state.copy())
        for a in prefix:
            table.step(a)
        logp = _action_logprobs(net, learning, table, seat)
        base = reached[prefix]
        by_next: dict = {}
        for m in group:
            by_next.setdefault(seqs[m][len(prefix)], []).append(m)
        for a, sub in by_next.items():
            lp = base + logp[a]
            longer = [m for m in sub if len(seqs[m]) > len(prefix) + 1]
            for m in sub:
                if len(seqs[m]) == len(prefix) + 1:
                    out[m] = lp
            if longer:
                reached[prefix + (a,)] = lp
                frontier.append((prefix + (a,), longer))
    return out


def _options(text: str) -> dict:
    """The ``;key=value`` options of an expert spec (bias, target, temp), checked."""
    out = {"weight": 1.0, "target": "visits", "temp": 0.1}
    for option in filter(None, text.split(";")):
        key, _, value = (part.strip() for part in option.partition("="))
        if key == "target":
            if value not in ("visits", "q"):
                raise BotSpecError(f"expert target must be visits or q, got {value!r}")
            out["target"] = value
            continue
        if key not in ("bias", "temp"):
            raise BotSpecError(f"unknown expert option {option!r}; known: bias=<weight>, target=visits|q, "
                               "temp=<q temperature>, model=<path>")
        try:
            number = float(value)
        except ValueError:
            raise BotSpecError(f"expert {key} must be a number, got {value!r}") from None
        if key == "bias" and not 0 <= number <= 1000:
            raise BotSpecError(f"expert bias must be in 0..1000, got {number}")
        if key == "temp" and not 0 < number <= 1000:
            raise BotSpecError(f"expert temp must be in (0, 1000], got {number}")
        out["weight" if key == "bias" else key] = number
    return out


def from_spec(arg, seed, game: str | None = None):
    """``expert:<ismcts spec>;bias=<weight>[;target=q;temp=<t>];model=<checkpoint .json>`` (see the module doc)."""
    if not arg or ";model=" not in arg:
        raise BotSpecError("expert needs a search and a network: expert:ismcts:400,root=ucb;bias=0.5;model=<path>.json")
    head, _, model = arg.partition(";model=")
    search, _, options = head.partition(";")
    if not search.startswith("ismcts:"):
        raise BotSpecError(f"expert search must be an ismcts spec, got {search!r}")
    return NetGuidedSearch(search, model, seed=seed, game=game, **_options(options))


register("expert", from_spec)
