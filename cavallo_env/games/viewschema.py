"""The schema of a game's view as plain data, and the one checker of it.

Each game declares ``SCHEMA = ViewSchema(...)`` in its ``views`` module: the
view's fields (``Field``) with their kinds, bounds, list lengths and choices,
built from the small specs below.  ``SCHEMA.read(view)`` checks a view's
structure field by field and returns its values with the card names read as
ids; a problem is a ``ViewError`` naming the field path and what is wrong
(e.g. ``history move 3: 'play': unknown card 'Z-cups' ...``; a spec's ``read``
gets the path as a string or as a tuple, put into words only for a message).
The game's ``state_from_view`` then checks only what the structure cannot say
(cards seen twice, counts that contradict the history, ...).  ``cavallo serve`` builds its
request models from the same schemas (``cavallo_env.serve.schemas``), so a
field is described once.  No pydantic here: it is an optional dependency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from ..errors import ViewError, short_repr

#: the longest card name a view may hold (every deck's names are shorter)
CARD_NAME_MAX = 16


@dataclass(frozen=True)
class Int:
    """An int in ``lo..hi`` (``expect`` says it in messages when ``"an int in lo..hi"`` is not the words)."""

    lo: int
    hi: int
    expect: str = ""

    def read(self, value, path, ctx) -> int:
        if value.__class__ is not int or not self.lo <= value <= self.hi:
            raise ViewError(f"{_words(path)} must be {self.expect or f'an int in {self.lo}..{self.hi}'}, "
                            f"got {short_repr(value)}")
        return value


@dataclass(frozen=True)
class Text:
    """A string, one of ``choices``."""

    choices: tuple[str, ...]

    def read(self, value, path, ctx) -> str:
        if value.__class__ is not str or value not in self.choices:
            raise ViewError(f"{_words(path)} must be one of {', '.join(map(repr, self.choices))}, "
                            f"got {short_repr(value)}")
        return value


@dataclass(frozen=True)
class Card:
    """A card name of the view's deck, read as its id."""

    def read(self, value, path, ctx) -> int:
        try:
            return ctx.card(value, ctx.deck)
        except ValueError as e:
            raise ViewError(f"{_words(path)}: {str(e)[:200]}") from None


@dataclass(frozen=True)
class Cards:
    """A list of at most ``max_len`` distinct card names, read as ids."""

    max_len: int

    def read(self, value, path, ctx) -> list[int]:
        if value.__class__ is not list:
            raise ViewError(f"{_words(path)} must be a list of card names, got {type(value).__name__}")
        if len(value) > self.max_len:
            raise ViewError(f"{_words(path)} has {len(value)} cards, at most {self.max_len}")
        card, deck = ctx.card, ctx.deck
        try:
            out = [card(n, deck) for n in value]
        except ValueError as e:
            raise ViewError(f"{_words(path)}: {str(e)[:200]}") from None
        if len(set(out)) != len(out):
            dup = next(value[i] for i, c in enumerate(out) if out.count(c) > 1)
            raise ViewError(f"{_words(path)}: card {dup} appears twice")
        return out


@dataclass(frozen=True)
class ListOf:
    """A list of ``min_len..max_len`` items; ``label`` names item i (``{i}`` from 0, ``{n}`` from 1),
    ``noun`` the items, ``too_long`` (``{path}``, ``{n}``) the words for a list longer than ``max_len``."""

    item: "Spec"
    max_len: int
    min_len: int = 0
    label: str = "{path}[{i}]"
    noun: str = "items"
    too_long: str = ""

    def read(self, value, path, ctx) -> list:
        if value.__class__ is not list:
            raise ViewError(f"{_words(path)} must be a list of {self.noun}, got {type(value).__name__}")
        n = len(value)
        if n > self.max_len:
            raise ViewError(self.too_long.format(path=_words(path), n=n) if self.too_long
                            else f"{_words(path)} has {n} {self.noun}, at most {self.max_len}")
        if n < self.min_len:
            most = "" if self.min_len == self.max_len else "at least "
            raise ViewError(f"{_words(path)} must have {most}{self.min_len} {self.noun}, got {n}")
        read, label = self.item.read, self.label
        return [read(x, (label, path, i), ctx) for i, x in enumerate(value)]


@dataclass(frozen=True)
class Field:
    """A field of a view or of an object in it."""

    name: str
    spec: "Spec"
    description: str = ""
    required: bool = True


@dataclass(frozen=True)
class Obj:
    """A JSON object with ``fields`` (others are ignored), read as a dict (an absent optional field is None)."""

    fields: tuple[Field, ...]
    title: str = ""
    example: dict | None = None
    description: str = ""

    def read(self, value, path, ctx) -> dict:
        if value.__class__ is not dict:
            names = [f"'{f.name}'" for f in self.fields]
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            raise ViewError(f"{_words(path)} must be an object with {listed}, got {type(value).__name__}")
        return read_fields(self.fields, value, path, ctx)


Spec = Union[Int, Text, Card, Cards, ListOf, Obj]


def _words(path) -> str:
    """A path in words: a string, or a tuple ``(label, parent, i)`` built on the way (cheaper than words):
    item ``i`` of the list at ``parent`` named by ``label``, or with ``label`` None the field ``i``."""
    if path.__class__ is str:
        return path
    label, parent, i = path
    if label is None:
        return f"{_words(parent)}: '{i}'" if parent else f"'{i}'"
    return label.format(path=_words(parent), i=i, n=i + 1)


def read_fields(fields, value: dict, path, ctx) -> dict:
    """Each of ``fields`` of the object ``value`` at ``path`` ("" for the view) read (an absent or null
    optional one is None)."""
    out = {}
    for f in fields:
        name = f.name
        v = value.get(name)
        if v is not None or f.required:
            if v is None and name not in value:
                raise ViewError(f"{_words(path)}: '{name}' is missing" if path else f"the view has no '{name}'")
            v = f.spec.read(v, (None, path, name), ctx)
        out[name] = v
    return out


def read_value(spec: Spec, value, path: str, card: Callable, deck: str | None = None):
    """One value read on its own (a move, say) by ``spec``, its cards by ``card(name, deck)``."""
    return spec.read(value, path, _Reading(card, deck))


@dataclass
class _Reading:
    """What reading a card needs: the game's card reader and the view's deck."""

    card: Callable
    deck: str | None


@dataclass(frozen=True)
class ViewSchema:
    """The view of ``game`` (``title`` in messages): its ``fields``; ``card(name, deck)`` reads a card name
    (``ValueError`` if it is none); a ``deck`` field, if any, is read first and names the deck of the cards."""

    game: str
    title: str
    fields: tuple[Field, ...]
    card: Callable
    description: str = ""
    example: dict | None = None

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    @property
    def has_deck(self) -> bool:
        """Whether the view names its deck (a game of several decks)."""
        return any(f.name == "deck" for f in self.fields)

    def read_field(self, view, name: str):
        """The one field ``name`` of a view read (the deck too if the cards need it), even if optional."""
        if not isinstance(view, dict):
            raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
        deck = self.deck_of(view) if self.has_deck else None
        return read_fields([Field(name, self.field(name).spec)], view, "", _Reading(self.card, deck))[name]

    def deck_of(self, view) -> str:
        """The view's deck (the first of the choices when it names none)."""
        spec = self.field("deck").spec
        return spec.read(view.get("deck", spec.choices[0]) if isinstance(view, dict) else None, "'deck'", None)

    def read(self, view, skip: tuple[str, ...] = ()) -> dict:
        """The view's fields checked and read (cards as ids), but those named in ``skip`` (left out of
        the answer); ``ViewError`` naming the field and the problem."""
        if not isinstance(view, dict):
            raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
        game = view.get("game")
        if game is not None and game != self.game:
            raise ViewError(f"not a {self.title} view: 'game' is {short_repr(game)}")
        deck = read_fields([self.field("deck")], view, "", None)["deck"] if self.has_deck else None  # for the cards
        fields = [f for f in self.fields if f.name not in skip] if skip else self.fields
        return read_fields(fields, view, "", _Reading(self.card, deck))
