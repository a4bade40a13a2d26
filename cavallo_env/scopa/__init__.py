"""Scopa, two players, a match to 11 or one deal (docs/rules/scopa.md), behind the game layer.

- ``engine``    the rules: ``ScopaDeal`` (one deal) and ``ScopaState`` (a match), pure Python
- ``actions``   the ``Discrete(120)`` action space with capture building
- ``encoding``  observation ``scopa-obs/1`` and state ``scopa-state/1`` (numpy)
- ``views``     what one seat sees, and a state rebuilt from it
- ``records``   ``scopa-record/1``: write, replay and check
- ``aec``       the PettingZoo AEC env (``cavallo/Scopa-v1``)
- ``bots``      ``GreedyBot`` and ``HeuristicBot``; ``search`` the ISMCTS hooks

``import cavallo_env.scopa`` stays light: numpy and PettingZoo load only when
an env is built (``env()``/``raw_env()``).

Moves are ``(card, capture)`` with card ids (``suit * 10 + rank``) and the
capture a tuple sorted by id; names depend on the deck, so the interchange
methods take a ``deck`` (a view's: ``deck_of(view)``).
"""

from __future__ import annotations

from .actions import CAPTURE, TAKE, move_to_actions
from .cards import NAMES
from ..games.base import Game, RandomActions
from .engine import MONEY_SUIT, NUM_PLAYS, ScopaDeal, ScopaState, random_state, split_deck, state_from_deal
from .search import ScopaSearch
from .views import move_from_dict, move_to_dict, render_text

ENV_ID = "cavallo/Scopa-v1"


class Scopa(Game):
    name = "scopa"
    title = "Scopa"
    num_seats = 2
    options = {"deck": "milanesi", "match": True}  # a match to 11 unless match=False
    decks = ("milanesi", "bresciane")
    record_format = "scopa-record/1"
    env_id = ENV_ID
    env_entry_point = "cavallo_env.scopa:env"
    breakdown_keys = ("scope", "most_cards", "most_money", "settebello", "primiera")
    item_labels = {"scope": "Scopa", "most_cards": "Most cards", "most_money": "Most money cards",
                   "settebello": "Settebello", "primiera": "Primiera"}
    bots = {
        "greedy": "cavallo_env.scopa.bots:GreedyBot",
        "heuristic": "cavallo_env.scopa.bots:HeuristicBot",
    }
    move_fields = ("play", "capture")
    core_tables = "cavallo_env.core.scopa:ScopaTables"
    core_deal_keys = ("ids", "dealers", "seeds")
    deal_keys = ("dealer", "hands", "table", "stock")

    def check_options(self, options: dict) -> dict:
        out = super().check_options(options)
        if not isinstance(out["match"], bool):
            raise ValueError(f"Scopa: option 'match' must be True or False, got {out['match']!r:.40}")
        return out

    def team_of(self, seat: int) -> int:
        return seat

    # -- rules -------------------------------------------------------------------
    def new_state(self, seed=None, **options):
        opts = self.check_options(options)
        return random_state(seed, opts["deck"], opts["match"])

    def state_from_deal(self, deal, **options):
        opts = self.check_options(options)
        return state_from_deal(deal, opts["deck"], opts["match"])

    def play(self, state, move) -> None:
        state.play(move[0], move[1])

    def check_move(self, state, move) -> str | None:
        if not isinstance(move, tuple) or len(move) != 2 or not isinstance(move[1], tuple):
            return f"a move must be a (card, capture tuple) pair, got {move!r:.60}"
        return state.check_move(move[0], move[1])

    def outcome(self, state) -> dict:
        """``points``: the deal's points (single deal) or the match totals (match);
        ``breakdown``: per seat, the items summed over the completed deals;
        ``cards``: cards captured, summed over the deals; ``winner``: 0, 1 or None."""
        results = state.results
        breakdown = [{k: sum(r["breakdown"][s][k] for r in results) for k in self.breakdown_keys} for s in (0, 1)]
        cards = [sum(r["cards"][s] for r in results) for s in (0, 1)]
        if state.match:
            points = state.totals[:]
        else:
            points = results[-1]["points"][:] if results else state.deal.scope[:]
        return {"points": points, "breakdown": breakdown, "winner": state.winner if state.done else None,
                "cards": cards}

    def returns(self, state, reward: str = "points") -> list[float]:
        return state.returns(reward)

    def running_score(self, state) -> dict:
        """This deal's scopas (the last deal's once over) and, in a match, the totals."""
        out = {"scope": state.deal.scope[:]}
        if state.match:
            out["totals"] = state.totals[:]
        return out

    def move_bonuses(self, state, move) -> list[str]:
        deal = state.deal
        card, capture = move
        if capture and len(capture) == len(deal.table) and deal.turn + 1 < NUM_PLAYS:
            return ["scope"]
        return []

    def deal_results(self, state) -> list[dict]:
        return [{"points": r["points"][:], "breakdown": r["breakdown"], "cards": r["cards"]} for r in state.results]

    # -- search ------------------------------------------------------------------------
    def search(self, **options):
        return ScopaSearch(**options)

    # -- the batched env -----------------------------------------------------------------
    def deal_of(self, state) -> dict:
        """The match's first deal, by names."""
        first = self.to_record(state)["deals"][0]
        return {k: first[k] for k in self.deal_keys}

    def state_from_ids(self, ids: list, first: int, rng, **options):
        """``ids``: ``split_deck``'s order (the hands of seats 0 and 1, the table, the stock top
        first); ``first`` the dealer; the later deals of a match drawn from ``rng``."""
        opts = self.check_options(options)
        deal = ScopaDeal(*split_deck(ids, first), money=MONEY_SUIT[opts["deck"]])
        return ScopaState(deal, opts["deck"], opts["match"], rng)

    def use_rng(self, raw_env, rng) -> None:
        raw_env.core.state.rng = rng  # a match's later deals

    def move_actions(self, state, move) -> list[int]:
        return move_to_actions(state, move)

    def random_actions(self, rng):
        return ScopaRandomActions(rng)

    # -- interchange and texts ---------------------------------------------------------
    def render(self, state) -> str:
        return render_text(state)

    def move_to_dict(self, move, deck: str | None = None) -> dict:
        """``{"play", "capture"}`` named in ``deck`` (default milanesi; a view's: ``deck_of(view)``)."""

        return move_to_dict(move, deck or self.decks[0])

    def move_from_dict(self, d, deck: str | None = None):
        return move_from_dict(d, deck or self.decks[0])

    def describe_move(self, move, deck: str | None = None) -> str:
        names = NAMES[deck or self.decks[0]]
        card, capture = move
        if not capture:
            return f"place {names[card]}"
        return f"{names[card]} takes {' + '.join(names[t] for t in capture)}"

    _RULES = """
Scopa (two players, 40 cards, {what})
  - Values: A 1, 2-7 their number, J/F 8, Q/C 9, K/R 10.
  - Play one card. If a table card has its value you must take one such card.
    Only if none does, and some set of two or more table cards adds up to it, you
    must take one such set. Otherwise the card stays on the table.
  - A capture that empties the table is a scopa (+1), except on the last play of
    the deal. The cards left at the end go to the last player who captured.
  - Each deal: +1 for most cards (over 20), most money cards (diamonds / coins,
    over 5), the settebello (7 of the money suit) and the primiera (the best card
    of each suit: 7 = 21, 6 = 18, A = 16, 5 = 15, 4 = 14, 3 = 13, 2 = 12, courts 10;
    you need all four suits). Ties score nothing.
{end}"""
    rules_summary = _RULES.format(
        what="a match to 11 points",
        end="  - The match ends after a deal when a player has 11 or more and more than the other.\n")

    def rules_text(self, options: dict | None = None) -> str:
        if self.check_options(options or {})["match"]:
            return self.rules_summary
        return self._RULES.format(what="one deal", end="")

    legend = ("Scopa: a card must take a table card of its value, else a set summing to it; [scopa] = the table "
              "swept (+1); each deal +1 for most cards, most diamonds, the settebello (7 of diamonds) and the "
              "primiera.")

    def move_note(self, before: dict, after: dict) -> str:
        seat = before["seat"]
        return "  [scopa]" if after["scope"][seat] > before["scope"][seat] else ""

    def view_text(self, view: dict, options: dict | None = None) -> str:
        me = view["seat"]
        lines = [f"play {len(view['history']) + 1} of 36 of this deal: your move ---",
                 f"Table:       {' '.join(view['table']) or '(empty)'}",
                 f"Your hand:   {' '.join(view['hand'])}   (opponent holds {view['hand_sizes'][1 - me]}, "
                 f"stock {view['stock_size']})",
                 f"This deal:   scope you {view['scope'][me]}, opponent {view['scope'][1 - me]}; "
                 f"cards taken you {len(view['piles'][me])}, opponent {len(view['piles'][1 - me])}"]
        if self.check_options(options or {})["match"]:  # a single deal has no match score
            lines.append(f"Match:       you {view['totals'][me]}, opponent {view['totals'][1 - me]} (first to 11)")
        return "\n".join(lines) + "\n"


class ScopaRandomActions(RandomActions):
    """The core's random Scopa actions: a capture is planned only where the card has a choice of
    captures, and forgotten when a new deal of the match starts; a capture that is not the planned
    one takes a uniformly random legal table card at each step."""

    def __init__(self, rng):
        super().__init__(rng)
        self.plan = (-1, ())  # the capture drawn: (card, sorted set), for its takes
        self.deals = 0  # the deals completed, to see a new one start

    def next(self, core) -> int:
        rng = self.rng
        if core.building is None:
            moves = core.state.legal_moves()
            card, capture = rng.choice(moves)
            if not capture:
                return card
            if sum(1 for c, _ in moves if c == card) > 1:
                self.plan = (card, tuple(sorted(capture)))
            return CAPTURE + card
        card, taken, _ = core.building
        plan_card, plan = self.plan
        if plan_card == card and set(taken) <= set(plan):
            rest = sorted(set(plan) - set(taken))
            if rest and core.legal_mask()[TAKE + rest[0]]:
                return TAKE + rest[0]
        takes = core.legal_actions()  # not building the planned capture: a uniform legal take
        return takes[rng._randbelow(len(takes))]

    def played(self, core) -> None:
        deals = len(core.state.results)
        if deals != self.deals:
            self.deals = deals
            self.plan = (-1, ())  # a new deal: the core forgets its planned capture


GAME = Scopa()


#: ``cavallo_env.scopa.env()`` / ``raw_env()``: the wrapped and the bare PettingZoo AEC env
env = GAME.env
raw_env = GAME.raw_env


__all__ = ["Scopa", "GAME", "ENV_ID", "env", "raw_env"]
