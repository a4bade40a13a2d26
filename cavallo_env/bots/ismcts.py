"""``ismcts:<iterations>``: single-observer information-set Monte Carlo tree search.

Each decision (Cowling, Powley & Whitehouse 2012, SO-ISMCTS):

1. The view is checked and rebuilt as a ``GameState`` (``state_from_view``).
   The cards the seat has not seen (not in its hand, on the table or in a
   pile) are exactly the unplayed cards of the other three seats.
2. Every iteration draws a *determinization*: those unseen cards shuffled and
   dealt back to the other seats in their current hand sizes.  It agrees with
   everything the seat has seen (its hand, the table, the history, the piles
   and the hand sizes).
3. One tree is shared by all determinizations.  Its nodes are moves of
   whichever seat is to play; in a determinization only the moves legal there
   are considered, and the UCB rule uses *availability* counts (how often a
   child was legal when its parent was visited) instead of the parent's visit
   count.  Each seat picks by the mean reward of its own team.
4. Below the tree a rollout plays the deal out with the ``rollout`` policy:
   ``random`` (uniform legal moves) or ``greedy`` (the default: the capture
   worth most bonuses plus award value; with no capture, place the card whose
   rank is least likely to be taken by a picada, the least valuable first;
   a random move with probability ``epsilon``).
5. The reward is the final point difference of the searching team divided by
   ``scale`` (``reward="points"``), or +1/0/-1 (``reward="win"``), or the sum
   of both (``reward="mixed"``).

The move played is the root move visited most.  The random generator of a
decision is seeded from the bot's seed and the view, so the same view always
gets the same move and calls for other seats in between change nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import random

from ..cards import NUM_CARDS, RANK, SUIT, VALUE
from ..engine import NUM_TURNS, GameState, sum_captures
from ..views import state_from_view
from .base import Bot, BotSpecError
from .values import CARD_VALUE

ROLLOUTS = ("greedy", "random")
REWARDS = ("points", "win", "mixed")
MAX_ITERATIONS = 10_000_000

_NO_SUMS = ((),) * 11


def view_seed(seed, view) -> int:
    """A per-decision seed from the bot seed and what the seat sees."""
    key = json.dumps([repr(seed), view.get("seat"), view.get("hand"), view.get("table"), view.get("history")],
                     separators=(",", ":"), sort_keys=True)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


# ---------------------------------------------------------------- rollouts


def random_rollout(state: GameState, rng: random.Random, epsilon: float = 0.0) -> None:
    """Uniformly random legal moves to the end of the deal (mutates ``state``)."""
    choice = rng.choice
    while state.turn < NUM_TURNS:
        card, capture = choice(state.legal_moves())
        state.play(card, capture)


def greedy_rollout(state: GameState, rng: random.Random, epsilon: float = 0.1) -> None:
    """A fast greedy-ish playout to the end of the deal (mutates ``state``).

    Captures the set worth most (bonuses + award value of the cards won);
    with no capture places the card whose rank has the fewest copies still in
    the other hands (least picada risk), the least valuable among those.
    With probability ``epsilon`` a uniformly random legal move instead.
    """
    value = CARD_VALUE
    rnd = rng.random
    hands = state.hands
    # copies of each rank still in some hand
    live = [0] * 13
    for h in hands:
        for c in h:
            live[RANK[c]] += 1
    while state.turn < NUM_TURNS:
        seat = state.current
        hand = hands[seat]
        if epsilon and rnd() < epsilon:
            card, capture = rng.choice(state.legal_moves())
            live[RANK[card]] -= 1
            state.play(card, capture)
            continue
        table = state.table
        best = None
        best_score = 0.0
        if table:
            ntable = len(table)
            prev = state.prev_placed
            numerals = tuple(t for t in table if VALUE[t])
            sums = sum_captures(numerals) if len(numerals) >= 2 else _NO_SUMS
            for c in hand:
                r = RANK[c]
                vc = value[c]
                for t in table:
                    if RANK[t] == r:
                        s = vc + value[t] + 1.0 if t == prev else vc + value[t]
                        if ntable == 1:
                            s += 1.0
                        if s > best_score:
                            best_score, best = s, (c, (t,))
                v = VALUE[c]
                if v:
                    su = SUIT[c]
                    for cap in sums[v]:
                        s = vc
                        same = True
                        for t in cap:
                            s += value[t]
                            if SUIT[t] != su:
                                same = False
                        n = len(cap)
                        if same:
                            s += 1.0
                        if n == ntable:
                            s += 1.0
                        if n >= 3:
                            s += 1.0
                        if s > best_score:
                            best_score, best = s, (c, cap)
        if best is None:
            # place: fewest live copies of the rank in other hands, then least value
            card = hand[0]
            key = 1e9
            for c in hand:
                k = (live[RANK[c]] - 1) * 10.0 + value[c]
                if k < key:
                    key, card = k, c
            best = (card, ())
        live[RANK[best[0]]] -= 1
        state.play(best[0], best[1])


_ROLLOUT_FUNCS = {"greedy": greedy_rollout, "random": random_rollout}


# ---------------------------------------------------------------- the tree


class _Node:
    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self):
        self.children = {}
        self.visits = 0
        self.total = 0.0  # summed reward of the team that made the move into this node
        self.avail = 0


class ISMCTSBot(Bot):
    """SO-ISMCTS with ``iterations`` determinized iterations per decision."""

    name = "ismcts"

    def __init__(self, iterations: int = 1000, seed=None, rollout: str = "greedy", exploration: float = 0.7,
                 reward: str = "points", scale: float = 10.0, epsilon: float = 0.1):
        super().__init__(seed)
        if isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS:
            raise BotSpecError(f"ismcts iterations must be an int in 1..{MAX_ITERATIONS}, got {iterations!r}")
        if rollout not in _ROLLOUT_FUNCS:
            raise BotSpecError(f"unknown ismcts rollout {rollout!r}; known: {', '.join(ROLLOUTS)}")
        if reward not in REWARDS:
            raise BotSpecError(f"unknown ismcts reward {reward!r}; known: {', '.join(REWARDS)}")
        if not exploration >= 0:
            raise BotSpecError(f"ismcts exploration must be >= 0, got {exploration!r}")
        if not scale > 0:
            raise BotSpecError(f"ismcts scale must be > 0, got {scale!r}")
        if not 0.0 <= epsilon <= 1.0:
            raise BotSpecError(f"ismcts epsilon must be in 0..1, got {epsilon!r}")
        self.iterations = iterations
        self.seed = seed
        self.rollout = rollout
        self.exploration = exploration
        self.reward = reward
        self.scale = scale
        self.epsilon = epsilon
        self.name = f"ismcts:{iterations}"

    def __repr__(self):
        return f"<ISMCTSBot {self.iterations} rollout={self.rollout} c={self.exploration} reward={self.reward}>"

    def choose_move(self, view, legal):
        rng = random.Random(view_seed(self.seed, view))
        base = state_from_view(view, rng)
        return self.search(base, rng, legal)

    def search(self, base: GameState, rng: random.Random, legal=None) -> tuple:
        """Run the search from ``base`` (as seen by the seat to play); return the move.

        Only the seat's own hand, the table and the public history of ``base``
        are used: the other hands are redealt every iteration.
        """
        seat = base.current
        my_team = seat & 1
        others = [s for s in range(4) if s != seat]
        sizes = [len(base.hands[s]) for s in others]
        pool = [c for s in others for c in base.hands[s]]
        root_legal = base.legal_moves()
        if legal is not None and set(legal) != set(root_legal):
            raise ValueError("the view's legal moves disagree with the rules for its position")
        if len(root_legal) == 1:
            return root_legal[0]
        rollout = _ROLLOUT_FUNCS[self.rollout]
        epsilon = self.epsilon
        c_explore = self.exploration
        mode = self.reward
        scale = self.scale
        log = math.log
        sqrt = math.sqrt
        shuffle = rng.shuffle
        rchoice = rng.choice
        root = _Node()
        for _ in range(self.iterations):
            # determinization
            state = base.copy()
            shuffle(pool)
            i = 0
            hands = state.hands
            for s, n in zip(others, sizes):
                hands[s] = sorted(pool[i:i + n])
                i += n
            state._legal = None
            # selection / expansion
            node = root
            path = []
            while state.turn < NUM_TURNS:
                moves = state.legal_moves()
                children = node.children
                untried = None
                best = None
                best_u = -1e18
                for m in moves:
                    ch = children.get(m)
                    if ch is None:
                        if untried is None:
                            untried = [m]
                        else:
                            untried.append(m)
                        continue
                    ch.avail += 1
                    if untried is None:
                        u = ch.total / ch.visits + c_explore * sqrt(log(ch.avail) / ch.visits)
                        if u > best_u:
                            best_u, best = u, m
                team = state.current & 1
                if untried is not None:
                    m = untried[0] if len(untried) == 1 else rchoice(untried)
                    ch = _Node()
                    ch.avail = 1
                    children[m] = ch
                    state.play(m[0], m[1])
                    path.append((ch, team))
                    break
                ch = children[best]
                state.play(best[0], best[1])
                path.append((ch, team))
                node = ch
            # rollout
            if state.turn < NUM_TURNS:
                rollout(state, rng, epsilon)
            tp = state.result()["team_points"]
            diff = tp[0] - tp[1]
            if mode == "points":
                r0 = diff / scale
            elif mode == "win":
                r0 = float((diff > 0) - (diff < 0))
            else:
                r0 = float((diff > 0) - (diff < 0)) + diff / scale
            for ch, team in path:
                ch.visits += 1
                ch.total += r0 if team == 0 else -r0
        best = max(root_legal, key=lambda m: (root.children[m].visits if m in root.children else -1,
                                              root.children[m].total if m in root.children else 0.0))
        return best


def _parse_kv(arg: str) -> dict:
    out = {}
    for part in arg.split(","):
        k, sep, v = part.partition("=")
        if not sep or not k:
            raise BotSpecError(f"ismcts option {part!r} must look like key=value")
        out[k.strip()] = v.strip()
    return out


def from_spec(arg, seed=None) -> ISMCTSBot:
    """Build from the text after ``ismcts:``.

    ``"1000"`` = 1000 iterations; options may follow, comma separated:
    ``"1000,rollout=random,c=0.5,reward=win,scale=10,epsilon=0.1"``.
    """
    if arg is None or not str(arg).strip():
        raise BotSpecError("ismcts needs an iteration count, e.g. 'ismcts:1000'")
    first, _, rest = str(arg).partition(",")
    try:
        iterations = int(first.strip())
    except ValueError:
        raise BotSpecError(f"ismcts iteration count must be a positive integer, got {first!r}") from None
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise BotSpecError(f"ismcts iteration count must be in 1..{MAX_ITERATIONS}, got {iterations}")
    kwargs = {}
    if rest:
        for k, v in _parse_kv(rest).items():
            try:
                if k == "rollout":
                    kwargs["rollout"] = v
                elif k in ("c", "exploration"):
                    kwargs["exploration"] = float(v)
                elif k == "reward":
                    kwargs["reward"] = v
                elif k == "scale":
                    kwargs["scale"] = float(v)
                elif k in ("epsilon", "eps"):
                    kwargs["epsilon"] = float(v)
                else:
                    raise BotSpecError(f"unknown ismcts option {k!r}; known: rollout, c, reward, scale, epsilon")
            except ValueError:
                raise BotSpecError(f"ismcts option {k}={v!r} is not a number") from None
    return ISMCTSBot(iterations, seed=seed, **kwargs)
