"""Cavalloìcera, four players in two teams, one deal (docs/rules/cavalloicera.md), behind the game layer.

- ``cards``      the 52-card Bresciane deck: ids, names, values
- ``engine``     the rules: ``CavalloiceraState`` (pure Python)
- ``actions``    the Discrete(156) action space with capture building (``CavalloiceraActions``)
- ``encoding``   observation ``cavalloicera-obs/1`` and state ``cavalloicera-state/1`` (numpy)
- ``prior``      the heuristic prior, an optional model input
- ``views``      what one seat sees, and a state rebuilt from it
- ``records``    ``cavalloicera-record/1``: write, replay and check
- ``aec``        the PettingZoo AEC env (``cavallo/Cavalloicera-v1``)
- ``bots``       the ``greedy`` and ``heuristic`` bots; ``endgame`` the exact last round; ``search`` the ISMCTS hooks
- ``learning``   what training and the policy runtime need of the game
"""

from __future__ import annotations

from ..games.base import Game, RandomActions
from .actions import CAPTURE, TAKE, CavalloiceraActions, move_to_actions
from .cards import NAMES, SUIT, SWORDS
from .engine import BREAKDOWN_KEYS, CavalloiceraState, capture_points, score
from .search import CavalloiceraSearch
from .views import move_from_dict, move_to_dict, render_text

ENV_ID = "cavallo/Cavalloicera-v1"

#: the display names of the four capture bonuses (``BREAKDOWN_KEYS[:4]``), in order
BONUS_NAMES = ("Scùa", "Picada", "Simili", "Quadriglia")


def card_list(cards) -> str:
    """``"A-coins 7-cups"``, or ``"(none)"``."""
    return " ".join(NAMES[c] for c in cards) if cards else "(none)"


def move_text(card: int, capture: tuple, table, prev_placed) -> str:
    """``"7-coins takes 3-coins + 4-cups  [Simili]"`` or ``"place 7-coins"``: a move with its bonuses."""
    if not capture:
        return f"place {NAMES[card]}"
    points = capture_points(card, capture, len(capture) == len(table), prev_placed)
    text = f"{NAMES[card]} takes {' + '.join(NAMES[t] for t in capture)}"
    bonuses = [name for name, p in zip(BONUS_NAMES, points) if p]
    return text + (f"  [{', '.join(bonuses)}]" if bonuses else "")


def _pile(pile) -> str:
    swords = sum(1 for c in pile if SUIT[c] == SWORDS)
    return f"{len(pile)} card{'' if len(pile) == 1 else 's'}, {swords} swords: {card_list(sorted(pile))}"


def _bonus_line(b) -> str:
    parts = [f"{name} {n}" for name, n in zip(BONUS_NAMES, b) if n]
    return f"{sum(b)}" + (f" ({', '.join(parts)})" if parts else "")


class Cavalloicera(Game):
    name = "cavalloicera"
    title = "Cavalloìcera"
    num_seats = 4
    decks = ("bresciane",)
    record_format = "cavalloicera-record/1"
    env_id = ENV_ID
    env_entry_point = "cavallo_env.cavalloicera.aec:env"
    options = {"deck": "bresciane"}
    bots = {
        "greedy": "cavallo_env.cavalloicera.bots:GreedyBot",
        "heuristic": "cavallo_env.cavalloicera.bots:HeuristicBot",
    }
    move_fields = ("play", "capture")
    core_tables = "cavallo_env.core.cavalloicera:CavalloiceraTables"
    core_deal_keys = ("ids", "dealers")
    deal_keys = ("dealer", "hands", "table")

    breakdown_keys = BREAKDOWN_KEYS
    item_labels = {
        **dict(zip(BREAKDOWN_KEYS, BONUS_NAMES)),
        "most_cards": "Most cards", "most_swords": "Most swords", "la_mata": "La Mata (2-swords)",
        "coins_10": "10-coins", "cups_fante": "F-cups", "napula": "Napula",
    }

    # -- rules
    def new_state(self, seed=None, **options):
        self.check_options(options)
        return CavalloiceraState.new(seed)

    def state_from_deal(self, deal, **options):
        self.check_options(options)
        return CavalloiceraState.from_deal(deal)

    def play(self, state, move) -> None:
        state.play(move[0], move[1])

    def check_move(self, state, move) -> str | None:
        return state.check_move(move[0], move[1])

    def outcome(self, state) -> dict:
        res = state.result()
        return {"points": res["team_points"], "breakdown": res["breakdown"], "winner": res["winner"],
                "cards": res["cards"]}

    def returns(self, state, reward: str = "points") -> list[float]:
        return state.returns(reward)

    def running_score(self, state) -> dict:
        b = state.bonuses
        return {key: [b[0][i], b[1][i]] for i, key in enumerate(self.breakdown_keys[:4])}

    def move_bonuses(self, state, move) -> list[str]:
        card, capture = move
        if not capture:
            return []
        points = capture_points(card, capture, len(capture) == len(state.table), state.prev_placed)
        return [key for key, p in zip(self.breakdown_keys[:4], points) if p]

    # -- interchange
    def move_to_dict(self, move, deck: str | None = None) -> dict:
        return move_to_dict(move)

    def move_from_dict(self, d, deck: str | None = None):
        return move_from_dict(d)

    def describe_move(self, move, deck: str | None = None) -> str:
        card, capture = move
        if not capture:
            return f"place {NAMES[card]}"
        return f"{NAMES[card]} takes {' + '.join(NAMES[t] for t in capture)}"

    # -- texts for a person (``cavallo play``)
    rules_summary = """\
Cavalloìcera in short (the full rules: docs/rules/cavalloicera.md)
  Cards: A 2 3 4 5 6 7 8 9 10 F C R in coins, cups, swords and clubs. A-10 are worth
    1-10; F = Fante, C = Cavallo, R = Re are courts: no value, never in a sum.
  A turn: play one card, then either take ONE table card of the same rank, or (a
    numeral) a set of two or more table numerals adding up to its value, or just
    place it. Taking is never compulsory. Taken cards go to your team's pile.
    You and your partner (seat 2) are one team, seats 1 and 3 the other.
  Capture bonuses, +1 each, they add up:
    Scùa        your capture leaves the table empty
    Picada      you take, by rank, exactly the card the previous player just placed
    Simili      the played card and every card it takes are of one suit
    Quadriglia  you take three or more table cards
  End of the deal: the cards left on the table go to the team that captured
  last (no bonus); then each team scores from its pile:
    Most cards   +2 (26-26: nobody)      Most swords  +1 (a tie: nobody)
    La Mata      +1 for the 2-swords     10-coins     +1
    F-cups       +1 (Fante of cups)      Napula       holding A, 2, 3 of swords:
                                         the length of the run from A (3..10)
  Bonuses + awards: the higher total wins; equal totals are a draw.
"""

    legend = """\
legend: capture bonuses, +1 each: [Scùa] the capture empties the table; [Picada] it takes, by rank, just the card
  the previous player placed; [Simili] the played and taken cards are all of one suit; [Quadriglia] 3+ table cards.
  End-of-deal awards from each team's pile: Most cards +2, Most swords +1, La Mata (the 2-swords) +1, 10-coins +1,
  F-cups (Fante of cups) +1, Napula (A-2-3 of swords: the length of the swords run from A). F/C/R = Fante/Cavallo/Re."""

    def view_text(self, view: dict, options: dict | None = None) -> str:
        """The position as seat ``view["seat"]`` sees it: the table, its hand, both piles, the score so far."""
        state = self.state_from_view(view)  # every public fact replayed; only hidden hands are made up
        us, hands = view["seat"] % 2, view["hand_sizes"]
        lines = [f"turn {state.turn + 1} of 48: your move ---", f"Table:       {card_list(state.table)}"]
        if state.prev_placed is not None:
            lines.append(f"             (the opponent in seat {state.moves[-1][0]} placed {NAMES[state.prev_placed]}: "
                         "take it by rank for a Picada)")
        now = score(state.piles, state.bonuses)["team_points"]
        lines += [f"Your hand:   {card_list(state.hands[view['seat']])}",
                  f"Our pile:    {_pile(state.piles[us])}",
                  f"Their pile:  {_pile(state.piles[1 - us])}",
                  f"Hands:       partner {hands[(view['seat'] + 2) % 4]}, opponents "
                  f"{hands[(view['seat'] + 1) % 4]} and {hands[(view['seat'] + 3) % 4]} cards",
                  f"Score so far (capture bonuses): us {_bonus_line(state.bonuses[us])}, "
                  f"them {_bonus_line(state.bonuses[1 - us])}",
                  f"If the deal ended now (bonuses + awards on the piles): us {now[us]}, them {now[1 - us]}"]
        return "\n".join(lines) + "\n"

    def after_move(self, state, viewer: int) -> dict:
        """What the last move caused that ``viewer`` may know: at the end of the deal, where the
        cards left on the table went (``{"leftover": {"to": seat or None, "cards": [names]}}``)."""
        if not state.done:
            return {}
        if state.unclaimed:
            return {"leftover": {"to": None, "cards": [NAMES[c] for c in state.unclaimed]}}
        return {"leftover": {"to": state.last_capturer, "cards": []}} if state.last_capturer is not None else {}

    def after_move_text(self, report: dict, name) -> str:
        """``after_move``'s report as a line of text; ``name(seat)`` names a seat."""
        left = report.get("leftover")
        if left is None:
            return ""
        if left["to"] is None:
            return f"Nobody captured: {' '.join(left['cards'])} stay unclaimed.\n"
        return f"The cards left on the table went to the last capturer, {name(left['to'])}.\n"

    def render(self, state) -> str:
        return render_text(CavalloiceraActions(state))

    # -- search
    def search(self, **options):
        return CavalloiceraSearch(**options)

    # -- the batched env
    def state_from_ids(self, ids: list, first: int, rng=None, **options):
        """``ids``: the hands of seats 0..3 (0:12, 12:24, 24:36, 36:48), the table (48:52);
        ``first`` the dealer."""
        self.check_options(options)
        return CavalloiceraState([ids[k * 12:(k + 1) * 12] for k in range(4)], ids[48:52], first)

    def move_actions(self, state, move) -> list[int]:
        return move_to_actions(state, move[0], move[1])

    def random_actions(self, rng):
        return CavalloiceraRandomActions(rng)


class CavalloiceraRandomActions(RandomActions):
    """The core's random Cavalloìcera actions: every capture drawn is planned, and forgotten once
    a move is played; a capture started elsewhere draws one of the card's capture sets."""

    def __init__(self, rng):
        super().__init__(rng)
        self.plan = (-1, ())  # the capture drawn: (card, sorted set), for its takes

    def next(self, core) -> int:
        rng = self.rng
        if core.building is None:
            card, capture = rng.choice(core.state.legal_moves())
            if not capture:
                return card
            self.plan = (card, tuple(sorted(capture)))
            return CAPTURE + card
        card, taken, sets = core.building
        plan_card, plan = self.plan
        if plan_card != card or plan[:len(taken)] != tuple(taken):  # a capture started elsewhere: draw a set
            ordered = sorted(tuple(sorted(s)) for s in sets)
            plan = ordered[rng._randbelow(len(ordered))]
            self.plan = (card, plan)
        return TAKE + plan[len(taken)]

    def played(self, core) -> None:
        if core.building is None:
            self.plan = (-1, ())  # the core forgets the drawn capture once a move is played


GAME = Cavalloicera()
