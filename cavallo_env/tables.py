"""Tables: games a person plays in the browser against the AI, held by the server and kept in a database.

The server owns every game.  A ``TableSession`` holds the engine state of one game;
the person sits in seat 0, the AI in every other seat (in Cavalloìcera the AI
partner in seat 2 too).  The page sees only ``TableSession.snapshot()``: seat 0's
view (docs/contract.md) plus what every player at a real table sees -- the
score so far, the last move with its bonuses, the completed deals' results --
and never another seat's hand or the stock.  Every move the page sends is
read and checked by the engine (``Game.check_move``) before it is played.

Every table and every move is written to the database (``cavallo_env.store``,
docs/database.md) as it is played: the table's seed and options and its moves
in order rebuild the exact game, so a restarted server, or another server on
the same database, continues it at the same move with the same cards.  The
move count the page saw (``expect``) is the optimistic lock, and the database
enforces it: of two servers playing move ``n`` of one table, one writes it and
the other answers 409.  A table belongs to whoever created it: ``create``
returns a secret token, of which the database keeps only a hash, and every
later call must give it (a wrong one is answered as a table that does not exist).

``TableStore`` holds the tables of one process in memory (a cache of the
database), bounds their number in all and per client (an opaque client key:
the client's address, kept in memory only), lets idle ones expire, and when
full drops the longest-idle ones past a short grace.  Nothing here knows about
HTTP (``cavallo_env.serve`` adds the routes) or about threads beyond each
table's lock: the caller computes the AI's move off its event loop with
``TableSession.ai_view`` and plays it with ``TableSession.play_ai``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from contextlib import contextmanager

from . import games
from .errors import ViewError

HUMAN = 0

#: the card site's decks and the games each offers (the page's menu)
CATALOG = (
    {"deck": "bresciane", "games": ["cavalloicera", "briscola"]},
    {"deck": "milanesi", "games": ["briscola", "scopa"]},
)


class TableError(ValueError):
    """A request the table refuses: the text says why (an HTTP 4xx, or 503).

    ``code`` names the reason for the page, which says it in the player's
    language (``errors.<code>`` in its strings); the text is English.
    """

    def __init__(self, message: str, status: int = 422, code: str = "refused"):
        super().__init__(message)
        self.status = status
        self.code = code


#: the fields of a move the page sends
MOVE_FIELDS = ("play", "capture", "expect")


def catalog() -> list[dict]:
    """The decks, their games, and each game's seats and options (``GET /v1/games``)."""
    out = []
    for entry in CATALOG:
        items = []
        for name in entry["games"]:
            game = games.get(name)
            items.append({"game": name, "title": game.title, "seats": game.num_seats,
                          "match": "match" in game.options})
        out.append({"deck": entry["deck"], "games": items})
    return out


def shown(value, limit: int | None = 40) -> str:
    """``value`` as a request's text may echo it: at most ``limit`` characters (``None``: all),
    and every character UTF-8 cannot carry (a lone surrogate such as ``"\\ud800"``) escaped,
    so an error message about a hostile value can always be sent."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except (ValueError, RecursionError):  # an int too long to write out, a list nested too deep
        text = f"<{type(value).__name__} too long to show>"
    return text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def _offered(game_name, deck) -> bool:
    return any(e["deck"] == deck and game_name in e["games"] for e in CATALOG)


class TableSession:
    """One game at one table: seat 0 is the person, the other seats ``ai`` (a bot spec);
    ``client`` is the key of the client that opened it (``TableStore``'s quota, never written down);
    ``db`` the store its moves are written to (None: not written, e.g. while replaying)."""

    def __init__(self, table_id: str, game_name: str, deck: str, ai: str, seed: int, client=None, db=None):
        self.id = table_id
        self.client = client
        self.db = db
        self.game = games.get(game_name)
        self.options = {"deck": deck}
        if "match" in self.game.options:
            self.options["match"] = True  # Scopa: a match to 11, as on the site
        self.ai = ai
        self.seed = seed
        self.state = self.game.new_state(seed, **self.options)
        self.lock = threading.Lock()
        self.touched = time.time()
        self.moves = 0  # moves played so far, all deals: the page's clock
        self.last = None  # the last move, as the page shows it
        self.thinking = False  # an AI move is being computed
        self.stale = False  # the database has another move than this process played: read it again

    def replay(self, rows) -> None:
        """Play again the moves of the database (rows of ``Store.moves``: move_no, seat, by, move), in order."""
        for row in rows:
            move_no, seat, by, move = row
            if move_no != self.moves + 1 or self.state.done or seat != self.state.current:
                raise TableError(f"table {self.id}: the database's move {move_no} (seat {seat}) does not follow "
                                 f"move {self.moves}", 500, "refused")
            self._apply(seat, self.game.move_from_dict(json.loads(move), self.options["deck"]), by, save=False)

    # -- what the page sees ----------------------------------------------------
    def _seats(self) -> list[dict]:
        out = []
        for seat in range(self.game.num_seats):
            team = self.game.team_of(seat)
            who = "you" if seat == HUMAN else ("partner" if team == self.game.team_of(HUMAN) else "opponent")
            out.append({"seat": seat, "who": who, "team": team})
        return out

    def snapshot(self) -> dict:
        """What seat 0 may see, as JSON for the page (nothing hidden from seat 0)."""
        game, state = self.game, self.state
        view = game.make_view(state, HUMAN)
        deck = self.options["deck"]
        your_turn = not state.done and state.current == HUMAN
        legal = []
        if your_turn:
            for move in state.legal_moves():
                d = game.move_to_dict(move, deck)
                d["bonuses"] = game.move_bonuses(state, move)
                legal.append(d)
        view.pop("legal_moves", None)
        out = {
            "id": self.id,
            "game": game.name,
            "title": game.title,
            "deck": deck,
            "move_fields": list(game.move_fields),  # a move's fields: with "capture", a game that takes table cards
            "options": dict(self.options),
            "ai": self.ai,
            "seats": self._seats(),
            "view": view,
            "to_play": None if state.done else state.current,
            "your_turn": your_turn,
            "legal": legal,
            "score": game.running_score(state),
            "deals": game.deal_results(state),
            "breakdown_keys": list(game.breakdown_keys),
            "moves": self.moves,
            "last": self.last,
            "done": state.done,
            "thinking": self.thinking,
        }
        if state.done:  # the seed deals every card: told only once the game is over
            res = game.outcome(state)
            out["result"] = {"points": res["points"], "winner": res["winner"]}
            out["seed"] = self.seed
        return out

    # -- moves -------------------------------------------------------------------
    def _apply(self, seat: int, move, by: str, save: bool = True) -> None:
        game = self.game
        bonuses = game.move_bonuses(self.state, move)
        deals_before = len(game.deal_results(self.state))
        d = game.move_to_dict(move, self.options["deck"])
        game.play(self.state, move)
        self.moves += 1
        self.last = {"n": self.moves, "seat": seat, "by": by, "bonuses": bonuses,
                     "deal_ended": len(game.deal_results(self.state)) > deals_before, **d,
                     **game.after_move(self.state, HUMAN)}  # what the move caused that seat 0 may know
        if save and self.db is not None:
            self._save(seat, d, by)

    def _save(self, seat: int, move: dict, by: str) -> None:
        """Write the move just played (and the record, if it ended the game); ``TableError`` 409 if another
        server wrote this move first (this process's state is then stale, and read again on the next request)."""
        record = self.game.to_record(self.state) if self.state.done else None
        try:
            saved = self.db.add_move(self.id, self.moves, seat, by, move, record)
        except BaseException:  # the database failed (its error is answered 503): this state is not the database's
            self.stale = True
            raise
        if not saved:
            self.stale = True
            raise TableError("the table has moved on (another move was played first): reload it", 409, "stale")

    def play_human(self, move_dict, expect: int | None = None) -> None:
        """Play the person's move (a move dict, as in a view); ``TableError`` saying why not.

        The reasons never tell where a card is that seat 0 cannot see: a card
        not in its hand is "not in your hand", whoever holds it.
        """
        game, state = self.game, self.state
        if state.done:
            raise TableError("the game is over: start a new one", 409, "over")
        if state.current != HUMAN:
            raise TableError(f"it is seat {state.current}'s turn, not yours", 409, "not_your_turn")
        if expect is not None and expect != self.moves:
            raise TableError(f"the table has moved on (move {self.moves}, the page saw {expect}): reload it",
                             409, "stale")
        unknown = [k for k in move_dict if k not in MOVE_FIELDS]
        if unknown:
            raise TableError(f"invalid move: unknown field(s) {', '.join(map(repr, unknown))[:80]}; "
                             f"known: {', '.join(MOVE_FIELDS)}", code="invalid_move")
        if "capture" not in game.move_fields:  # a move is a card (Briscola): a capture is no part of it
            if move_dict.get("capture"):
                raise TableError(f"invalid move: a {game.title} move plays a card and takes nothing ('capture' "
                                 "must be empty)", code="invalid_move")
            move_dict = {"play": move_dict.get("play")}
        deck = self.options["deck"]
        try:
            move = game.move_from_dict(move_dict, deck)
        except ViewError as e:
            raise TableError(f"invalid move: {str(e).removeprefix('a move: ')}", code="invalid_move") from None
        played = move_dict.get("play")
        if played not in game.make_view(state, HUMAN)["hand"]:
            raise TableError(f"illegal move: {shown(played, 20)} is not in your hand", code="illegal_move")
        why = game.check_move(state, move)  # about seat 0's own card and the table only
        if why is not None:
            raise TableError(f"illegal move: {why}", code="illegal_move")
        self._apply(HUMAN, move, "you")

    def ai_view(self) -> tuple[int, dict]:
        """``(moves, view)`` of the AI seat to play, for the bot; ``TableError`` when it is not the AI's turn."""
        state = self.state
        if state.done:
            raise TableError("the game is over: start a new one", 409, "over")
        if state.current == HUMAN:
            raise TableError("it is your turn, not the AI's", 409, "your_turn")
        return self.moves, self.game.make_view(state, state.current)

    def hint_view(self) -> dict:
        """Seat 0's view, for "what would the AI play here"; ``TableError`` when it is not seat 0's turn."""
        if self.state.done or self.state.current != HUMAN:
            raise TableError("a hint is for your turn", 409, "not_your_turn")
        return self.game.make_view(self.state, HUMAN)

    def ai_move(self, moves: int, move_dict):
        """The AI's answer to the view of ``ai_view`` as a move, or None if it is not a legal one
        (a bot is not trusted either); ``TableError`` 409 if the table moved on meanwhile."""
        if moves != self.moves:
            raise TableError("the table moved on while the AI was thinking", 409, "stale")
        try:
            move = self.game.move_from_dict(move_dict, self.options["deck"])
        except (ViewError, TypeError, ValueError):
            return None
        return move if self.game.check_move(self.state, move) is None else None

    def play_ai(self, move, by: str, moves: int | None = None) -> None:
        """Play a move ``ai_move`` accepted (at move ``moves``: ``TableError`` 409 if the table has moved since)."""
        if moves is not None and moves != self.moves:
            raise TableError("the table moved on while the AI was thinking", 409, "stale")
        self._apply(self.state.current, move, by)

    @contextmanager
    def asking(self, question):
        """One question to the AI at a time per table: ``question()`` is asked under the lock
        (``TableError`` 409 if the AI is already busy here), its answer yielded while the table
        is marked ``thinking``."""
        with self.lock:
            if self.thinking:
                raise TableError("the AI is already thinking at this table", 409, "busy")
            answer = question()
            self.thinking = True
        try:
            yield answer
        finally:
            self.thinking = False

    def record(self) -> dict:
        """The game record so far (docs/contract.md); only once the game is over, so it shows no hidden card."""
        if not self.state.done:
            raise TableError("the record is available once the game is over", 409, "not_over")
        return self.game.to_record(self.state)


#: a player id (the browser's anonymous one) and the longest display name; a table's id is of the same letters
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
PLAYER_NAME_MAX = 40
#: seconds between two writes of a table's last use when it is only read
TOUCH_EVERY = 10.0


def token_hash(token) -> str:
    """The hash the database keeps of a table's token (a token has 192 random bits: no salt or stretching needed)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass") if isinstance(token, str) else b"").hexdigest()


def _missing() -> TableError:
    """The one answer for a table that does not exist, has ended, or is not the caller's (a wrong token)."""
    return TableError("no such table (it may have expired): start a new game", 404, "expired")


def check_player(player_id, player_name) -> None:
    """``TableError`` if the player's id or name is not one a table keeps."""
    if player_id is not None and not (isinstance(player_id, str) and PLAYER_ID.fullmatch(player_id)):
        raise TableError(f"player_id must be 8 to 64 characters of A-Z a-z 0-9 _ -, got {shown(player_id)}")
    if player_name is not None and not (isinstance(player_name, str) and len(player_name) <= PLAYER_NAME_MAX
                                        and player_name.isprintable()):
        raise TableError(f"player_name must be text of at most {PLAYER_NAME_MAX} printable characters, "
                         f"got {shown(player_name)}")


def _memory_store():
    from .store import open_store  # lazy: sqlalchemy (the runtime extra)

    return open_store("sqlite://")


class TableStore:
    """The tables of one process: at most ``max_tables`` in memory, at most ``per_client`` per client,
    each ended after ``ttl`` idle seconds; every table and move written to ``db`` (a ``cavallo_env.store.Store``;
    None: an in-memory SQLite database, gone with the process).

    A client is whatever key the caller gives ``create`` (``cavallo_env.serve``
    gives the client's address; it is never written to the database): one
    client at its quota first gives up its own longest-idle table past
    ``GRACE`` (finished ones first), else is refused with 429.  A full store
    makes room the same way from every client's tables: the finished ones idle
    past ``GRACE``, then the unfinished one idle longest past it.  A table whose
    AI is thinking is never dropped.  A dropped table ends in the database too
    (its moves stay), unless another server on the database used it lately:
    then it only leaves this process's memory, and is read back when asked for.
    """

    #: a table idle this long (seconds) may be dropped to make room when the store, or its client's share, is full
    GRACE = 60.0

    def __init__(self, ai_specs, max_tables: int = 200, ttl: float = 1800.0, seeds: bool = False,
                 per_client: int = 8, db=None):
        if not ai_specs:
            raise ValueError("a table store needs at least one AI bot spec")
        if not (isinstance(max_tables, int) and max_tables >= 1):
            raise ValueError(f"max_tables must be an int >= 1, got {max_tables!r}")
        if not (isinstance(per_client, int) and per_client >= 1):
            raise ValueError(f"per_client must be an int >= 1, got {per_client!r}")
        if not ttl > 0:
            raise ValueError(f"ttl must be > 0 seconds, got {ttl!r}")
        self.ai_specs = list(ai_specs)
        #: whether a new table may be asked for a seed (tests, benchmarks): the seed deals every card
        self.seeds = seeds
        self.max_tables = max_tables
        self.per_client = per_client
        self.ttl = float(ttl)
        self.db = _memory_store() if db is None else db
        self._tables: dict[str, TableSession] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def expire(self, now: float | None = None) -> int:
        """End the tables idle for more than ``ttl`` in the database, and drop those idle here from memory;
        how many were dropped from memory."""
        now = time.time() if now is None else now
        self.db.expire(now - self.ttl)
        with self._lock:
            old = [k for k, t in self._tables.items() if self._idle(t, now)]
            for k in old:
                del self._tables[k]
        return len(old)

    def open_tables(self, client) -> int:
        """How many tables ``client`` holds now."""
        with self._lock:
            return sum(1 for t in self._tables.values() if t.client == client)

    def _check_new(self, game_name, deck, ai, seed):
        """``(deck, ai, seed)`` of a new table, the defaults filled in; ``TableError`` for what the site does not offer."""
        if not isinstance(game_name, str) or game_name not in games.names():
            raise TableError(f"unknown game {shown(game_name)!r}; known games: {', '.join(games.names())}")
        game = games.get(game_name)
        deck = game.decks[0] if deck is None else deck
        if not isinstance(deck, str) or not _offered(game_name, deck):
            offered = [e["deck"] for e in CATALOG if game_name in e["games"]]
            raise TableError(f"{game.title} is not offered with the deck {shown(deck)!r}; "
                             f"decks: {', '.join(offered)}")
        ai = self.ai_specs[0] if ai is None else ai
        if ai not in self.ai_specs:
            raise TableError(f"the AI {shown(ai, 60)!r} is not offered here; choose one of: {', '.join(self.ai_specs)}")
        if seed is None:
            seed = secrets.randbits(128)  # the seed deals every card: too many to try them all
        elif not self.seeds:
            raise TableError("this server does not take seeds (they would deal every card): leave 'seed' out")
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
            raise TableError(f"seed must be an int in 0..2**63-1, got {shown(seed)}")
        return deck, ai, seed

    def create(self, game_name, deck=None, ai=None, seed=None, client=None, player_id=None,
               player_name=None) -> tuple[TableSession, str]:
        """A new table for ``client`` (a key; None = no quota) and its token, written to the database;
        ``TableError`` for a game, deck, AI or player the site does not take, when the client holds its quota of
        tables (429) or the store is full (503)."""
        deck, ai, seed = self._check_new(game_name, deck, ai, seed)
        check_player(player_id, player_name)
        self.expire()
        token = secrets.token_urlsafe(24)
        table = TableSession(secrets.token_urlsafe(12), game_name, deck, ai, seed, client, self.db)
        with self._lock:
            self._room(client, time.time())
            self._tables[table.id] = table
        try:
            self.db.create_table({
                "id": table.id, "token_hash": token_hash(token), "game": game_name, "deck": deck,
                "options": json.dumps(table.options), "ai": ai, "seed": str(seed), "human_seats": json.dumps([HUMAN]),
                "player_id": player_id, "player_name": player_name})
        except BaseException:
            self._forget(table.id)
            raise
        return table, token

    def _room(self, client, now: float) -> None:
        """Room for one more table of ``client`` (under the lock), else ``TableError`` 429 or 503."""
        if client is not None:
            mine = [t for t in self._tables.values() if t.client == client]
            if len(mine) >= self.per_client and not self._drop_one(mine, now):
                raise TableError(f"this client already holds {len(mine)} open tables, the most one client may "
                                 f"hold: finish or leave one (DELETE /v1/tables/{{id}}), or try again in a "
                                 f"minute", 429, "full")
        if len(self._tables) >= self.max_tables:
            self._make_room(now)
        if len(self._tables) >= self.max_tables:
            raise TableError(f"all {self.max_tables} tables are taken: try again later", 503, "full")

    def _idle(self, table, now: float) -> bool:
        """Whether ``table`` has been idle here past ``ttl`` (a table whose AI is thinking is not)."""
        return now - table.touched > self.ttl and not table.thinking

    def _droppable(self, tables, now: float) -> list[TableSession]:
        """Of ``tables``, those idle past ``GRACE`` and not thinking: finished first, then the longest idle."""
        idle = [t for t in tables if now - t.touched > self.GRACE and not t.thinking]
        return sorted(idle, key=lambda t: (not t.state.done, t.touched))

    def _drop(self, table, now: float) -> None:
        """Drop ``table`` from memory (under the lock), and end it in the database unless it was used lately."""
        del self._tables[table.id]
        self.db.end(table.id, "dropped", idle_before=now - self.GRACE)

    def _drop_one(self, tables, now: float) -> bool:
        """Drop the first of ``_droppable(tables)`` (under the lock); whether there was one."""
        victims = self._droppable(tables, now)
        if victims:
            self._drop(victims[0], now)
        return bool(victims)

    def _make_room(self, now: float) -> None:
        """A full store makes room (under the lock): every finished table idle past ``GRACE``,
        else the unfinished table idle longest past it."""
        finished = [t for t in self._droppable(self._tables.values(), now) if t.state.done]
        for t in finished:
            self._drop(t, now)
        if not finished:
            self._drop_one(self._tables.values(), now)

    def _forget(self, table_id) -> None:
        with self._lock:
            self._tables.pop(table_id, None)

    def _load(self, table_id: str, now: float) -> TableSession:
        """The table ``table_id`` read from the database: its moves replayed (``TableError`` 503 if there is no room)."""
        row = self.db.table(table_id)
        if row is None or row.status != "open":
            self._forget(table_id)
            raise _missing()
        options = json.loads(row.options)
        table = TableSession(row.id, row.game, options["deck"], row.ai, int(row.seed), None, self.db)
        table.replay(self.db.moves(table_id))
        with self._lock:
            self._tables.pop(table_id, None)
            self._room(None, now)
            self._tables[table_id] = table
        return table

    def get(self, table_id, token) -> TableSession:
        """The table ``table_id`` if ``token`` is its token (touched: it stays alive), brought up to date with the
        database; ``TableError`` 404 if unknown, ended, expired or not the token's."""
        if not isinstance(table_id, str) or not PLAYER_ID.fullmatch(table_id):  # not an id: not asked of the database
            raise _missing()
        head = self.db.head(table_id)
        if head is None or not hmac.compare_digest(token_hash(token), head.token_hash) or head.status != "open":
            self._forget(table_id)
            raise _missing()
        now = time.time()
        table = self._tables.get(table_id)
        last = max(head.touched_at, table.touched if table is not None else 0.0)
        if now - last > self.ttl and not (table is not None and table.thinking):
            self.db.end(table_id, "expired", idle_before=now - self.ttl)
            self._forget(table_id)
            raise _missing()
        if table is None or table.stale or table.moves > head.moves:
            table = self._load(table_id, now)
        elif table.moves < head.moves:  # another server played here meanwhile
            with table.lock:
                table.replay(self.db.moves(table_id, after=table.moves))
        table.touched = now
        if now - head.touched_at > TOUCH_EVERY:
            self.db.touch(table_id, now)
        return table

    def close(self, table_id, token) -> None:
        """End the table (its moves, and its record if it is finished, stay in the database)."""
        self.get(table_id, token)
        self.db.end(table_id, "closed")
        self._forget(table_id)
