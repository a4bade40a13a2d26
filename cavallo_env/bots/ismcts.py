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

from ..cards import COINS_10, CUPS_FANTE, LA_MATA, NUM_CARDS, RANK, SUIT, SWORDS, SWORDS_ACE, VALUE
from ..engine import NUM_TURNS, GameState, sum_captures
from ..views import state_from_view
from .base import Bot, BotSpecError
from .heuristic import expected_napula_diff
from .values import CARD_VALUE

ROLLOUTS = ("greedy", "random")
EXPANSIONS = ("greedy", "random")
OPTIONS = ("rollout", "c", "reward", "scale", "epsilon", "depth", "prior", "expand", "infer")
REWARDS = ("points", "win", "mixed")
MAX_ITERATIONS = 10_000_000

_NO_SUMS = ((),) * 11
_SQRT2 = math.sqrt(2.0)
_FIXED_CARDS = (LA_MATA, COINS_10, CUPS_FANTE)
# _BINOM_CDF[n][k] = P(Bin(n, 1/2) <= k)
_BINOM_CDF = [[sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n for k in range(n + 1)] for n in range(14)]


def static_eval(state: GameState, spread: float = 1.5) -> float:
    """Expected final point difference (team 0 minus team 1) from the piles so far.

    Exact once the deal is over.  Otherwise: the bonuses already scored, the
    award cards already won, and for *most cards*, *most swords* and *napula*
    the chances given the piles, with every card not yet won equally likely to
    end with either team (the card split spread ``spread`` times a fair coin's).
    """
    piles = state.piles
    b = state.bonuses
    if state.turn >= NUM_TURNS:
        tp = state.result()["team_points"]
        return float(tp[0] - tp[1])
    p0, p1 = piles
    diff = float(b[0][0] + b[0][1] + b[0][2] + b[0][3] - b[1][0] - b[1][1] - b[1][2] - b[1][3])
    n0, n1 = len(p0), len(p1)
    rem = NUM_CARDS - n0 - n1
    mu = n0 + rem / 2.0
    sd = spread * math.sqrt(rem) / 2.0 + 1e-9
    if n0 >= 27:
        diff += 2.0
    elif n1 >= 27:
        diff -= 2.0
    else:
        diff += 2.0 * (1.0 - 0.5 * (1.0 + math.erf((26.5 - mu) / (sd * _SQRT2)))
                       - 0.5 * (1.0 + math.erf((25.5 - mu) / (sd * _SQRT2))))
    s0 = s1 = 0
    p = [0.5] * 10
    for c in p0:
        if SUIT[c] == SWORDS:
            s0 += 1
            i = c - SWORDS_ACE
            if i < 10:
                p[i] = 1.0
    for c in p1:
        if SUIT[c] == SWORDS:
            s1 += 1
            i = c - SWORDS_ACE
            if i < 10:
                p[i] = 0.0
    rs = 13 - s0 - s1
    cdf = _BINOM_CDF[rs]
    # P(s0 + X <= 6) and P(s1 + (rs - X) <= 6) = P(X >= rs + s1 - 6)
    k0 = 6 - s0
    p0_low = 0.0 if k0 < 0 else 1.0 if k0 >= rs else cdf[k0]
    k1 = rs + s1 - 7  # X <= k1  <=>  team 1 gets >= 7
    p1_high = 0.0 if k1 < 0 else 1.0 if k1 >= rs else cdf[k1]
    diff += (1.0 - p0_low) - p1_high
    held0 = set(p0)
    held1 = set(p1)
    for c in _FIXED_CARDS:
        if c in held0:
            diff += 1.0
        elif c in held1:
            diff -= 1.0
    diff += expected_napula_diff(p)
    return diff


def view_seed(seed, view) -> int:
    """A per-decision seed from the bot seed and what the seat sees."""
    key = json.dumps([repr(seed), view.get("seat"), view.get("hand"), view.get("table"), view.get("history")],
                     separators=(",", ":"), sort_keys=True)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


# ---------------------------------------------------------------- rollouts


def random_rollout(state: GameState, rng: random.Random, epsilon: float = 0.0, plies: int = NUM_TURNS) -> None:
    """Uniformly random legal moves for ``plies`` turns or to the end (mutates ``state``)."""
    choice = rng.choice
    stop = min(NUM_TURNS, state.turn + plies)
    while state.turn < stop:
        card, capture = choice(state.legal_moves())
        state.play(card, capture)


def greedy_rollout(state: GameState, rng: random.Random, epsilon: float = 0.1, plies: int = NUM_TURNS) -> None:
    """A fast greedy-ish playout for ``plies`` turns or to the end (mutates ``state``).

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
    stop = min(NUM_TURNS, state.turn + plies)
    while state.turn < stop:
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


def quick_score(state: GameState, move) -> float:
    """The greedy rollout's idea of a move: points and award value it wins now.

    A place scores minus the value of the card given away, below any capture.
    """
    card, capture = move
    value = CARD_VALUE
    if not capture:
        return -1.0 - value[card]
    s = value[card]
    su = SUIT[card]
    same = True
    for t in capture:
        s += value[t]
        if SUIT[t] != su:
            same = False
    n = len(capture)
    if n == len(state.table):
        s += 1.0
    if n == 1:
        if capture[0] == state.prev_placed:
            s += 1.0
    else:
        if same:
            s += 1.0
        if n >= 3:
            s += 1.0
    return s


def _best_quick(state: GameState, moves, rng: random.Random):
    best = []
    top = -1e18
    for m in moves:
        q = quick_score(state, m)
        if q > top:
            top, best = q, [m]
        elif q == top:
            best.append(m)
    return best[0] if len(best) == 1 else rng.choice(best)


_ROLLOUT_FUNCS = {"greedy": greedy_rollout, "random": random_rollout}


# ---------------------------------------------------------------- the tree


def infer_missing_ranks(state: GameState, seat: int) -> dict:
    """Ranks each other seat most likely does not hold, from what it passed up.

    A seat that placed a card when it could have scored by rank -- a picada of
    the card placed just before, or a scùa of a table that one card of some
    rank takes whole (a single card, or numerals summing to at most 10) --
    probably held no card of that rank.  The inference is dropped for a rank
    the seat played later.  Returns ``{other seat: set of ranks}``.
    """
    replay = GameState([list(h) for h in state.initial_hands], list(state.initial_table), state.dealer)
    found = []  # (seat, rank, move index)
    prev_place = None
    for i, (s, card, cap) in enumerate(state.moves):
        if s != seat and not cap and replay.table:
            table = replay.table
            ranks = set()
            if prev_place is not None:
                ranks.add(RANK[prev_place])
            if len(table) == 1:
                ranks.add(RANK[table[0]])
            elif all(VALUE[t] for t in table):
                total = sum(VALUE[t] for t in table)
                if total <= 10:
                    ranks.add(total - 1)
            for r in ranks:
                found.append((s, r, i))
        prev_place = None if cap else card
        replay.play(card, cap)
    out = {s: set() for s in range(4) if s != seat}
    for s, r, i in found:
        if not any(ms == s and RANK[c] == r for ms, c, _ in state.moves[i:]):
            out[s].add(r)
    return out


def _deal_constrained(pool, others, sizes, missing, soft: float, rng: random.Random) -> list:
    """Deal ``pool`` to ``others`` in ``sizes``; a card avoids seats that likely miss its rank.

    Each such preference is kept with probability ``soft`` when it can be.
    Returns the hands in the order of ``others`` (sorted).
    """
    rng.shuffle(pool)
    room = list(sizes)
    hands = [[] for _ in others]
    free = []
    for c in pool:
        r = RANK[c]
        banned = [r in missing[s] for s in others]
        if not any(banned):
            free.append(c)
            continue
        ok = [k for k in range(len(others)) if room[k] and not banned[k]]
        if not ok or rng.random() >= soft:
            ok = [k for k in range(len(others)) if room[k]]
        total = sum(room[k] for k in ok)
        x = rng.randrange(total)
        for k in ok:
            x -= room[k]
            if x < 0:
                break
        hands[k].append(c)
        room[k] -= 1
    i = 0
    for k in range(len(others)):
        n = room[k]
        if n:
            hands[k].extend(free[i:i + n])
            i += n
        hands[k].sort()
    return hands


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
                 reward: str = "points", scale: float = 10.0, epsilon: float = 0.1, depth: int = NUM_TURNS,
                 prior: float = 0.0, expand: str = "greedy", infer: float = 0.0):
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
        if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= NUM_TURNS:
            raise BotSpecError(f"ismcts depth must be an int in 0..{NUM_TURNS}, got {depth!r}")
        if not prior >= 0:
            raise BotSpecError(f"ismcts prior must be >= 0, got {prior!r}")
        if expand not in EXPANSIONS:
            raise BotSpecError(f"unknown ismcts expand {expand!r}; known: {', '.join(EXPANSIONS)}")
        if not 0.0 <= infer <= 1.0:
            raise BotSpecError(f"ismcts infer must be in 0..1, got {infer!r}")
        self.infer = infer
        self.depth = depth
        self.prior = prior
        self.expand = expand
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
        bias = None
        if self.prior > 0:
            from .heuristic import HeuristicBot

            scores = HeuristicBot().move_scores(view, legal)
            top = max(scores)
            bias = {m: self.prior * (h - top) / self.scale for m, h in zip(legal, scores)}
        return self.search(base, rng, legal, bias)

    def search(self, base: GameState, rng: random.Random, legal=None, bias=None) -> tuple:
        """Run the search from ``base`` (as seen by the seat to play); return the move.

        Only the seat's own hand, the table and the public history of ``base``
        are used: the other hands are redealt every iteration.  ``bias`` maps
        root moves to a progressive bias (reward units, divided by visits + 1).
        """
        seat = base.current
        my_team = seat & 1
        others = [s for s in range(4) if s != seat]
        sizes = [len(base.hands[s]) for s in others]
        pool = [c for s in others for c in base.hands[s]]
        missing = infer_missing_ranks(base, seat) if self.infer > 0 else None
        if missing is not None and not any(missing.values()):
            missing = None
        soft = self.infer
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
        depth = self.depth
        guided = self.expand == "greedy"
        log = math.log
        sqrt = math.sqrt
        shuffle = rng.shuffle
        rchoice = rng.choice
        root = _Node()
        for _ in range(self.iterations):
            # determinization
            state = base.copy()
            hands = state.hands
            if missing is None:
                shuffle(pool)
                i = 0
                for s, n in zip(others, sizes):
                    hands[s] = sorted(pool[i:i + n])
                    i += n
            else:
                for s, h in zip(others, _deal_constrained(pool, others, sizes, missing, soft, rng)):
                    hands[s] = h
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
                        if bias is not None and node is root:
                            u += bias[m] / (ch.visits + 1)
                        if u > best_u:
                            best_u, best = u, m
                team = state.current & 1
                if untried is not None:
                    if len(untried) == 1:
                        m = untried[0]
                    elif guided:
                        m = _best_quick(state, untried, rng)
                    else:
                        m = rchoice(untried)
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
            # rollout, then the exact result or the static evaluation
            if state.turn < NUM_TURNS and depth:
                rollout(state, rng, epsilon, depth)
            diff = static_eval(state)
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
                elif k == "depth":
                    kwargs["depth"] = int(v)
                elif k == "prior":
                    kwargs["prior"] = float(v)
                elif k == "expand":
                    kwargs["expand"] = v
                elif k == "infer":
                    kwargs["infer"] = float(v)
                else:
                    raise BotSpecError(f"unknown ismcts option {k!r}; known: {', '.join(OPTIONS)}")
            except ValueError:
                raise BotSpecError(f"ismcts option {k}={v!r} is not a number") from None
    return ISMCTSBot(iterations, seed=seed, **kwargs)
