"""Briscola's own bots: ``GreedyBot`` and ``HeuristicBot`` (``bots.make("greedy"|"heuristic")``).

Both read only the view (what their seat sees) and are deterministic.

``GreedyBot``: when answering, win the trick with the cheapest winning card if
that gains points; otherwise (and when leading) throw the card worth least.

``HeuristicBot`` plays from what Briscola players know:

- *card counting*: the cards still out (in the other hand or the stock) are
  the 40 minus the own hand, every card played and the trump card (whose
  place is public); so it knows which trumps and which carichi (A and 3) can
  still appear, and the chance that the other hand holds a card that beats a
  lead;
- *trump management*: each trump has a keep value (higher for the A and the 3
  of trump, and while carichi are still out); a trump is spent only when the
  trick is worth more than that, with the cheapest card that wins it;
- *carichi*: an A or 3 is played to win a trick only when it wins it (e.g. the
  A on a led 3 of its suit, or a carico on a liscio of its suit), and led only
  when nothing still out can beat it;
- *leading*: lead a liscio (a card worth nothing) of a side suit, else the
  card whose expected loss is smallest;
- *endgame* (``endgame.py``): once the stock is empty both hands are known
  exactly, and the last tricks are solved exactly (minimax, win first then
  points); with one card left in the stock every placement of the four unseen
  cards is solved.
"""

from __future__ import annotations

from math import comb

from ..bots.base import Bot
from ..errors import ViewError
from .cards import IDS, NUM_CARDS, POINTS, RANK, STRENGTH, SUIT, ACE, THREE
from .endgame import endgame_scores
from .engine import BEATS
from .views import state_from_view

_CARICO = tuple(RANK[c] in (ACE, THREE) for c in range(NUM_CARDS))


class Know:
    """What one seat knows, as card ids (from a view or, reading only public
    information, from a state)."""

    __slots__ = ("seat", "hand", "trump", "tsuit", "lead", "played", "unseen", "opp_known", "opp_size",
                 "stock_size", "points", "beats")

    @classmethod
    def from_view(cls, view) -> "Know":
        k = cls()
        try:
            ids = IDS[view.get("deck", "milanesi")]
            k.seat = view["seat"]
            k.hand = [ids[n] for n in view["hand"]]
            k.trump = ids[view["trump"]]
            history = view["history"]
            played = [ids[m["play"]] for m in history]
            k.stock_size = view["stock_size"]
            pts = view.get("points")
            if pts is None:
                pts = state_from_view(view).points
            k.points = (pts[k.seat], pts[1 - k.seat])
            sizes = view["hand_sizes"]
            k.opp_size = sizes[1 - k.seat]
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise ViewError(f"not a valid Briscola view ({type(e).__name__}: {e!s:.80})") from None
        k.lead = played[-1] if len(played) % 2 else None
        k._finish(set(played))
        return k

    @classmethod
    def from_state(cls, state, seat: int) -> "Know":
        k = cls()
        k.seat = seat
        k.hand = list(state.hands[seat])
        k.trump = state.trump
        k.stock_size = len(state.stock)
        k.points = (state.points[seat], state.points[1 - seat])
        k.opp_size = len(state.hands[1 - seat])
        k.lead = state.trick[0] if state.trick else None
        k._finish({c for _, c in state.moves})
        return k

    def _finish(self, played: set) -> None:
        self.tsuit = SUIT[self.trump]
        self.beats = BEATS[self.tsuit]
        self.played = played
        hand = set(self.hand)
        trump = self.trump
        self.unseen = [c for c in range(NUM_CARDS) if c not in played and c not in hand and c != trump]
        # the trump card, once drawn (the stock is empty), is in the hand of whoever drew it
        self.opp_known = trump if (self.stock_size == 0 and trump not in played and trump not in hand) else None


# ---------------------------------------------------------------- greedy


def _waste(c: int, tsuit: int) -> tuple:
    """Order of the cards to throw away: worth least first, trumps last."""
    return (POINTS[c] + (12 if SUIT[c] == tsuit else 0), STRENGTH[c], c)


def greedy_card(hand, lead, tsuit: int) -> int:
    """The greedy choice (see ``GreedyBot``) from a hand and the led card (None: leading)."""
    if lead is not None:
        beats = BEATS[tsuit]
        base = lead * NUM_CARDS
        win = [c for c in hand if beats[base + c] and POINTS[lead] + POINTS[c] > 0]
        if win:
            # cheapest: a card of the suit led (it keeps the trumps) taking most, else the lowest trump
            return min(win, key=lambda c: (SUIT[c] == tsuit, -POINTS[c] if SUIT[c] != tsuit else STRENGTH[c], c))
    return min(hand, key=lambda c: _waste(c, tsuit))


class _BriscolaBot(Bot):
    game = "briscola"


class GreedyBot(_BriscolaBot):
    """Win the trick cheaply when that gains points; otherwise throw the card worth least."""

    name = "greedy"

    def choose_move(self, view, legal):
        k = Know.from_view(view)
        hand = [c for c in k.hand if c in legal] or legal
        return greedy_card(hand, k.lead, k.tsuit)


# ---------------------------------------------------------------- heuristic


def _p_holds_any(n_good: int, pool: int, hand: int) -> float:
    """Chance that ``hand`` cards drawn from ``pool`` include one of ``n_good``."""
    if n_good <= 0 or hand <= 0 or pool <= 0:
        return 0.0
    if hand >= pool or n_good > pool - hand:
        return 1.0
    return 1.0 - comb(pool - n_good, hand) / comb(pool, hand)


class HeuristicBot(_BriscolaBot):
    """Card counting, trump management and an exact endgame (see the module doc)."""

    name = "heuristic"

    def __init__(self, seed=None, trump_base: float = 4.0, trump_slope: float = 0.6, carico_keep: float = 2.0,
                 lead_take_weight: float = 1.0, trump_point_risk: float = 0.6):
        super().__init__(seed)
        self.trump_base = trump_base
        self.trump_slope = trump_slope
        self.carico_keep = carico_keep
        self.lead_take_weight = lead_take_weight
        self.trump_point_risk = trump_point_risk

    def choose_move(self, view, legal):
        scores = self.move_scores(view, legal)
        return legal[max(range(len(legal)), key=lambda i: (scores[i], -legal[i]))]

    def move_scores(self, view, legal) -> list[float]:
        """A score per legal card (higher is better): exact in the endgame, else heuristic points."""
        return self.know_scores(Know.from_view(view), legal)

    def state_scores(self, state) -> list[float]:
        """The scores of the legal cards of the seat to play in ``state`` (public information only)."""
        legal = state.legal_moves()
        return self.know_scores(Know.from_state(state, state.current), legal)

    def know_scores(self, k: Know, legal) -> list[float]:
        exact = endgame_scores(k, legal)
        if exact is not None:
            return exact
        return [self._score(k, c) for c in legal]

    # -- mid-game --------------------------------------------------------------------
    def keep_value(self, k: Know, c: int) -> float:
        """Points a card is worth keeping for later tricks (beyond its own points)."""
        if SUIT[c] == k.tsuit:
            carichi_out = sum(1 for u in k.unseen if _CARICO[u] and SUIT[u] != k.tsuit)
            power = (self.trump_base + self.trump_slope * STRENGTH[c]) * (0.5 + 0.5 * min(carichi_out, 6) / 6)
            if POINTS[c]:
                # a trump with points keeps them for sure when no higher trump is still out
                higher = any(SUIT[u] == k.tsuit and STRENGTH[u] > STRENGTH[c] for u in k.unseen)
                power += POINTS[c] * (self.trump_point_risk if higher else 1.0)
            return power
        if _CARICO[c]:
            return self.carico_keep
        return 0.1 * STRENGTH[c]

    def _score(self, k: Know, c: int) -> float:
        keep = self.keep_value(k, c)
        if k.lead is not None:
            lead = k.lead
            gain = POINTS[lead] + POINTS[c]
            return (gain if k.beats[lead * NUM_CARDS + c] else -gain) - keep
        # leading: the chance the other hand beats c, from the cards still out
        beats = k.beats
        base = c * NUM_CARDS
        n_beat = sum(1 for u in k.unseen if beats[base + u])
        if k.opp_known is not None and beats[base + k.opp_known]:
            p = 1.0
        else:
            p = _p_holds_any(n_beat, len(k.unseen), k.opp_size - (k.opp_known is not None))
        pts = POINTS[c]
        # a lead that cannot be taken still invites the other's worst card; one that can is lost
        return (1 - p) * pts - p * pts * self.lead_take_weight - keep


__all__ = ["GreedyBot", "HeuristicBot", "Know", "greedy_card", "endgame_scores"]
