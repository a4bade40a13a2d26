"""What the generic ISMCTS (``cavallo_env.bots.ismcts``) needs to know of Cavalloìcera.

- **Determinizations**: the cards the seat has not seen (not in its hand, on
  the table or in a pile) are exactly the unplayed cards of the other three
  seats; each iteration deals them back in the current hand sizes.  With
  ``infer > 0`` the deal leans on what the other seats passed up
  (``infer_missing_ranks``): a seat that placed a card when it could have
  taken a picada or a scùa by rank most likely held no card of that rank, and
  each such card avoids that seat with probability ``infer``.  These are
  preferences, never hard constraints: a determinization always stays
  consistent with the view.
- **Rollouts**: ``greedy`` (the capture worth most bonuses plus award value;
  with no capture, place the card whose rank is least likely to be taken by a
  picada, the least valuable first; a random move with probability
  ``epsilon``) or ``random``.
- **Evaluation**: ``static_eval``, the bonuses so far plus the expected
  awards, each unwon card ending with the team holding it with probability
  ``hand_p`` (1/2 on the table); exact when the deal is over.
- **Prior**: the ``heuristic`` bot's score of each root move.
- **In the core**: ``core_search`` runs the whole decision in C
  (core/cavalloicera_search.c) when ``cavallo_env.core.enabled()``: the same
  search over these hooks with every option here, on the same random numbers
  (the Python search's move and root visits, bit for bit, only faster);
  ``CAVALLO_CORE=python`` or ``engine=python`` keep it in Python.

Search options (after the iteration count of ``ismcts:<n>``): ``rollout``
(greedy, random), ``epsilon``, ``infer``, ``hand``.
"""

from __future__ import annotations

import math
import random
from array import array

from .. import core
from ..budget import OverBudget, check, remaining
from ..errors import BotSpecError
from .bots import CARD_VALUE, HeuristicBot, expected_napula_diff
from .cards import COINS_10, CUPS_FANTE, LA_MATA, NUM_CARDS, RANK, SUIT, SWORDS, SWORDS_ACE, VALUE
from .engine import NUM_TURNS, CavalloiceraState, sum_captures
from .views import state_from_view
from ..games.base import SearchHooks

ROLLOUTS = ("greedy", "random")
#: from this many legal moves the prior's scores come from the core (where it is on)
CORE_PRIOR_MOVES = 64

_NO_SUMS = ((),) * 11
_SQRT2 = math.sqrt(2.0)
_FIXED_CARDS = (LA_MATA, COINS_10, CUPS_FANTE)
# _BINOM_CDF[n][k] = P(Bin(n, 1/2) <= k)
_BINOM_CDF = [[sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n for k in range(n + 1)] for n in range(14)]


def static_eval(state: CavalloiceraState, spread: float = 1.5, hand_p: float = 0.5) -> float:
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
    n0, n1 = len(p0), len(p1)
    if n0 >= 27:
        diff += 2.0
    elif n1 >= 27:
        diff -= 2.0
    else:
        diff += _most_cards_diff(q, spread)
    diff += _most_swords_diff(q)
    for c in _FIXED_CARDS:
        diff += 2.0 * q[c] - 1.0
    diff += expected_napula_diff(q[SWORDS_ACE:SWORDS_ACE + 10])
    return diff


def _most_cards_diff(q: list, spread: float) -> float:
    """Expected *most cards* points (team 0 minus team 1) while neither team has 27 cards: a normal
    approximation of team 0's count, ``q[c]`` the chance card ``c`` ends with team 0."""
    mu = sum(q)
    var = 0.0
    for x in q:
        if 0.0 < x < 1.0:
            var += x * (1.0 - x)
    sd = spread * math.sqrt(var) + 1e-9
    k = sd * _SQRT2
    return 2.0 * (1.0 - 0.5 * (1.0 + math.erf((26.5 - mu) / k)) - 0.5 * (1.0 + math.erf((25.5 - mu) / k)))


def _most_swords_diff(q: list) -> float:
    """Expected *most swords* points (team 0 minus team 1): the exact distribution of team 0's swords."""
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
    return 2.0 * p7 - 1.0


# ---------------------------------------------------------------- rollouts


def random_rollout(state: CavalloiceraState, rng: random.Random, epsilon: float = 0.0, plies: int = NUM_TURNS) -> None:
    """Uniformly random legal moves for ``plies`` turns or to the end (mutates ``state``)."""
    choice = rng.choice
    stop = min(NUM_TURNS, state.turn + plies)
    while state.turn < stop:
        card, capture = choice(state.legal_moves())
        state.play(card, capture)


def greedy_rollout(state: CavalloiceraState, rng: random.Random, epsilon: float = 0.1, plies: int = NUM_TURNS) -> None:
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
        best = _rollout_capture(state, hand, value) if state.table else None
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


def _rollout_capture(state: CavalloiceraState, hand, value) -> tuple | None:
    """The greedy rollout's capture from ``hand``: the one worth most (bonuses + the ``value`` of
    the cards won), the first of equals; None when no capture is worth more than 0."""
    table = state.table
    best = None
    best_score = 0.0
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
                s = _set_score(vc, su, cap, value, ntable)
                if s > best_score:
                    best_score, best = s, (c, cap)
    return best


def _set_score(s: float, su: int, cap: tuple, value, ntable: int) -> float:
    """``s`` (the capturing card's value, suit ``su``) plus what capturing the sum set ``cap``
    (two or more cards) adds: the cards' values, simili, scùa and quadriglia."""
    same = True
    for t in cap:
        s += value[t]
        if SUIT[t] != su:
            same = False
    n = len(cap)
    if n == ntable:
        s += 1.0
    if same:
        s += 1.0
    if n >= 3:
        s += 1.0
    return s


def quick_score(state: CavalloiceraState, move) -> float:
    """The greedy rollout's idea of a move: points and award value it wins now.

    A place scores minus the value of the card given away, below any capture.
    """
    card, capture = move
    value = CARD_VALUE
    if not capture:
        return -1.0 - value[card]
    if len(capture) > 1:
        return _set_score(value[card], SUIT[card], capture, value, len(state.table))
    t = capture[0]
    s = value[card] + value[t]
    if len(state.table) == 1:
        s += 1.0
    if t == state.prev_placed:
        s += 1.0
    return s


_ROLLOUT_FUNCS = {"greedy": greedy_rollout, "random": random_rollout}


# ---------------------------------------------------------------- determinizations


def infer_missing_ranks(state: CavalloiceraState, seat: int) -> dict:
    """Ranks each other seat most likely does not hold, from what it passed up.

    A seat that placed a card when it could have scored by rank -- a picada of
    the card placed just before, or a scùa of a table that one card of some
    rank takes whole (a single card, or numerals summing to at most 10) --
    probably held no card of that rank.  The inference is dropped for a rank
    the seat played later.  Returns ``{other seat: set of ranks}``.
    """
    replay = CavalloiceraState([list(h) for h in state.initial_hands], list(state.initial_table), state.dealer)
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


class CavalloiceraSearch(SearchHooks):
    """The search hooks of Cavalloìcera (see the module doc); defaults tuned by
    duplicate play against ``heuristic`` (docs/bots.md): greedy rollouts with
    ``epsilon=0.1``, missing-rank inference ``infer=0.9``, ``hand_p=0.65``,
    4 plies, reward = point difference / 10."""

    scale = 10.0
    depth = 4
    max_depth = NUM_TURNS
    #: option name in a spec -> (attribute, parser)
    OPTIONS = {"rollout": ("rollout", str), "epsilon": ("epsilon", float), "eps": ("epsilon", float),
               "infer": ("infer", float), "hand": ("hand_p", float)}

    def __init__(self, rollout: str = "greedy", epsilon: float = 0.1, infer: float = 0.9, hand_p: float = 0.65):
        if rollout not in _ROLLOUT_FUNCS:
            raise BotSpecError(f"unknown ismcts rollout {rollout!r}; known: {', '.join(ROLLOUTS)}")
        if not 0.0 <= epsilon <= 1.0:
            raise BotSpecError(f"ismcts epsilon must be in 0..1, got {epsilon!r}")
        if not 0.0 <= infer <= 1.0:
            raise BotSpecError(f"ismcts infer must be in 0..1, got {infer!r}")
        if not 0.0 <= hand_p <= 1.0:
            raise BotSpecError(f"ismcts hand must be in 0..1, got {hand_p!r}")
        self.rollout_name = rollout
        self._rollout = _ROLLOUT_FUNCS[rollout]
        self.epsilon = epsilon
        self.infer = infer
        self.hand_p = hand_p

    def options(self) -> dict:
        return {"rollout": self.rollout_name, "epsilon": self.epsilon, "infer": self.infer, "hand": self.hand_p}

    def determinizer(self, base: CavalloiceraState, seat: int):
        others = [s for s in range(4) if s != seat]
        sizes = [len(base.hands[s]) for s in others]
        pool = [c for s in others for c in base.hands[s]]
        missing = self._missing(base, seat)
        if missing is not None:
            dealer = _Dealer(pool, others, sizes, missing, self.infer)

            def determinize(rng: random.Random) -> CavalloiceraState:
                state = base.copy()
                hands = state.hands
                for s, h in zip(others, dealer.deal(rng)):
                    hands[s] = h
                state._legal = None
                return state
        else:
            def determinize(rng: random.Random) -> CavalloiceraState:
                state = base.copy()
                hands = state.hands
                rng.shuffle(pool)
                i = 0
                for s, n in zip(others, sizes):
                    hands[s] = sorted(pool[i:i + n])
                    i += n
                state._legal = None
                return state
        return determinize

    def _missing(self, base: CavalloiceraState, seat: int) -> dict | None:
        """``infer_missing_ranks`` when the deals lean on it (``infer > 0`` and some rank inferred), else None."""
        if self.infer <= 0:
            return None
        missing = infer_missing_ranks(base, seat)
        return missing if any(missing.values()) else None

    def core_search(self, base: CavalloiceraState, rng: random.Random, settings: dict, bias, means=None) -> tuple:
        """The whole decision in the compiled core (core/cavalloicera_search.c): the same search as
        the generic ``ismcts`` over these hooks, drawing ``rng``'s numbers (Python's Mersenne
        Twister, from its state) in the same order: the Python search's move and visits, bit for
        bit (tests/test_core_search_cavalloicera.py).  ``settings``: the bot's iterations, c, expand,
        reward, scale, depth, root; ``bias``: None or the root's prior bias by move.  Returns the
        move and its root visits by move (and, into a ``means`` dict, each legal move's mean
        reward); ``OverBudget`` when the deadline (``budget``) passes first."""
        legal = base.legal_moves()
        options = dict(settings, rollout=self.rollout_name, epsilon=self.epsilon, hand=self.hand_p, infer=self.infer)
        by_move = array("d", [bias[m] for m in legal]) if bias is not None else None
        missing = self._missing(base, base.current)
        masks = None if missing is None else [sum(1 << r for r in missing.get(s, ())) for s in range(4)]
        left = remaining()
        out = None if means is None else array("d", bytes(8 * len(legal)))
        index, visits = core.extension("cavalloicera").search(base, options, by_move, masks, 0,
                                                              0.0 if left is None else max(left, 1e-9),
                                                              rng.getstate()[1], out)
        if index is None:
            check()
            raise OverBudget("the search passed its deadline")
        if means is not None:
            means.update(zip(legal, out))
        return legal[index], dict(zip(legal, visits))

    def team(self, state: CavalloiceraState) -> int:
        return state.current & 1

    def quick_score(self, state: CavalloiceraState, move) -> float:
        return quick_score(state, move)

    def rollout(self, state: CavalloiceraState, rng: random.Random, plies: int) -> None:
        self._rollout(state, rng, self.epsilon, plies)

    def evaluate(self, state: CavalloiceraState) -> float:
        return static_eval(state, 1.5, self.hand_p)

    def prior_scores(self, view, legal):
        """``HeuristicBot().move_scores(view, legal)``; for a position of many moves, where the core is on,
        the same numbers from its C twin (core/cavalloicera_bots.c): seconds less where a table
        gives thousands of moves, while below ``CORE_PRIOR_MOVES`` rebuilding the state costs more
        than the Python scores."""
        if len(legal) >= CORE_PRIOR_MOVES and core.enabled():
            state = state_from_view(view)
            left = remaining()
            scores = core.extension("cavalloicera").move_scores(state, 0.0 if left is None else max(left, 1e-9))
            if scores is None:
                check()
                raise OverBudget("the prior passed its deadline")
            by_move = dict(zip(state.legal_moves(), scores))
            if len(by_move) == len(legal) and all(m in by_move for m in legal):
                return [by_move[m] for m in legal]
        return HeuristicBot().move_scores(view, legal)
