"""The service's pydantic models: moves, each game's view (the body of ``POST /v1/move``), the health report.

The view models are checked before a bot sees a view (types and sizes, with
field-by-field messages); each game's rules then check that the view is
consistent (``state_from_view``).  ``VIEW_MODELS`` picks the model by the
view's ``"game"``.  Each view model is built from its game's ``views.SCHEMA``
(``cavallo_env/games/viewschema.py``), the one description of the view's
fields, which ``state_from_view`` checks too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, create_model

from .. import games
from ..cavalloicera.views import MAX_LEGAL as CAVALLOICERA_MAX_LEGAL
from ..games import viewschema as vs

Card = Annotated[StrictStr, Field(max_length=vs.CARD_NAME_MAX, examples=["7-coins"])]


def _type(spec, models: dict) -> Any:
    """The pydantic type of a field spec of a view schema."""
    if isinstance(spec, vs.Int):
        return Annotated[StrictInt, Field(ge=spec.lo, le=spec.hi)]
    if isinstance(spec, vs.Text):
        return Literal[spec.choices]
    if isinstance(spec, vs.Card):
        return Card
    if isinstance(spec, vs.Cards):
        return Annotated[list[Card], Field(max_length=spec.max_len)]
    if isinstance(spec, vs.ListOf):
        return Annotated[list[_type(spec.item, models)], Field(min_length=spec.min_len, max_length=spec.max_len)]
    return _model(spec.title, spec.fields, spec.description, spec.example, models)


def _model(name: str, fields, doc: str, example: dict | None, models: dict) -> type[BaseModel]:
    """The model ``name`` of an object with ``fields`` (one model per name: a nested object shared by
    several fields, such as a move, is one component of the OpenAPI schema)."""
    if name not in models:
        config = ConfigDict(extra="ignore", json_schema_extra={"example": example} if example else None)
        models[name] = create_model(name, __config__=config, __doc__=doc or None, **{
            f.name: ((_type(f.spec, models), Field(description=f.description or None)) if f.required else
                     (Optional[_type(f.spec, models)], Field(None, description=f.description or None)))
            for f in fields})
    return models[name]


def view_model(schema: vs.ViewSchema, name: str, models: dict) -> type[BaseModel]:
    """The pydantic model ``name`` of the views of ``schema`` (nested models go to ``models``)."""
    return _model(name, schema.fields, schema.description, schema.example, models)


def _view_models() -> tuple[dict, dict]:
    """Each game's view model (``View`` for the game of a view without "game", else e.g. ``ScopaView``),
    and every model by name."""
    models: dict = {}
    out = {}
    for name in games.names():
        schema = getattr(games.get(name).module("views"), "SCHEMA", None)
        if schema is not None:
            title = "" if name == games.DEFAULT_GAME else schema.title
            out[name] = view_model(schema, f"{title}View", models)
    return out, models


#: the schema of each game's view (the view's "game" picks it; none = Cavalloìcera);
#: a registered game without one is checked by its own rules alone
VIEW_MODELS, _MODELS = _view_models()
View, BriscolaView, ScopaView = VIEW_MODELS["cavalloicera"], VIEW_MODELS["briscola"], VIEW_MODELS["scopa"]
#: a Cavalloìcera move by card names (also the answer of ``POST /v1/move``), and one of the deal so far
Move, HistoryMove = _MODELS["Move"], _MODELS["HistoryMove"]


class AnyGameView(BaseModel):
    """The view of a game with no schema here: its rules check it (``state_from_view``)."""

    model_config = ConfigDict(extra="allow")

    game: StrictStr


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
