"""``ismcts:<iterations>``: single-observer information-set Monte Carlo tree search.

Each decision (Cowling, Powley & Whitehouse 2012, SO-ISMCTS):

1. The view is checked and rebuilt as a ``GameState`` (``state_from_view``).
   The cards the seat has not seen (not in its hand, on the table or in a
   pile) are exactly the unplayed cards of the other three seats.
2. Every iteration draws a *determinization*: those unseen cards shuffled and
   dealt back to the other seats in their current hand sizes, so it agrees
   with everything the seat has seen (its hand, the table, the history, the
   piles and the hand sizes).  With ``infer > 0`` the deal also leans on what
   the other seats passed up (``infer_missing_ranks``): a seat that placed a
   card when it could have taken a picada or a scùa by rank most likely held
   no card of that rank, and each such card avoids that seat with
   probability ``infer``.  These are preferences, never hard constraints: a
   determinization always stays consistent with the view.
3. One tree is shared by all determinizations.  Its nodes are moves of
   whichever seat is to play; in a determinization only the moves legal there
   are considered, and the UCB rule (constant ``exploration``) uses
   *availability* counts (how often a child was legal when its parent was
   visited) instead of the parent's visit count.  Each seat picks by the mean
   reward of its own team.  A node expands the untried move the greedy
   rollout likes best (``expand="greedy"``) or a random one.  At the root a
   ``prior`` weight adds the heuristic bot's score of each move as a
   progressive bias that fades with visits (``prior * (h - h_best) / scale
   / (visits + 1)``).  ``root="halving"`` replaces UCB at the root by
   sequential halving with common random numbers (every move still in plays
   on the same determinizations).
4. Below the tree a rollout plays ``depth`` more turns with the ``rollout``
   policy: ``greedy`` (the capture worth most bonuses plus award value; with
   no capture, place the card whose rank is least likely to be taken by a
   picada, the least valuable first; a random move with probability
   ``epsilon``) or ``random``.  Short rollouts cut the noise of 40 random
   future turns.
5. The position reached is scored by ``static_eval``: the bonuses so far plus
   the expected awards, each unwon card ending with the team holding it with
   probability ``hand_p`` (1/2 on the table); exact when the deal is over.
   The reward is that point difference for the searching team divided by
   ``scale`` (``reward="points"``), or its sign (``"win"``), or both
   (``"mixed"``).

The move played is the root move visited most (the best mean after
halving).  The random generator of a decision is seeded from the bot's seed
and the view, so the same view always gets the same move and calls for other
seats in between change nothing.  The spec string sets options after the
iteration count, e.g. ``ismcts:1000,rollout=random,depth=48,c=0.7``.
"""

from __future__ import annotations

import math
import random

from ..cards import COINS_10, CUPS_FANTE, LA_MATA, NUM_CARDS, RANK, SUIT, SWORDS, SWORDS_ACE, VALUE
from ..engine import NUM_TURNS, GameState, sum_captures
from ..views import state_from_view
from .base import Bot, BotSpecError, view_seed
from .heuristic import expected_napula_diff
from .values import CARD_VALUE

ROLLOUTS = ("greedy", "random")
EXPANSIONS = ("greedy", "random")
ROOTS = ("ucb", "halving")
OPTIONS = ("rollout", "c", "reward", "scale", "epsilon", "depth", "prior", "expand", "infer", "hand", "root")
REWARDS = ("points", "win", "mixed")
MAX_ITERATIONS = 10_000_000

_NO_SUMS = ((),) * 11
_SQRT2 = math.sqrt(2.0)
_FIXED_CARDS = (LA_MATA, COINS_10, CUPS_FANTE)
# _BINOM_CDF[n][k] = P(Bin(n, 1/2) <= k)
_BINOM_CDF = [[sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n for k in range(n + 1)] for n in range(14)]


def static_eval(state: GameState, spread: float = 1.5, hand_p: float = 0.5) -> float:
    """Expected final point difference (team 0 minus team 1) of a position.

    Exact once the deal is over.  Otherwise: the bonuses already scored plus
    the expected awards, each card not yet won ending with team 0 with
    probability 1/2 if on the table and ``hand_p`` if in a hand of team 0
    (``1 - hand_p`` in a hand of team 1: a card in hand is more often banked
    by its holder's team).  *Most cards* uses a normal approximation whose
    spread is ``spread`` times the independent-cards one; *most swords* the
    exact Poisson-binomial count; *napula* the run probabilities.
    """
    if state.turn >= NUM_TURNS:
        tp = state.result()["team_points"]
        return float(tp[0] - tp[1])
    b = state.bonuses
    diff = float(b[0][0] + b[0][1] + b[0][2] + b[0][3] - b[1][0] - b[1][1] - b[1][2] - b[1][3])
    q = [0.5] * NUM_CARDS
    p0, p1 = state.piles
    for c in p0:
        q[c] = 1.0
    for c in p1:
        q[c] = 0.0
    if hand_p != 0.5:
        hands = state.hands
        for seat in range(4):
            v = hand_p if seat & 1 == 0 else 1.0 - hand_p
            for c in hands[seat]:
                q[c] = v
    # most cards
    n0, n1 = len(p0), len(p1)
    if n0 >= 27:
        diff += 2.0
    elif n1 >= 27:
        diff -= 2.0
    else:
        mu = sum(q)
        var = 0.0
        for x in q:
            if 0.0 < x < 1.0:
                var += x * (1.0 - x)
        sd = spread * math.sqrt(var) + 1e-9
        k = sd * _SQRT2
        diff += 2.0 * (1.0 - 0.5 * (1.0 + math.erf((26.5 - mu) / k)) - 0.5 * (1.0 + math.erf((25.5 - mu) / k)))
    # most swords: distribution of team 0's final swords
    dist = [1.0]
    for c in range(SWORDS * 13, SWORDS * 13 + 13):
        x = q[c]
        if x == 1.0:
            dist.insert(0, 0.0)
        elif x != 0.0:
            nd = [0.0] * (len(dist) + 1)
            y = 1.0 - x
            for j, pj in enumerate(dist):
                nd[j] += pj * y
                nd[j + 1] += pj * x
            dist = nd
    p7 = sum(dist[7:])
    diff += 2.0 * p7 - 1.0
    for c in _FIXED_CARDS:
        diff += 2.0 * q[c] - 1.0
    diff += expected_napula_diff(q[SWORDS_ACE:SWORDS_ACE + 10])
    return diff


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
    return _Dealer(pool, others, sizes, missing, soft).deal(rng)


class _Dealer:
    """Deals the unseen cards again and again (precomputed per decision)."""

    __slots__ = ("sizes", "constrained", "free", "soft", "seats")

    def __init__(self, pool, others, sizes, missing, soft: float):
        self.sizes = list(sizes)
        self.soft = soft
        self.seats = list(range(len(others)))
        self.constrained = []
        self.free = []
        for c in pool:
            allowed = [k for k, s in enumerate(others) if RANK[c] not in missing[s]]
            if len(allowed) == len(others):
                self.free.append(c)
            else:
                self.constrained.append((c, allowed))

    def deal(self, rng: random.Random) -> list:
        room = self.sizes[:]
        hands = [[] for _ in room]
        cons = self.constrained
        rng.shuffle(cons)
        free = self.free
        rng.shuffle(free)
        rnd = rng.random
        soft = self.soft
        for c, allowed in cons:
            ok = [k for k in allowed if room[k]]
            if not ok or rnd() >= soft:
                ok = [k for k in self.seats if room[k]]
            if len(ok) == 1:
                k = ok[0]
            else:
                x = rnd() * sum(room[k] for k in ok)
                for k in ok:
                    x -= room[k]
                    if x < 0:
                        break
            hands[k].append(c)
            room[k] -= 1
        i = 0
        for k, n in enumerate(room):
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
    """SO-ISMCTS with ``iterations`` determinized iterations per decision.

    Defaults (tuned by duplicate play against ``heuristic``, see docs/bots.md):
    greedy rollouts of ``depth=4`` turns then ``static_eval`` with
    ``hand_p=0.65``, sequential halving at the root, UCB ``exploration=0.4``
    below it, greedy expansion, missing-rank inference ``infer=0.9``,
    reward = point difference / ``scale=10``.  Spec keys: rollout, c, reward,
    scale, epsilon, depth, prior, expand, infer, hand, root.
    """

    name = "ismcts"

    def __init__(self, iterations: int = 1000, seed=None, rollout: str = "greedy", exploration: float = 0.4,
                 reward: str = "points", scale: float = 10.0, epsilon: float = 0.1, depth: int = 4,
                 prior: float = 1.0, expand: str = "greedy", infer: float = 0.9, hand_p: float = 0.65,
                 root: str = "halving"):
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
        if not 0.0 <= hand_p <= 1.0:
            raise BotSpecError(f"ismcts hand must be in 0..1, got {hand_p!r}")
        if root not in ROOTS:
            raise BotSpecError(f"unknown ismcts root {root!r}; known: {', '.join(ROOTS)}")
        self.infer = infer
        self.hand_p = hand_p
        self.root = root
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
        return self.move_and_visits(view, legal)[0]

    def move_and_visits(self, view, legal) -> tuple[tuple, dict]:
        """The move ``choose_move`` plays and the root visit count of every legal move
        (what a student network can imitate beyond the move itself)."""
        rng = random.Random(view_seed(self.seed, view))
        base = state_from_view(view, rng)
        bias = None
        if self.prior > 0:
            from .heuristic import HeuristicBot

            scores = HeuristicBot().move_scores(view, legal)
            top = max(scores)
            bias = {m: self.prior * (h - top) / self.scale for m, h in zip(legal, scores)}
        visits: dict = {}
        move = self.search(base, rng, legal, bias, visits)
        return move, visits

    def search(self, base: GameState, rng: random.Random, legal=None, bias=None, visits=None) -> tuple:
        """Run the search from ``base`` (as seen by the seat to play); return the move.

        Only the seat's own hand, the table and the public history of ``base``
        are used: the other hands are redealt every iteration.  ``bias`` maps
        root moves to a progressive bias (reward units, divided by visits + 1).
        A ``visits`` dict receives the root visit count of every legal move.
        """
        seat = base.current
        others = [s for s in range(4) if s != seat]
        sizes = [len(base.hands[s]) for s in others]
        pool = [c for s in others for c in base.hands[s]]
        missing = infer_missing_ranks(base, seat) if self.infer > 0 else None
        dealer = None
        if missing is not None and any(missing.values()):
            dealer = _Dealer(pool, others, sizes, missing, self.infer)
        root_legal = base.legal_moves()
        if legal is not None and set(legal) != set(root_legal):
            raise ValueError("the view's legal moves disagree with the rules for its position")
        if len(root_legal) == 1:
            if visits is not None:
                visits[root_legal[0]] = 1
            return root_legal[0]
        shuffle = rng.shuffle

        def determinize() -> GameState:
            state = base.copy()
            hands = state.hands
            if dealer is None:
                shuffle(pool)
                i = 0
                for s, n in zip(others, sizes):
                    hands[s] = sorted(pool[i:i + n])
                    i += n
            else:
                for s, h in zip(others, dealer.deal(rng)):
                    hands[s] = h
            state._legal = None
            return state

        root = _Node()
        if self.root == "halving":
            move = self._search_halving(root, root_legal, determinize, rng, bias)
        else:
            for _ in range(self.iterations):
                self._iterate(determinize(), root, [], rng, root, bias)
            move = max(root_legal, key=lambda m: (root.children[m].visits if m in root.children else -1,
                                                  root.children[m].total if m in root.children else 0.0))
        if visits is not None:
            for m in root_legal:
                ch = root.children.get(m)
                visits[m] = ch.visits if ch is not None else 0
        return move

    def _search_halving(self, root, root_legal, determinize, rng, bias) -> tuple:
        """Sequential halving over the root moves, every move of a round on the same deals.

        Each round shares its iterations equally among the moves still in,
        playing all of them on the same determinizations (common random
        numbers: the rollouts below each move also start from the same random
        state), then keeps the better half by mean reward.  Below the root the
        search is the same SO-ISMCTS tree as with ``root="ucb"``.
        """
        alive = list(root_legal)
        if bias is not None:  # a heuristic prior only orders ties here
            alive.sort(key=lambda m: -bias[m])
        for m in alive:
            root.children[m] = _Node()
        rounds = max(1, math.ceil(math.log2(len(alive))))
        budget = self.iterations
        for r in range(rounds):
            if len(alive) == 1 or budget <= 0:
                break
            per_move = max(1, (budget // (rounds - r)) // len(alive))
            for _ in range(per_move):
                if budget < len(alive):
                    break
                world = determinize()
                root_team = world.current & 1
                seed = rng.random()  # the same random stream below every move of this world
                for m in alive:
                    state = world.copy()
                    state.play(m[0], m[1])
                    ch = root.children[m]
                    ch.avail += 1
                    self._iterate(state, ch, [(ch, root_team)], random.Random(seed), None, None)
                    budget -= 1
            alive.sort(key=lambda m: -(root.children[m].total / max(root.children[m].visits, 1)))
            alive = alive[:max(1, (len(alive) + 1) // 2)]
        return alive[0]

    def _iterate(self, state: GameState, node, path, rng: random.Random, root, bias) -> None:
        """One ISMCTS iteration from ``node`` (whose moves are ``state``'s): select,
        expand one move, roll out, evaluate and back the reward up ``path``."""
        c_explore = self.exploration
        log = math.log
        sqrt = math.sqrt
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
                elif self.expand == "greedy":
                    m = _best_quick(state, untried, rng)
                else:
                    m = rng.choice(untried)
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
        if state.turn < NUM_TURNS and self.depth:
            _ROLLOUT_FUNCS[self.rollout](state, rng, self.epsilon, self.depth)
        diff = static_eval(state, 1.5, self.hand_p)
        mode = self.reward
        if mode == "points":
            r0 = diff / self.scale
        elif mode == "win":
            r0 = float((diff > 0) - (diff < 0))
        else:
            r0 = float((diff > 0) - (diff < 0)) + diff / self.scale
        for ch, team in path:
            ch.visits += 1
            ch.total += r0 if team == 0 else -r0


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
                elif k == "hand":
                    kwargs["hand_p"] = float(v)
                elif k == "root":
                    kwargs["root"] = v
                else:
                    raise BotSpecError(f"unknown ismcts option {k!r}; known: {', '.join(OPTIONS)}")
            except ValueError:
                raise BotSpecError(f"ismcts option {k}={v!r} is not a number") from None
    return ISMCTSBot(iterations, seed=seed, **kwargs)
