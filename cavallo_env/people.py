"""The AI measured against people: the finished games of the table, per game, deck and AI.

A finished game (``cavallo_env.store.FinishedGame``) holds the game record of
a game a person played at the table (docs/table.md).  ``result_of`` replays
the record through the rules (``records.replay``: a record that does not
replay is skipped, saying why) and reads the final score with the game's own
``outcome``, from the AI's side: the AI's team is the team with no person in
it -- in Briscola and Scopa the AI opponent, in Cavalloìcera the two AI
opponents (the person plays with an AI partner, who is on the person's side
and is not "the AI" measured here).  A Scopa game is a match to 11, as the
table plays it; its points are the match totals.

``summarize`` groups results by game, its options (deck; Scopa's match) and
AI: the AI's wins, draws and losses, its score share ``(W + D/2) / games``
with the 95 % Wilson interval of ``evaluation.score_of`` (the one
used for bots against bots), and points per game of each side.  ``frames``
turns a finished game's record into the positions of a move-by-move replay
with every hand shown.  Nothing here reads a database: the store keeps each
game's ``result_of`` when it finishes (``store/results.py``) and sums them in
SQL (``Store.result_tallies``); ``lines_of`` makes the table's lines of those
``Tally`` sums, as ``summarize`` does of ``Result`` objects.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass
from typing import Iterable, NamedTuple

from . import games
from .errors import RecordError
from .evaluation import score_of
from .records import replay

#: the sides of a result, from the AI's point of view
WIN, DRAW, LOSS = "win", "draw", "loss"
#: the most positions ``frames`` builds for one game (a Scopa match of many deals is a few hundred)
MAX_FRAMES = 5000
#: view fields no frame shows: the seat's own hand (frames show every hand), what it has seen
PRIVATE_FIELDS = ("hand", "history", "legal_moves", "seat", "piles")


@dataclass(frozen=True)
class Result:
    """One finished game against people, from the AI's side."""

    table_id: str
    game: str
    options: tuple  # the game's options as sorted (key, value) pairs: deck, and Scopa's match
    ai: str
    outcome: str  # WIN, DRAW or LOSS: the AI's team's
    ai_points: int  # the AI's team's points (Scopa: the match totals)
    people_points: int  # the person's team's points
    player_id: str | None
    finished_at: str  # ISO 8601, UTC

    @property
    def deck(self) -> str:
        return dict(self.options).get("deck", "")

    def for_person(self) -> dict:
        """The game as its player's history shows it: the person's result and points first."""
        mine = {WIN: LOSS, LOSS: WIN, DRAW: DRAW}[self.outcome]
        return {"table_id": self.table_id, "game": self.game, "title": games.get(self.game).title,
                "deck": self.deck, "options": dict(self.options), "ai": self.ai, "result": mine,
                "points": [self.people_points, self.ai_points], "finished_at": self.finished_at}


def iso_time(value) -> str:
    """``value`` (a ``datetime``, a Unix time or a string) as ISO 8601 text, UTC when it says no zone."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = _dt.datetime.fromtimestamp(value, _dt.timezone.utc)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return value.isoformat(timespec="seconds")
    return str(value)


def ai_team(game, human_seats) -> int:
    """The team with no person in it: the AI's side, whose result is measured."""
    teams = {game.team_of(s) for s in human_seats}
    if not human_seats or len(teams) != 1 or any(not 0 <= s < game.num_seats for s in human_seats):
        raise RecordError(f"the people's seats {list(human_seats)!r} are not seats of one team of {game.title}")
    return 1 - teams.pop()


def seats_of(game, human_seats) -> list[dict]:
    """Who sat where: ``"person"``, the person's AI ``"partner"`` (Cavalloìcera) or ``"ai"``, the side measured."""
    mine = {game.team_of(s) for s in human_seats}
    return [{"seat": s, "team": game.team_of(s),
             "who": "person" if s in human_seats else ("partner" if game.team_of(s) in mine else "ai")}
            for s in range(game.num_seats)]


def options_of(game, deck, record: dict) -> tuple:
    """The game's options of a finished game: its deck, and the others the record names (Scopa's ``match``)."""
    options = {k: record[k] for k in game.options if k != "deck" and k in record}
    options["deck"] = deck
    return tuple(sorted(game.check_options(options).items()))


def result_of(finished) -> Result:
    """The ``Result`` of a ``FinishedGame``; ``RecordError`` if its record does not replay or is unfinished."""
    record = finished.record
    game = games.of_record(record)
    if game.name != finished.game:
        raise RecordError(f"the record is a {game.title} record, but the game is stored as {finished.game!r}")
    state = replay(record)
    if not state.done:
        raise RecordError("the record is not of a finished game")
    if game.deck_of(state) != finished.deck:
        raise RecordError(f"the record is dealt from the {game.deck_of(state)} deck, but the game is stored as "
                          f"played with {finished.deck!r}")
    team = ai_team(game, finished.human_seats)
    out = game.outcome(state)
    winner = out["winner"]
    outcome = DRAW if winner is None else (WIN if winner == team else LOSS)
    return Result(table_id=str(finished.table_id), game=game.name, options=options_of(game, finished.deck, record),
                  ai=finished.ai, outcome=outcome, ai_points=out["points"][team],
                  people_points=out["points"][1 - team], player_id=finished.player_id,
                  finished_at=iso_time(finished.finished_at))


def results_of(finished_games: Iterable) -> tuple[list[Result], list[dict]]:
    """``(results, skipped)``: each finished game's ``Result``, and ``{"table_id", "reason"}`` for those skipped."""
    results, skipped = [], []
    for fg in finished_games:
        try:
            results.append(result_of(fg))
        except (RecordError, ValueError, KeyError) as e:
            skipped.append({"table_id": str(fg.table_id), "reason": str(e)[:200]})
    return results, skipped


# ---------------------------------------------------------------- the table


@dataclass
class Line:
    """The AI against people in one game, with one set of options, of one AI."""

    game: str
    label: str  # "Scopa (milanesi, matches to 11)"
    deck: str
    options: dict
    ai: str
    counted_as: str  # "deals" or "matches"
    games: int
    wins: int
    draws: int
    losses: int
    score: float  # the AI's (W + D/2) / games
    score_ci: tuple  # 95 % Wilson interval of the score
    ai_points: float  # the AI's points per game
    people_points: float  # the people's points per game

    def to_dict(self) -> dict:
        d = asdict(self)
        d["score_ci"] = list(self.score_ci)
        return d


class Tally(NamedTuple):
    """The sums of one game, options and AI: what a ``Line`` is made of (``Store.result_tallies`` sums them in SQL)."""

    game: str
    options: tuple  # sorted (key, value) pairs
    ai: str
    games: int
    wins: int
    draws: int
    ai_points: int  # the AI's team's points, summed
    people_points: int


def tally(game_name: str, options: tuple, ai: str, results: list[Result]) -> Tally:
    """The ``Tally`` of ``results``, all of ``game_name`` with ``options`` and ``ai``."""
    return Tally(game_name, options, ai, len(results), sum(r.outcome == WIN for r in results),
                 sum(r.outcome == DRAW for r in results), sum(r.ai_points for r in results),
                 sum(r.people_points for r in results))


def line_of_tally(t: Tally) -> Line:
    """The ``Line`` of a ``Tally`` of at least one game."""
    n, wins, draws = t.games, t.wins, t.draws
    score, score_ci = score_of(wins, draws, n)
    opts = dict(t.options)
    return Line(game=t.game, label=games.label(t.game, opts), deck=opts.get("deck", ""), options=opts,
                ai=t.ai, counted_as=games.counted_as(t.game, opts), games=n,
                wins=wins, draws=draws, losses=n - wins - draws,
                score=score, score_ci=score_ci,
                ai_points=t.ai_points / n, people_points=t.people_points / n)


def line_of(game_name: str, options: tuple, ai: str, results: list[Result]) -> Line:
    """The ``Line`` of ``results`` (at least one), all of ``game_name`` with ``options`` and ``ai``."""
    return line_of_tally(tally(game_name, options, ai, results))


def lines_of(tallies: Iterable[Tally]) -> list[Line]:
    """One ``Line`` per ``Tally``: in the games' order, then by options and AI."""
    order = {name: i for i, name in enumerate(games.names())}
    return [line_of_tally(t) for t in sorted(tallies, key=lambda t: (order.get(t.game, len(order)),
                                                                       repr(t.options), t.ai))]


def summarize(results: Iterable[Result]) -> list[Line]:
    """One ``Line`` per game, options and AI that has results; in the games' order, then by options and AI."""
    groups: dict[tuple, list[Result]] = {}
    for r in results:
        groups.setdefault((r.game, r.options, r.ai), []).append(r)
    return lines_of(tally(*k, rs) for k, rs in groups.items())


def report_of(tallies: Iterable[Tally], skipped: list[dict]) -> dict:
    """The JSON form of the whole table from its tallies: ``lines``, the number of ``games`` and those ``skipped``."""
    lines = lines_of(tallies)
    return {"games": sum(x.games for x in lines), "lines": [x.to_dict() for x in lines], "skipped": skipped}


def report(results: list[Result], skipped: list[dict]) -> dict:
    """The JSON form of the whole table: ``lines``, the number of ``games`` and those ``skipped``."""
    return {"games": len(results), "lines": [line.to_dict() for line in summarize(results)], "skipped": skipped}


def format_report(lines: list[Line], skipped: list[dict], source: str = "") -> str:
    """The table as plain text (``cavallo people``)."""
    n = sum(x.games for x in lines)
    out = [f"the AI against people{f' ({source})' if source else ''}: {n} finished game{'s' if n != 1 else ''}",
           "", f"  {'game':<34}{'AI':<18}{'games':>6}  {'AI W / D / L':<14}{'AI score':>9}  {'95% Wilson':<16}"
               f"{'pts/game AI':>12}{'people':>8}"]
    for x in lines:
        lo, hi = x.score_ci
        wdl = f"{x.wins} / {x.draws} / {x.losses}"
        out.append(f"  {x.label:<34}{x.ai:<18}{x.games:>6}  {wdl:<14}{100 * x.score:>8.1f}%  "
                   f"[{100 * lo:.1f}%, {100 * hi:.1f}%]".ljust(2 + 34 + 18 + 6 + 2 + 14 + 9 + 2 + 16)
                   + f"{x.ai_points:>12.2f}{x.people_points:>8.2f}")
    out += ["", "  score: the AI's (wins + draws/2) / games; in Cavalloìcera the AI is the two opponents "
                "(the person plays with an AI partner); a Scopa game is a match to 11"]
    if skipped:
        out.append(f"  skipped {len(skipped)} game(s) whose record does not replay; the first: "
                   f"table {skipped[0]['table_id']}: {skipped[0]['reason']}")
    return "\n".join(out)


def export_record(finished) -> dict:
    """A finished game's record as ``cavallo people --export`` writes it: the game record itself
    (``cavallo replay`` reads it) with a ``"people"`` object saying where it was played and who the people were
    (the anonymous player id, never a display name)."""
    meta = {"table_id": str(finished.table_id), "game": finished.game, "deck": finished.deck, "ai": finished.ai,
            "human_seats": list(finished.human_seats), "player_id": finished.player_id,
            "finished_at": iso_time(finished.finished_at)}
    return {**finished.record, "people": meta}


# ---------------------------------------------------------------- the replay


def _deal_starts(record: dict) -> list[tuple[dict, list]]:
    """``(the record up to the start of deal k, deal k's moves)`` for each deal of ``record``.

    A record is one deal with its ``moves``, or (Scopa's) a list of ``deals`` each with its own;
    the prefix has no result and no move of deal k, so ``records.replay`` gives the state deal k starts in.
    """
    top = {k: v for k, v in record.items() if k != "result"}
    if "deals" not in record:
        return [({**top, "moves": []}, list(record.get("moves") or []))]
    deals = record["deals"]
    out = []
    for k, deal in enumerate(deals):
        start = {key: v for key, v in deal.items() if key != "result"}
        out.append(({**top, "deals": [*deals[:k], {**start, "moves": []}]}, list(deal.get("moves") or [])))
    return out


def _frame(game, state, n: int, deal: int, move: dict | None, ended: dict | None) -> dict:
    """The position after move ``n`` (0: deal ``deal``'s start): every hand, what the table shows, the score.

    ``ended``: the result of the deal this move ended.  When the game goes on, the state already holds the
    next deal, drawn by the engine, not the recorded one: its hands and table are not shown."""
    frame = {"n": n, "deal": deal, "move": move, "score": game.running_score(state), "deal_result": ended}
    if ended is not None and not state.done:
        frame.update(hands=[[] for _ in range(game.num_seats)], public={})
        return frame
    views = [game.make_view(state, seat) for seat in range(game.num_seats)]
    public = {k: v for k, v in views[0].items() if k not in PRIVATE_FIELDS}
    public["pile_sizes"] = [len(p) for p in views[0].get("piles", [])]
    frame.update(hands=[v["hand"] for v in views], public=public)
    return frame


def _deals(game, record: dict):
    """``(k, the state deal k starts in, deal k's moves)`` for each deal of a finished game's record."""
    if not replay(record).done:
        raise RecordError("only a finished game can be replayed with every hand shown")
    for k, (prefix, moves) in enumerate(_deal_starts(record), start=1):
        yield k, replay(prefix), moves


def frames(record: dict) -> list[dict]:
    """Every position of a finished game's record, move by move, with every hand shown (the replay page).

    Only for a finished game (``RecordError`` otherwise): its hands are no secret any more."""
    game = games.of_record(record)
    out: list[dict] = []
    for k, state, moves in _deals(game, record):
        deck = game.deck_of(state)
        out.append(_frame(game, state, out[-1]["n"] if out else 0, k, None, None))
        for mv in moves:
            if len(out) >= MAX_FRAMES:
                raise RecordError(f"the game is longer than {MAX_FRAMES} positions")
            before = len(game.deal_results(state))
            game.play(state, game.move_from_dict(mv, deck))
            results = game.deal_results(state)
            ended = results[-1] if len(results) > before else None
            out.append(_frame(game, state, out[-1]["n"] + 1, k, dict(mv), ended))
    return out


def decisions(record: dict, seats) -> list[dict]:
    """``{"view", "move"}`` for each move of ``seats`` in a finished game's record: the view (docs/contract.md)
    the seat had, and the move it made -- a person's moves as examples to learn from (docs/people.md)."""
    game = games.of_record(record)
    out = []
    for _, state, moves in _deals(game, record):
        deck = game.deck_of(state)
        for mv in moves:
            if mv["seat"] in seats:
                view = game.make_view(state, mv["seat"])
                view.pop("legal_moves", None)
                out.append({"view": view, "move": dict(mv)})
            game.play(state, game.move_from_dict(mv, deck))
    return out
