"""The service's pydantic models: moves, each game's view (the body of ``POST /v1/move``), the health report.

The view models are checked before a bot sees a view (types and sizes, with
field-by-field messages); each game's rules then check that the view is
consistent (``state_from_view``).  ``VIEW_MODELS`` picks the model by the
view's ``"game"``.
"""

from __future__ import annotations

from typing import Annotated, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

Seat = Annotated[StrictInt, Field(ge=0, le=3)]
Card = Annotated[StrictStr, Field(max_length=16, examples=["7-coins"])]


class Move(BaseModel):
    """A move by card names: the card played and the table cards it takes (empty = place only)."""

    model_config = ConfigDict(json_schema_extra={"example": {"play": "7-coins", "capture": ["3-coins", "4-cups"]}})

    play: Card
    capture: list[Card] = Field(max_length=12)


#: the most legal moves a Cavalloìcera seat can have, bounded from above: 12 places, and four cards each of
#: values 10, 9 and 8 taking any of the deck's 1702, 1024 and 601 sets of numerals of that sum (a legal
#: position reached by play has 4,532: tests/fixtures/worst/cavalloicera.json)
CAVALLOICERA_MAX_LEGAL = 12 + 4 * (1702 + 1024 + 601)


class HistoryMove(Move):
    """A move of the deal so far, with the seat that made it."""

    model_config = ConfigDict(json_schema_extra={"example": {"seat": 1, "play": "R-cups", "capture": []}})

    seat: Seat


_EXAMPLE_VIEW = {
    "seat": 2, "dealer": 0,
    "hand": ["2-coins", "6-coins", "9-coins", "10-coins", "5-cups", "8-cups", "C-cups", "3-swords", "4-swords",
             "F-swords", "2-clubs"],
    "table": ["A-coins", "6-swords", "C-swords", "R-clubs"],
    "hand_sizes": [12, 11, 11, 12],
    "piles": [[], ["7-clubs", "7-cups"]],
    "history": [{"seat": 1, "play": "7-clubs", "capture": ["7-cups"]}],
    "legal_moves": [
        {"play": "2-coins", "capture": []}, {"play": "6-coins", "capture": []},
        {"play": "6-coins", "capture": ["6-swords"]}, {"play": "9-coins", "capture": []},
        {"play": "10-coins", "capture": []}, {"play": "5-cups", "capture": []}, {"play": "8-cups", "capture": []},
        {"play": "C-cups", "capture": []}, {"play": "C-cups", "capture": ["C-swords"]},
        {"play": "3-swords", "capture": []}, {"play": "4-swords", "capture": []}, {"play": "F-swords", "capture": []},
        {"play": "2-clubs", "capture": []},
    ],
}


class View(BaseModel):
    """What the seat to play sees (docs/contract.md); fields beyond these are ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra={"example": _EXAMPLE_VIEW})

    seat: Seat = Field(description="the seat to play (0..3); teams are seats 0+2 and 1+3")
    dealer: Seat = Field(description="the dealer of the deal; seat dealer+1 played first")
    hand: list[Card] = Field(max_length=12, description="the seat's own cards")
    table: list[Card] = Field(max_length=52, description="the cards face up on the table")
    hand_sizes: Optional[list[StrictInt]] = Field(None, min_length=4, max_length=4, description="cards in each seat's hand (checked when given)")
    piles: Optional[list[list[Card]]] = Field(None, min_length=2, max_length=2, description="each team's captured cards (checked when given)")
    history: list[HistoryMove] = Field(max_length=48, description="every move of the deal so far, in order")
    legal_moves: Optional[list[Move]] = Field(None, max_length=CAVALLOICERA_MAX_LEGAL,
                                              description="the seat's legal moves; computed from the rules when left out")


class PlayOnly(BaseModel):
    """A Briscola move: the card played."""

    play: Card


class BriscolaHistoryMove(PlayOnly):
    seat: Annotated[StrictInt, Field(ge=0, le=1)]


_DECK = Field(description="'milanesi' or 'bresciane'")
Seat2 = Annotated[StrictInt, Field(ge=0, le=1)]


class BriscolaView(BaseModel):
    """What the Briscola seat to play sees (docs/contract.md, "Briscola")."""

    model_config = ConfigDict(extra="ignore")

    game: StrictStr = Field(description="'briscola'")
    deck: StrictStr = _DECK
    seat: Seat2
    leader: Seat2 = Field(description="the seat that leads the current trick")
    hand: list[Card] = Field(max_length=3)
    trump: Card = Field(description="the face-up card: its suit is trump")
    stock_size: Annotated[StrictInt, Field(ge=0, le=33)]
    hand_sizes: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    trick: list[Card] = Field(max_length=1, description="the card already played to this trick, if any")
    piles: Optional[list[list[Card]]] = Field(None, min_length=2, max_length=2)
    points: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    history: list[BriscolaHistoryMove] = Field(max_length=40)
    legal_moves: Optional[list[PlayOnly]] = Field(None, max_length=3)


class ScopaView(BaseModel):
    """What the Scopa seat to play sees (docs/contract.md, "Scopa")."""

    model_config = ConfigDict(extra="ignore")

    game: StrictStr = Field(description="'scopa'")
    deck: StrictStr = _DECK
    seat: Seat2
    dealer: Seat2
    hand: list[Card] = Field(max_length=3)
    table: list[Card] = Field(max_length=40)
    stock_size: Annotated[StrictInt, Field(ge=0, le=30)]
    hand_sizes: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    piles: Optional[list[list[Card]]] = Field(None, min_length=2, max_length=2)
    scope: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    totals: Optional[list[Annotated[StrictInt, Field(ge=0, le=10_000)]]] = Field(None, min_length=2, max_length=2)
    history: list[Annotated[HistoryMove, Field()]] = Field(max_length=36)
    legal_moves: Optional[list[Move]] = Field(None, max_length=4096)


class AnyGameView(BaseModel):
    """The view of a game with no schema here: its rules check it (``state_from_view``)."""

    model_config = ConfigDict(extra="allow")

    game: StrictStr


#: the schema of each game's view (the view's "game" picks it; none = Cavalloìcera);
#: a registered game without one is checked by its own rules alone
VIEW_MODELS = {"cavalloicera": View, "briscola": BriscolaView, "scopa": ScopaView}


class Health(BaseModel):
    status: str
    bot: str
    obs_version: str  # the bot's game's (Cavalloìcera's for a bot of every game); ``games`` has each game's
    action_version: str
    games: dict = {}
    cavallo_env: str
    model: Optional[dict] = None
    uptime_s: float
    tables: int
