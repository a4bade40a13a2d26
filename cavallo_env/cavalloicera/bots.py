"""Cavalloìcera's bots: ``greedy`` (the most points now) and ``heuristic``, a hand-written
player in the spirit of the Scopone rule books.

``greedy`` plays the move worth the most points now (the bonuses it scores and
the award value of the cards it takes, ``CARD_VALUE``); ties go to the bigger
capture, then to the lower card id.

``heuristic``:

The bot reads only its view (hand, table, history, piles, hand sizes) and keeps
nothing between calls.  For every legal move it computes

    score = what the move wins now  -  what it hands to the next player

and plays the best.  Its rules, in order of importance:

1. **Card values depend on the deal so far** (``award_values``).  Each card is
   worth, in points of difference, half the swing between our team owning it
   and theirs owning it:

   - La Mata (2-swords), 10-coins and F-cups: a whole point each.
   - *Most cards* (+2 at 27 of 52): a card is worth the chance that it decides
     the race, from both piles and a spread-out guess of how the remaining
     cards split; worth nothing once a team has 27.
   - *Most swords* (+1 at 7 of 13): a sword is worth the chance that our
     swords end at exactly 6 without it; nothing once a team has 7.
   - *Napula*: A, 2, 3 of swords open a run worth 3..10 points.  Each sword
     A..10 is worth how much owning it rather than losing it changes the
     expected napula of both teams, given who already holds which swords
     (a run the other team has broken is worth nothing).

2. **Immediate points**: the bonuses a capture scores (scùa, picada, simili,
   quadriglia) plus the value of the played card and of every card taken.

3. **Do not hand points to the next player** (always an opponent).  After the
   move, every card not yet seen (not in our hand, on the table or in a pile)
   may be in the next player's hand.  For each such card the bot works out
   the best capture it would have on the table the move leaves: a picada of a
   card we placed, a scùa if it can take the whole table (one card of its
   rank, or numerals summing to its value), simili, quadriglia, and the value
   of what it takes.  Counting the seen cards, the next player's hand is a
   random subset of the unseen cards, so the expected best reply is exact
   under that assumption (hypergeometric over the sorted gains); it is
   subtracted with weight ``threat_weight`` (1.3: a reply also costs us the
   tempo, tuned by duplicate play against the weight 1.0).  This is
   what stops the bot from placing a card whose rank is still live, from
   leaving one card or a small sum alone on the table, and from dropping
   La Mata where it can be taken.

4. **Play with the partner in mind**: after the opponent's reply the partner
   plays.  A next player with no capture at all must place a card, which our
   partner may then take with a picada (and the table stays full for us), so
   the bot adds ``force_bonus`` times the probability that the next player
   holds no capturing card on the table the move leaves.

5. **Endgame** (``endgame.py``): in the last round (at most ``endgame_turns`` moves left) the
   unseen cards are exactly the other hands, so the bot enumerates every way
   they can be dealt and plays the move with the best average final result
   (each deal solved exactly, both teams playing their best), which also
   handles who captures last and takes what is left on the table.

Ties are broken deterministically (the bigger capture, then the lower card
id), so a seat's move depends only on its view.
"""

from __future__ import annotations

import math

from ..bots.base import Bot
from ..budget import check
from ..errors import ViewError, require, unreadable
from .cards import COINS_10, CUPS_FANTE, LA_MATA, NUM_CARDS, RANK, SUIT, SWORDS, SWORDS_ACE, VALUE, card_id
from .endgame import EndgameTooLarge, endgame_scores
from .engine import NUM_SEATS, NUM_TURNS, CavalloiceraState, capture_points, sum_captures
from .views import state_from_view

# -- card values toward the end-of-deal awards ------------------------------
# Award value of owning a card: La Mata, 10-coins and F-cups are worth a point
# each; a sword is a share of "most swords" (+1 among 13 swords); every card is a
# share of "most cards" (+2 among 52); the swords A, 2, 3 open the napula (worth
# 3+), so they carry extra.  These are estimates used to rank moves, not rules.
CARD_SHARE = 2.0 / 27  # one card toward "most cards"
SWORD_SHARE = 1.0 / 7  # one sword toward "most swords"
NAPULA_OPENERS = {SWORDS_ACE: 0.6, SWORDS_ACE + 1: 0.6, SWORDS_ACE + 2: 0.6}


def _value(c: int) -> float:
    v = CARD_SHARE
    if SUIT[c] == SWORDS:
        v += SWORD_SHARE
    if c in (LA_MATA, COINS_10, CUPS_FANTE):
        v += 1.0
    v += NAPULA_OPENERS.get(c, 0.0)
    return v


#: award value of every card id
CARD_VALUE = tuple(_value(c) for c in range(NUM_CARDS))


# -- greedy ------------------------------------------------------------------
def immediate_points(move, table, prev_placed) -> float:
    """Bonuses a move scores now plus the award value of the cards it wins."""
    card, capture = move
    if not capture:
        return 0.0
    empty = len(capture) == len(table)
    return sum(capture_points(card, capture, empty, prev_placed)) + CARD_VALUE[card] + sum(CARD_VALUE[t] for t in capture)


def previous_placed(view) -> int | None:
    """The card the previous turn placed (the picada target), from the history."""
    hist = view["history"]
    if not hist or hist[-1]["capture"]:
        return None
    return card_id(hist[-1]["play"])


class GreedyBot(Bot):
    """The legal move worth most immediate points (bonuses + award value taken).

    Ties, and turns with no capture, are broken deterministically: a bigger
    capture first, then place the least valuable card, then lowest card id.
    """

    name = "greedy"
    game = "cavalloicera"

    def choose_move(self, view, legal):
        require(view, ("table", "history"))
        try:
            table = [card_id(n) for n in view["table"]]
            prev = previous_placed(view)
        except ViewError:
            raise
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as e:
            raise unreadable(e, "Cavalloìcera") from None

        def key(move):
            card, capture = move
            pts = immediate_points(move, table, prev)
            return (-pts, -len(capture), CARD_VALUE[card] if not capture else 0.0, card, capture)

        return min(legal, key=key)


# -- heuristic ---------------------------------------------------------------
_SQRT2 = math.sqrt(2.0)
_FIXED = {LA_MATA: 1.0, COINS_10: 1.0, CUPS_FANTE: 1.0}


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / _SQRT2))


def _binom_pmf(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    return math.comb(n, k) / (1 << n)


def expected_napula_diff(p) -> float:
    """Expected napula of team "us" minus "them"; ``p[i]`` = P(we own sword i).

    ``p`` has 10 entries (A..10 of swords); each card we do not own the other
    team owns.  The run counts only with A, 2 and 3 (3 points) and grows by
    one for each next sword.
    """
    diff = 0.0
    for own in (True, False):
        prob = 1.0
        total = 0.0
        for i in range(10):
            prob *= p[i] if own else 1.0 - p[i]
            if prob == 0.0:
                break
            if i == 2:
                total += 3.0 * prob
            elif i > 2:
                total += prob
        diff += total if own else -total
    return diff


def award_values(my_pile, their_pile, spread: float = 1.5, hand=(), hand_bias: float = 0.5) -> list[float]:
    """Value (points of difference) of winning each card now, given the piles.

    ``hand`` cards may be given a probability ``hand_bias`` of ending with us
    in the napula estimate (0.5 = no better than any other unowned card).
    """
    mine, theirs = set(my_pile), set(their_pile)
    m = len(mine)
    remaining = NUM_CARDS - m - len(theirs)
    # most cards: P(our final count without this card is 25 or 26)
    n = max(remaining - 1, 0)
    if m >= 27 or len(theirs) >= 27:
        card_v = 0.0
    elif n == 0:
        card_v = 1.0 if m in (25, 26) else 0.0
    else:
        mu, sd = n / 2.0, spread * math.sqrt(n) / 2.0
        lo, hi = max(25 - m - 0.5, -0.5), min(26 - m + 0.5, n + 0.5)
        card_v = max(0.0, _phi((hi - mu) / sd) - _phi((lo - mu) / sd))
    # most swords: P(our swords without this one end at exactly 6)
    ms = sum(1 for c in mine if SUIT[c] == SWORDS)
    ts = sum(1 for c in theirs if SUIT[c] == SWORDS)
    rs = 13 - ms - ts
    sword_v = _binom_pmf(rs - 1, 6 - ms) if rs > 0 else 0.0
    # napula
    p = []
    for i in range(10):
        c = SWORDS_ACE + i
        p.append(1.0 if c in mine else 0.0 if c in theirs else hand_bias if c in hand else 0.5)
    nap = [0.0] * 10
    for i in range(10):
        if p[i] in (0.0, 1.0):
            continue
        q = p[i]
        p[i] = 1.0
        with_it = expected_napula_diff(p)
        p[i] = 0.0
        without = expected_napula_diff(p)
        p[i] = q
        nap[i] = (with_it - without) / 2.0
    values = []
    for c in range(NUM_CARDS):
        v = card_v + _FIXED.get(c, 0.0)
        if SUIT[c] == SWORDS:
            v += sword_v
            i = c - SWORDS_ACE
            if i < 10:
                v += nap[i]
        values.append(v)
    return values


#: the view fields the heuristic reads (a view without one is a ``ViewError``)
VIEW_KEYS = ("seat", "hand", "table", "history", "piles", "hand_sizes")


class _Info:
    """What the heuristic needs from a view, by card ids."""

    __slots__ = ("seat", "hand", "table", "prev_placed", "my_pile", "their_pile", "hand_sizes", "turn", "unseen")

    def __init__(self, view):
        require(view, VIEW_KEYS)
        try:
            self.seat = view["seat"]
            team = self.seat % 2
            self.hand = [card_id(n) for n in view["hand"]]
            self.table = sorted(card_id(n) for n in view["table"])
            hist = view["history"]
            self.turn = len(hist)
            last = hist[-1] if hist else None
            self.prev_placed = card_id(last["play"]) if last is not None and not last["capture"] else None
            piles = [[card_id(n) for n in p] for p in view["piles"]]
            self.my_pile, self.their_pile = piles[team], piles[1 - team]
            self.hand_sizes = list(view["hand_sizes"])
            if len(self.hand_sizes) != NUM_SEATS:
                raise ViewError(f"'hand_sizes' must list {NUM_SEATS} seats, got {len(self.hand_sizes)}")
        except ViewError:
            raise
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as e:
            raise unreadable(e, "Cavalloìcera") from None
        seen = set(self.hand) | set(self.table) | set(piles[0]) | set(piles[1])
        self.unseen = [c for c in range(NUM_CARDS) if c not in seen]

    @classmethod
    def from_state(cls, state: CavalloiceraState) -> "_Info":
        """The same facts for the seat to play, read from a ``CavalloiceraState`` (what it can see only)."""
        info = cls.__new__(cls)
        seat = info.seat = state.current
        team = seat % 2
        info.hand = list(state.hands[seat])
        info.table = list(state.table)  # sorted
        info.turn = state.turn
        info.prev_placed = state.prev_placed
        info.my_pile, info.their_pile = state.piles[team], state.piles[1 - team]
        info.hand_sizes = [len(h) for h in state.hands]
        seen = set(info.hand)
        seen.update(info.table, state.piles[0], state.piles[1])
        info.unseen = [c for c in range(NUM_CARDS) if c not in seen]
        return info


def _bonus_base(capture, table_len: int, prev_placed) -> int:
    """Bonuses of a capture other than simili (which needs the played suit)."""
    b = 0
    if len(capture) == table_len:
        b += 1
    if len(capture) == 1 and capture[0] == prev_placed:
        b += 1
    if len(capture) >= 3:
        b += 1
    return b


def best_replies(table, prev_placed, values, ranks=None) -> list:
    """Best capture gain (bonuses + value taken) per (rank, suit) of a played card.

    Returns ``gains[rank]`` = None when that rank captures nothing on
    ``table`` (or is not in ``ranks``, when given), else a list of 4 gains by
    suit of the played card (its own value not included).
    """
    table = tuple(table)
    n = len(table)
    numerals = tuple(t for t in table if VALUE[t])
    sums = sum_captures(numerals) if len(numerals) >= 2 else None
    by_rank: dict[int, list] = {}
    for t in table:
        by_rank.setdefault(RANK[t], []).append(t)
    out = [None] * 13
    no = -1e9
    for rank in (range(13) if ranks is None else ranks):
        singles = by_rank.get(rank, ())
        multi = sums[rank + 1] if rank < 10 and sums is not None else ()
        if not singles and not multi:
            continue
        best = no
        for t in singles:  # a rank match: scùa if alone, picada if just placed; never simili
            g = values[t] + (n == 1) + (t == prev_placed)
            if g > best:
                best = g
        simili = [no, no, no, no]
        for st in multi:  # a sum of >= 2 cards: scùa, quadriglia, simili
            g = (len(st) == n) + (len(st) >= 3)
            for t in st:
                g += values[t]
            if g > best:
                best = g
            suit0 = SUIT[st[0]]
            for t in st:
                if SUIT[t] != suit0:
                    break
            else:
                if g + 1 > simili[suit0]:
                    simili[suit0] = g + 1
        out[rank] = [simili[0] if simili[0] > best else best, simili[1] if simili[1] > best else best,
                     simili[2] if simili[2] > best else best, simili[3] if simili[3] > best else best]
    return out


def expected_best_reply(table, prev_placed, values, unseen, hand_size: int) -> tuple[float, float]:
    """Expected best immediate gain of a player holding ``hand_size`` random unseen cards.

    Returns ``(expected gain, probability of having any capture)``.
    """
    if hand_size <= 0 or not unseen:
        return 0.0, 0.0
    return expected_from_replies(best_replies(table, prev_placed, values, {RANK[c] for c in unseen}), values,
                                 unseen, hand_size)


def expected_from_replies(replies, values, unseen, hand_size: int) -> tuple[float, float]:
    """``expected_best_reply`` from the table's ``best_replies`` (for the ranks of ``unseen``)."""
    u = len(unseen)
    if hand_size <= 0 or u == 0:
        return 0.0, 0.0
    hand_size = min(hand_size, u)
    gains = []
    for c in unseen:
        r = replies[RANK[c]]
        if r is not None:
            gains.append(r[SUIT[c]] + values[c])
    if not gains:
        return 0.0, 0.0
    gains.sort(reverse=True)
    # P(the k-th best card is the best one held) = C(u-k, n-1) / C(u, n)
    p = hand_size / u
    expected = 0.0
    k = 1
    for g in gains:
        if g <= 0 or p <= 0:
            break
        expected += g * p
        if k >= u:
            break
        p *= (u - k - hand_size + 1) / (u - k)
        k += 1
    # P(holds at least one capturing card)
    m = len(gains)
    p_none = math.comb(u - m, hand_size) / math.comb(u, hand_size) if u - m >= hand_size else 0.0
    return expected, 1.0 - p_none


class AfterCaptures:
    """``best_replies`` of every table a capture leaves, from the sets of the table before it.

    A table of 40 numerals has thousands of sets, and a decision thousands of
    captures: enumerating the sets of each table left costs seconds.  A set's
    gain does not depend on the table around it except for the scùa (the set
    is the whole table), so the sets of the table before the capture are
    ranked once by gain, per sum and per suit for simili, and the best set a
    capture leaves is the first of them that shares no card with it.  Each
    gain is summed as ``best_replies`` sums it, so the values are the same
    bit for bit (``tests/test_bounded_bots.py`` compares them).
    """

    __slots__ = ("values", "by_sum", "same_suit")

    def __init__(self, table, values):
        self.values = values
        numerals = tuple(t for t in table if VALUE[t])
        sums = sum_captures(numerals) if len(numerals) >= 2 else ((),) * 11
        self.by_sum = []
        self.same_suit = []
        for w in range(11):
            ranked = []
            suited = ([], [], [], [])
            for st in sums[w]:
                g = len(st) >= 3
                mask = 0
                for t in st:
                    g += values[t]
                    mask |= 1 << t
                ranked.append((g, mask))
                suit0 = SUIT[st[0]]
                if all(SUIT[t] == suit0 for t in st):
                    suited[suit0].append((g + 1, mask))
            ranked.sort(key=_first, reverse=True)
            for lst in suited:
                lst.sort(key=_first, reverse=True)
            self.by_sum.append(ranked)
            self.same_suit.append(suited)

    def replies(self, left, capture, ranks) -> list:
        """``best_replies(left, None, values, ranks)`` where ``left`` is the table less ``capture``."""
        values = self.values
        taken = 0
        for t in capture:
            taken |= 1 << t
        n = len(left)
        whole = None  # the sum of the table left when it is all numerals, 2 to 10 of them (a scùa set)
        if 2 <= n <= 10 and all(VALUE[t] for t in left):
            whole = sum(VALUE[t] for t in left)
        by_rank: dict[int, list] = {}
        for t in left:
            by_rank.setdefault(RANK[t], []).append(t)
        out = [None] * 13
        no = -1e9
        for rank in ranks:
            singles = by_rank.get(rank, ())
            best = no
            for t in singles:
                g = values[t] + (n == 1)
                if g > best:
                    best = g
            found = False
            simili = [no, no, no, no]
            if rank < 10:
                w = rank + 1
                for g, mask in self.by_sum[w]:
                    if not mask & taken:
                        found = True
                        if g > best:
                            best = g
                        break
                for suit in range(4):
                    for g, mask in self.same_suit[w][suit]:
                        if not mask & taken:
                            simili[suit] = g
                            break
                if whole == w:  # the whole table: a scùa, counted as best_replies counts it
                    found = True
                    g = 1 + (n >= 3)
                    for t in left:
                        g += values[t]
                    if g > best:
                        best = g
                    suit0 = SUIT[left[0]]
                    if all(SUIT[t] == suit0 for t in left) and g + 1 > simili[suit0]:
                        simili[suit0] = g + 1
            if not singles and not found:
                continue
            out[rank] = [simili[0] if simili[0] > best else best, simili[1] if simili[1] > best else best,
                         simili[2] if simili[2] > best else best, simili[3] if simili[3] > best else best]
        return out


def _first(pair):
    return pair[0]


class HeuristicBot(Bot):
    """One-ply rule-book player: immediate points minus the next player's best reply.

    See the module docstring for its rules.  Parameters (for tuning):
    ``threat_weight`` scales the expected best reply of the next player,
    ``force_bonus`` rewards leaving the next player without a capture,
    ``spread`` widens the guess of how the remaining cards split,
    ``hand_bias`` is the chance a napula sword in hand ends up ours,
    ``endgame_turns`` is when the exact last-round search takes over.
    """

    name = "heuristic"
    game = "cavalloicera"

    def __init__(self, seed=None, threat_weight: float = 1.3, force_bonus: float = 0.3, spread: float = 1.5,
                 hand_bias: float = 0.6, endgame_turns: int = 4):
        super().__init__(seed)
        self.threat_weight = threat_weight
        self.force_bonus = force_bonus
        self.spread = spread
        self.hand_bias = hand_bias
        self.endgame_turns = endgame_turns

    # ------------------------------------------------------------ scoring
    def move_scores(self, view, legal) -> list[float]:
        """The score of every legal move (higher is better), in ``legal`` order."""
        return self._scores(_Info(view), legal)

    def state_scores(self, state: CavalloiceraState) -> list[float]:
        """What the bot thinks of each of ``state.legal_moves()`` (higher is better).

        Reads only what the seat to play can see.  In the last
        ``endgame_turns`` turns these are the exact expected final point
        differences of the endgame search, else the one-ply scores.  Used as
        the ``heuristic`` prior of policy networks (``cavallo_env.cavalloicera.prior``).
        """
        legal = state.legal_moves()
        if NUM_TURNS - state.turn <= self.endgame_turns:
            try:
                return endgame_scores(state, legal)
            except EndgameTooLarge:
                pass
        return self._scores(_Info.from_state(state), legal)

    @staticmethod
    def best_index(scores, legal) -> int:
        """The move the bot plays: best score, then the bigger capture, then the lower card id."""
        return max(range(len(legal)), key=lambda i: (scores[i], len(legal[i][1]), -legal[i][0]))

    def _scores(self, info: "_Info", legal) -> list[float]:
        values = award_values(info.my_pile, info.their_pile, self.spread, info.hand, self.hand_bias)
        nxt = (info.seat + 1) % NUM_SEATS
        next_size = info.hand_sizes[nxt]
        table = info.table
        prev = info.prev_placed
        scores = []
        cache: dict = {}
        ranks = {RANK[c] for c in info.unseen}
        after = None
        for card, capture in legal:
            check()
            if capture:
                left = [t for t in table if t not in capture]
                suit = SUIT[card]
                gain = (_bonus_base(capture, len(table), prev)
                        + (1 if all(SUIT[t] == suit for t in capture) else 0)
                        + values[card] + sum(values[t] for t in capture))
                key = (tuple(left), None)
            else:
                left = sorted(table + [card])
                gain = 0.0
                key = (tuple(left), card)
            hit = cache.get(key)
            if hit is None:
                if next_size <= 0 or not info.unseen:
                    hit = (0.0, 0.0)
                elif capture:
                    if after is None:
                        after = AfterCaptures(table, values)
                    hit = expected_from_replies(after.replies(left, capture, ranks), values, info.unseen, next_size)
                else:
                    hit = expected_best_reply(left, card, values, info.unseen, next_size)
                cache[key] = hit
            threat, p_capture = hit
            score = gain - self.threat_weight * threat
            if next_size > 0:
                score += self.force_bonus * (1.0 - p_capture)
            scores.append(score)
        return scores

    def choose_move(self, view, legal):
        require(view, VIEW_KEYS)
        if not isinstance(view["history"], list):
            raise ViewError("the view's 'history' must be a list of moves")
        turns_left = NUM_TURNS - len(view["history"])
        if turns_left <= self.endgame_turns:
            return self._endgame(view, legal)
        return legal[self.best_index(self.move_scores(view, legal), legal)]

    # ------------------------------------------------------------ endgame
    def _endgame(self, view, legal):
        """Average exact result over every deal of the unseen cards (last round)."""
        try:
            scores = endgame_scores(state_from_view(view), legal)
        except EndgameTooLarge:
            scores = self.move_scores(view, legal)
        return legal[self.best_index(scores, legal)]
