"""Cavalloìcera, four players in two teams, one deal (docs/rules/cavalloicera.md), behind the game layer.

- ``cards``      the 52-card Bresciane deck: ids, names, values
- ``engine``     the rules: ``CavalloiceraState`` (pure Python)
- ``actions``    the Discrete(156) action space with capture building (``CavalloiceraActions``)
- ``encoding``   observation ``cavalloicera-obs/1`` and state ``cavalloicera-state/1`` (numpy)
- ``prior``      the heuristic prior, an optional model input
- ``views``      what one seat sees, and a state rebuilt from it
- ``records``    ``cavalloicera-record/1``: write, replay and check
- ``aec``        the PettingZoo AEC env (``cavallo/Cavalloicera-v1``)
- ``bots``, ``heuristic``, ``values``: the ``greedy`` and ``heuristic`` bots; ``search`` the ISMCTS hooks
"""

from __future__ import annotations

from ..games.base import Game
from .actions import CavalloiceraActions
from .cards import NAMES
from .engine import BREAKDOWN_KEYS, CavalloiceraState, capture_points
from .search import CavalloiceraSearch
from .views import move_from_dict, move_to_dict, render_text

ENV_ID = "cavallo/Cavalloicera-v1"


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
        "heuristic": "cavallo_env.cavalloicera.heuristic:HeuristicBot",
    }

    breakdown_keys = BREAKDOWN_KEYS

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

    def render(self, state) -> str:
        return render_text(CavalloiceraActions(state))

    # -- search
    def search(self, **options):
        return CavalloiceraSearch(**options)


GAME = Cavalloicera()
