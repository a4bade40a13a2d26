"""Briscola, two players, one deal (docs/rules/briscola.md), behind the game layer.

- ``cards``     the two 40-card decks (also used by Scopa), strength and points
- ``engine``    the rules: ``BriscolaState`` (pure Python)
- ``encoding``  observation ``briscola-obs/1`` and state ``briscola-state/1`` (numpy)
- ``views``     what one seat sees, and a state rebuilt from it
- ``records``   ``briscola-record/1``: write, replay and check
- ``aec``       the PettingZoo AEC env (``cavallo/Briscola-v1``)
- ``bots``      ``GreedyBot`` and ``HeuristicBot``; ``search`` the ISMCTS hooks

``import cavallo_env.briscola`` stays light: numpy and PettingZoo load only
when an env is built (``env()``/``raw_env()``).
"""

from __future__ import annotations

from ..games.base import Game, RandomActions
from .cards import POINTS, card_name
from .engine import BriscolaState, random_deal
from .search import BriscolaSearch
from .views import TRUMP_TRICK, move_from_dict, move_to_dict, render_text

ENV_ID = "cavallo/Briscola-v1"


class Briscola(Game):
    name = "briscola"
    title = "Briscola"
    num_seats = 2
    decks = ("milanesi", "bresciane")
    record_format = "briscola-record/1"
    env_id = ENV_ID
    env_entry_point = "cavallo_env.briscola:env"
    breakdown_keys = ("points", "tricks")
    item_labels = {"points": "Card points", "tricks": "Tricks"}
    options = {"deck": "milanesi"}
    bots = {
        "greedy": "cavallo_env.briscola.bots:GreedyBot",
        "heuristic": "cavallo_env.briscola.bots:HeuristicBot",
    }
    core_tables = "cavallo_env.core.briscola:BriscolaTables"
    core_deal_keys = ("ids", "leaders")
    deal_keys = ("hands", "trump", "stock", "leader")

    # -- rules -------------------------------------------------------------------
    def new_state(self, seed=None, **options):
        opts = self.check_options(options)
        return random_deal(seed, opts["deck"])

    def state_from_deal(self, deal, **options):
        opts = self.check_options(options)
        return BriscolaState.from_deal(deal, opts["deck"])

    def play(self, state, move) -> None:
        state.play(move)

    def check_move(self, state, move) -> str | None:
        return state.check_move(move)

    def team_of(self, seat: int) -> int:
        return seat

    def outcome(self, state) -> dict:
        p, t = state.points, state.tricks
        return {"points": [p[0], p[1]],
                "breakdown": [{"points": p[0], "tricks": t[0]}, {"points": p[1], "tricks": t[1]}],
                "winner": state.result()["winner"]}

    def returns(self, state, reward: str = "points") -> list[float]:
        return state.returns(reward)

    def running_score(self, state) -> dict:
        return {"points": list(state.points), "tricks": list(state.tricks)}

    # -- interchange ---------------------------------------------------------------
    def move_to_dict(self, move, deck: str | None = None) -> dict:
        """``{"play": name}``, the card named in ``deck`` (default: milanesi)."""

        return move_to_dict(move, deck or self.decks[0])

    def move_from_dict(self, d, deck: str | None = None):
        return move_from_dict(d, deck or self.decks[0])

    def describe_move(self, move, deck: str | None = None) -> str:
        return f"play {card_name(move, deck or self.decks[0])}"

    rules_summary = """
Briscola (two players, 40 cards, one deal of 20 tricks)
  - Each player holds 3 cards. The face-up card under the stock sets the trump suit
    (the briscola) and is the last card drawn.
  - The leader plays a card, then the other player. Any card may be played: there is
    no need to follow suit or to trump.
  - A trump beats any non-trump; between two trumps, or two cards of the suit led,
    the stronger wins. A card of another non-trump suit never wins.
  - Strength: A > 3 > K/R > Q/C > J/F > 7 > 6 > 5 > 4 > 2.
  - The winner takes both cards, draws first from the stock and leads the next trick.
  - Card points: A 11, 3 10, K/R 4, Q/C 3, J/F 2, the rest 0 (120 in all).
    After all 40 cards, more points wins; 60-60 is a draw.
  - Terms: a "carico" is a loaded card (A or 3); a "liscio" a card worth nothing.
"""

    legend = ("Briscola: the face-up card's suit is trump; a trick goes to the higher trump, else to the higher "
              "card of the suit led (A > 3 > K > Q > J > 7 .. 2); A 11, 3 10, K 4, Q 3, J 2 points; over 60 of 120 "
              "wins.")

    def deal_notes(self, view: dict) -> str:
        return f"  trump card: {view['trump']}\n"

    def move_note(self, before: dict, after: dict) -> str:
        """The second card of a trick: who took it, and its points."""
        if len(before["trick"]) != 1:
            return ""
        taker = 0 if len(after["piles"][0]) > len(before["piles"][0]) else 1
        return f"   -> trick to seat {taker} (+{after['points'][taker] - before['points'][taker]})"

    def view_text(self, view: dict, options: dict | None = None) -> str:
        me, stock = view["seat"], view["stock_size"]
        piles = [len(view["piles"][me]), len(view["piles"][1 - me])]
        lines = [f"trick {len(view['history']) // 2 + 1} of 20: your move ---",
                 f"Trump:       {view['trump']} (the {view['trump'].split('-')[1]} are trumps); "
                 f"stock: {stock} card{'' if stock == 1 else 's'} face down",
                 f"On the trick: {' '.join(view['trick'])} (played by the opponent)" if view["trick"]
                 else "You lead this trick.",
                 f"Your hand:   {' '.join(view['hand'])}",
                 f"Points:      you {view['points'][me]}, opponent {view['points'][1 - me]} "
                 f"(piles of {piles[0]} and {piles[1]} card{'' if piles[1] == 1 else 's'})"]
        return "\n".join(lines) + "\n"

    def after_move(self, state, viewer: int) -> dict:
        """What the last move caused that ``viewer`` may know: once a trick is complete,
        ``{"trick": {"winner", "points", "drew"}}``, ``drew`` (while the stock lasts) the card
        each seat drew by name, or None for a card ``viewer`` may not see (the other's, but
        the face-up trump card, which the last drawer takes in view of both)."""
        moves = state.moves
        if not moves or len(moves) % 2:
            return {}
        winner = state.leader
        out = {"winner": winner, "points": POINTS[moves[-2][1]] + POINTS[moves[-1][1]]}
        if len(moves) // 2 <= TRUMP_TRICK:  # both drew: the winner first, the trump card is the last
            drawn = [state.hands[s][-1] for s in (0, 1)]
            out["drew"] = [card_name(c, state.deck) if s == viewer or c == state.trump else None
                           for s, c in enumerate(drawn)]
            if not state.stock:
                out["trump_to"] = 1 - winner  # the stock is empty: the loser took the face-up trump card
        return {"trick": out}

    def after_move_text(self, report: dict, name) -> str:
        """``after_move``'s report as a line of text; ``name(seat)`` names a seat ("you", "the opponent")."""
        trick = report.get("trick")
        if trick is None:
            return ""
        text = f"    {name(trick['winner'])} took the trick (+{trick['points']} points)"
        if "drew" in trick:
            order = (trick["winner"], 1 - trick["winner"])  # the winner draws first
            draws = [f"{name(s)} drew " + ("a card" if trick["drew"][s] is None
                                          else f"the trump card {trick['drew'][s]}" if s == trick.get("trump_to")
                                          else trick["drew"][s]) for s in order]
            text += "; " + ", ".join(draws)
        return text + ".\n"

    def render(self, state) -> str:
        return render_text(state)

    # -- search ------------------------------------------------------------------------
    def search(self, **options):
        return BriscolaSearch(**options)

    # -- the batched env -----------------------------------------------------------------
    def state_from_ids(self, ids: list, first: int, rng=None, **options):
        """``ids``: the hands of seats 0 and 1 (0:3, 3:6), the trump card (6), the stock top first
        (7:); ``first`` the leader."""
        opts = self.check_options(options)
        return BriscolaState((ids[0:3], ids[3:6]), ids[6], ids[7:], first, opts["deck"])

    def move_actions(self, state, move) -> list[int]:
        return [move]  # an action is the card played

    def random_actions(self, rng):
        return BriscolaRandomActions(rng)


class BriscolaRandomActions(RandomActions):
    """The core's random Briscola actions: a card of the hand, as ``random_playout`` draws it."""

    def next(self, state) -> int:  # every action is a move: the env's core is the state
        hand = state.hands[state.current]
        return hand[int(self.rng.random() * len(hand))]


GAME = Briscola()


#: ``cavallo_env.briscola.env()`` / ``raw_env()``: the wrapped and the bare PettingZoo AEC env
env = GAME.env
raw_env = GAME.raw_env


__all__ = ["Briscola", "GAME", "ENV_ID", "env", "raw_env"]
