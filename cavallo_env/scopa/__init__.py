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

import random

from ..games.base import Game

ENV_ID = "cavallo/Scopa-v1"


class Scopa(Game):
    name = "scopa"
    title = "Scopa"
    num_seats = 2
    decks = ("milanesi", "bresciane")
    record_format = "scopa-record/1"
    env_id = ENV_ID
    env_entry_point = "cavallo_env.scopa:env"
    breakdown_keys = ("scope", "most_cards", "most_money", "settebello", "primiera")
    options = {"deck": "milanesi", "match": True}
    bots = {
        "greedy": "cavallo_env.scopa.bots:GreedyBot",
        "heuristic": "cavallo_env.scopa.bots:HeuristicBot",
    }

    def check_options(self, options: dict) -> dict:
        out = super().check_options(options)
        if not isinstance(out["match"], bool):
            raise ValueError(f"Scopa: option 'match' must be True or False, got {out['match']!r:.40}")
        return out

    def team_of(self, seat: int) -> int:
        return seat

    # -- rules -------------------------------------------------------------------
    def new_state(self, seed=None, **options):
        from .engine import random_state

        opts = self.check_options(options)
        return random_state(seed, opts["deck"], opts["match"])

    def state_from_deal(self, deal, **options):
        from .engine import state_from_deal

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

    # -- interchange ---------------------------------------------------------------
    def move_to_dict(self, move, deck: str | None = None) -> dict:
        """``{"play", "capture"}`` named in ``deck`` (default milanesi; a view's: ``deck_of(view)``)."""
        from .views import move_to_dict

        return move_to_dict(move, deck or self.decks[0])

    def move_from_dict(self, d, deck: str | None = None):
        from .views import move_from_dict

        return move_from_dict(d, deck or self.decks[0])

    def describe_move(self, move, deck: str | None = None) -> str:
        from ..briscola.cards import NAMES

        names = NAMES[deck or self.decks[0]]
        card, capture = move
        if not capture:
            return f"place {names[card]}"
        return f"{names[card]} takes {' + '.join(names[t] for t in capture)}"

    def render(self, state) -> str:
        from .views import render_text

        return render_text(state)

    # -- search ------------------------------------------------------------------------
    def search(self, **options):
        from .search import ScopaSearch

        return ScopaSearch(**options)


GAME = Scopa()


#: ``cavallo_env.scopa.env()`` / ``raw_env()``: the wrapped and the bare PettingZoo AEC env
env = GAME.env
raw_env = GAME.raw_env


__all__ = ["Scopa", "GAME", "ENV_ID", "env", "raw_env"]
