"""``ismcts:<iterations>``: single-observer information-set Monte Carlo tree search, for any game.

Each decision (Cowling, Powley & Whitehouse 2012, SO-ISMCTS):

1. The view is checked and rebuilt as a state of its game
   (``game.state_from_view``).
2. Every iteration draws a *determinization* from the game's search hooks
   (``cavallo_env.games.base.SearchHooks``): the cards the seat has not seen
   dealt again at random, consistent with everything the seat has seen.
3. One tree is shared by all determinizations.  Its nodes are moves of
   whichever seat is to play; in a determinization only the moves legal there
   are considered, and the UCB rule (constant ``exploration``) uses
   *availability* counts (how often a child was legal when its parent was
   visited) instead of the parent's visit count.  Each seat picks by the mean
   reward of its own team.  A node expands the untried move the game's
   ``quick_score`` likes best (``expand="greedy"``) or a random one.  At the
   root a ``prior`` weight adds the game's heuristic score of each move as a
   progressive bias that fades with visits (``prior * (h - h_best) / scale
   / (visits + 1)``).  ``root="halving"`` replaces UCB at the root by
   sequential halving with common random numbers (every move still in plays
   on the same determinizations).
4. Below the tree the game's rollout plays ``depth`` more moves, then the
   game's ``evaluate`` scores the position (the expected final point
   difference; exact once the game is over).  The reward is that difference
   for the searching team divided by ``scale`` (``reward="points"``), or its
   sign (``"win"``), or both (``"mixed"``).

A game whose hooks have ``core_search`` (all three) runs the whole decision
in the compiled core when ``cavallo_env.core.enabled()``: the same search in
C, on the core's own random numbers for Briscola and Scopa (so other moves
than Python's, at the same strength), on this decision's own Python numbers
for Cavalloìcera (the same moves and visits, bit for bit); given Python's
numbers every game's C search makes the Python search's moves (tested).
``CAVALLO_CORE=python`` runs this module's search, and so does the option
``engine=python`` (``ismcts:1000,engine=python``).

The move played is the root move visited most (the best mean after
halving).  The random generator of a decision is seeded from the bot's seed
and the view, so the same view always gets the same move and calls for other
seats in between change nothing.  The spec string sets options after the
iteration count, e.g. ``ismcts:1000,c=0.7,depth=8``; a game's own search
options (Cavalloìcera: ``rollout``, ``epsilon``, ``infer``, ``hand``) follow
the same way.  A bot made without a game serves every game, by the view.
"""

from __future__ import annotations

import math
import random

from .. import core, games
from ..budget import check
from ..errors import ViewError
from .base import Bot, BotSpecError, decision_start

EXPANSIONS = ("greedy", "random")
ROOTS = ("ucb", "halving")
REWARDS = ("points", "win", "mixed")
#: where a decision runs: the compiled core where the game has a core search and core.enabled(), or Python
ENGINES = ("auto", "python")
#: the options every game's search takes
OPTIONS = ("c", "reward", "scale", "depth", "prior", "expand", "root", "engine")
MAX_ITERATIONS = 10_000_000


class _Node:
    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self):
        self.children = {}
        self.visits = 0
        self.total = 0.0  # summed reward of the team that made the move into this node
        self.avail = 0


def _best_quick(hooks, state, moves, rng: random.Random):
    """The move ``hooks.quick_score`` likes best (ties broken at random)."""
    best = []
    top = -1e18
    quick = hooks.quick_score
    for m in moves:
        q = quick(state, m)
        if q > top:
            top, best = q, [m]
        elif q == top:
            best.append(m)
    return best[0] if len(best) == 1 else rng.choice(best)


def _check_options(iterations, reward, exploration, scale, depth, prior, expand, root, engine="auto") -> None:
    """The generic options of an ``ismcts`` bot, each in its range (``BotSpecError`` naming it)."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS:
        raise BotSpecError(f"ismcts iterations must be an int in 1..{MAX_ITERATIONS}, got {iterations!r}")
    if reward not in REWARDS:
        raise BotSpecError(f"unknown ismcts reward {reward!r}; known: {', '.join(REWARDS)}")
    if not exploration >= 0:
        raise BotSpecError(f"ismcts exploration must be >= 0, got {exploration!r}")
    if scale is not None and not scale > 0:
        raise BotSpecError(f"ismcts scale must be > 0, got {scale!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise BotSpecError(f"ismcts depth must be an int >= 0, got {depth!r}")
    if not prior >= 0:
        raise BotSpecError(f"ismcts prior must be >= 0, got {prior!r}")
    if expand not in EXPANSIONS:
        raise BotSpecError(f"unknown ismcts expand {expand!r}; known: {', '.join(EXPANSIONS)}")
    if root not in ROOTS:
        raise BotSpecError(f"unknown ismcts root {root!r}; known: {', '.join(ROOTS)}")
    if engine not in ENGINES:
        raise BotSpecError(f"unknown ismcts engine {engine!r}; known: {', '.join(ENGINES)}")


class ISMCTSBot(Bot):
    """SO-ISMCTS with ``iterations`` determinized iterations per decision.

    ``game`` (a name) fixes the game; without it the view's game is searched.
    ``scale`` and ``depth`` default to the game's (Cavalloìcera: 10 points,
    4 moves); ``search_options`` go to the game's search hooks.
    """

    name = "ismcts"

    def __init__(self, iterations: int = 1000, seed=None, exploration: float = 0.4, reward: str = "points",
                 scale: float | None = None, depth: int | None = None, prior: float = 1.0, expand: str = "greedy",
                 root: str = "halving", game: str | None = None, engine: str = "auto", **search_options):
        super().__init__(seed)
        _check_options(iterations, reward, exploration, scale, depth, prior, expand, root, engine)
        self.engine = engine
        self.iterations = iterations
        self.exploration = exploration
        self.reward = reward
        self._scale = scale
        self._depth = depth
        self.prior = prior
        self.expand = expand
        self.root = root
        self.game = game
        self.search_options = dict(search_options)
        self._hooks: dict = {}
        self._refused: dict = {}  # game -> why this bot cannot play it (see ``refused``)
        self._build_hooks(game, search_options)
        if depth is not None:
            tops = [getattr(h, "max_depth", None) for h in self._hooks.values()]
            top = max((t for t in tops if t is not None), default=None)
            if top is not None and depth > top:
                raise BotSpecError(f"ismcts depth must be an int in 0..{top}, got {depth!r}")
        self.name = f"ismcts:{iterations}"

    def _build_hooks(self, game, search_options: dict) -> None:
        """Build the hooks of the games now, so a bad option fails at construction.

        Without a game, an option goes to every game that has it; a game that
        refuses a value (say a Cavalloìcera rollout that Briscola lacks) refuses
        that game's views, and the construction fails only when no game takes
        the options."""
        known = set()
        took_options = []  # the games given some of the options that accepted them
        for name in [game] if game is not None else games.names():
            hooks_type = type(games.get(name).search())
            names_ok = {attr for attr, _ in getattr(hooks_type, "OPTIONS", {}).values()}
            accepted = {k: v for k, v in search_options.items() if k in names_ok}
            known.update(accepted)
            try:
                self._hooks[name] = games.get(name).search(**accepted)
            except ValueError as e:
                if game is not None:
                    raise BotSpecError(str(e)) from None
                self._refused[name] = f"{e} (for {games.get(name).title})"
            else:
                if accepted:
                    took_options.append(name)
        if self._refused and not took_options:
            raise BotSpecError("; ".join(self._refused.values()))
        unknown = set(search_options) - known
        if unknown:
            raise BotSpecError(f"unknown ismcts option(s) {', '.join(sorted(unknown))} for "
                               f"{game or 'any game'}; known: {', '.join(OPTIONS)} and the game's own")

    def __repr__(self):
        return f"<ISMCTSBot {self.iterations} c={self.exploration} reward={self.reward} game={self.game or 'any'}>"

    # -- the options a game's hooks set (read by tests and docs) -------------------
    @property
    def scale(self) -> float:
        return self._scale if self._scale is not None else self.hooks().scale

    @property
    def depth(self) -> int:
        return self._depth if self._depth is not None else self.hooks().depth

    def hooks(self, game: str | None = None):
        """The search hooks of ``game`` (default: this bot's game, else Cavalloìcera)."""
        return self._hooks_of(game or self.game or games.DEFAULT_GAME)

    @property
    def refused(self) -> dict:
        """The games this bot (made without a game) cannot play with its options, and why."""
        return dict(self._refused)

    def _hooks_of(self, name: str):
        hooks = self._hooks.get(name)
        if hooks is None:
            raise ViewError(f"{self.name} cannot play {name}: {self._refused[name]}")
        return hooks

    # -- deciding -------------------------------------------------------------------
    def choose_move(self, view, legal):
        return self.move_and_visits(view, legal)[0]

    def move_and_visits(self, view, legal) -> tuple:
        """The move ``choose_move`` plays and the root visit count of every legal move
        (what a student network can imitate beyond the move itself)."""
        game, rng, base = decision_start(self.seed, view, self.game)
        hooks = self._hooks_of(game.name)
        bias = None
        if self.prior > 0:
            scores = hooks.prior_scores(view, legal)
            if scores is not None:
                top = max(scores)
                scale = self._scale if self._scale is not None else hooks.scale
                bias = {m: self.prior * (h - top) / scale for m, h in zip(legal, scores)}
        visits: dict = {}
        move = self.search(base, rng, legal, bias, visits, game=game)
        return move, visits

    def search(self, base, rng: random.Random, legal=None, bias=None, visits=None, game=None, means=None):
        """Run the search from ``base`` (as seen by the seat to play); return the move.

        Only what the seat to play sees of ``base`` is used: the hidden cards
        are redealt every iteration.  ``bias`` maps root moves to a
        progressive bias (reward units, divided by visits + 1).  A ``visits``
        dict receives the root visit count of every legal move, a ``means``
        dict its mean reward (reward units of the seat to play, 0 where not
        visited).
        """
        if game is None:
            game = games.get(self.game or games.DEFAULT_GAME)
        hooks = self._hooks_of(game.name)
        determinize = hooks.determinizer(base, base.current)
        root_legal = base.legal_moves()
        if legal is not None and set(legal) != set(root_legal):
            raise ValueError("the view's legal moves disagree with the rules for its position")
        if len(root_legal) == 1:
            if visits is not None:
                visits[root_legal[0]] = 1
            if means is not None:
                means[root_legal[0]] = 0.0
            return root_legal[0]
        core_search = getattr(hooks, "core_search", None)
        if core_search is not None and self.engine == "auto" and core.enabled():  # the whole decision in C (CAVALLO_CORE=python: not)
            move, counts = core_search(base, rng, self._settings(hooks), bias, means=means)
            if visits is not None:
                visits.update((m, counts[m]) for m in root_legal)
            return move
        run = _Search(self, game, hooks, bias)
        root = _Node()
        if self.root == "halving":
            move = run.halving(root, root_legal, determinize, rng)
        else:
            for _ in range(self.iterations):
                run.iterate(determinize(rng), root, [], rng, root)
            move = max(root_legal, key=lambda m: (root.children[m].visits if m in root.children else -1,
                                                  root.children[m].total if m in root.children else 0.0))
        for m in root_legal:
            ch = root.children.get(m)
            if visits is not None:
                visits[m] = ch.visits if ch is not None else 0
            if means is not None:
                means[m] = ch.total / ch.visits if ch is not None and ch.visits else 0.0
        return move


    def _settings(self, hooks) -> dict:
        """The generic options of this bot for ``hooks`` (what a game's ``core_search`` takes)."""
        return {"iterations": self.iterations, "c": self.exploration, "expand": self.expand, "reward": self.reward,
                "scale": self._scale if self._scale is not None else hooks.scale,
                "depth": self._depth if self._depth is not None else hooks.depth, "root": self.root}


class _Search:
    """One decision's search: the bot's settings and the game's hooks, bound."""

    __slots__ = ("iterations", "c", "expand_greedy", "mode", "scale", "depth", "bias", "play", "hooks",
                 "team", "rollout", "evaluate", "reply")

    def __init__(self, bot: ISMCTSBot, game, hooks, bias):
        self.iterations = bot.iterations
        self.c = bot.exploration
        self.expand_greedy = bot.expand == "greedy"
        self.mode = bot.reward
        self.scale = bot._scale if bot._scale is not None else hooks.scale
        self.depth = bot._depth if bot._depth is not None else hooks.depth
        self.bias = bias
        self.play = game.play
        self.hooks = hooks
        self.team = hooks.team
        self.rollout = hooks.rollout
        self.evaluate = hooks.evaluate
        self.reply = hooks.reply

    def halving(self, root, root_legal, determinize, rng) -> object:
        """Sequential halving over the root moves, every move of a round on the same deals.

        Each round shares its iterations equally among the moves still in,
        playing all of them on the same determinizations (common random
        numbers: the rollouts below each move also start from the same random
        state), then keeps the better half by mean reward.  Below the root the
        search is the same SO-ISMCTS tree as with ``root="ucb"``.
        """
        alive = list(root_legal)
        bias = self.bias
        if bias is not None:  # a heuristic prior only orders ties here
            alive.sort(key=lambda m: -bias[m])
        for m in alive:
            root.children[m] = _Node()
        rounds = max(1, math.ceil(math.log2(len(alive))))
        budget = self.iterations
        play = self.play
        for r in range(rounds):
            if len(alive) == 1 or budget <= 0:
                break
            per_move = max(1, (budget // (rounds - r)) // len(alive))
            for _ in range(per_move):
                if budget < len(alive):
                    break
                world = determinize(rng)
                root_team = self.team(world)
                seed = rng.random()  # the same random stream below every move of this world
                for m in alive:
                    state = world.copy()
                    play(state, m)
                    ch = root.children[m]
                    ch.avail += 1
                    self.iterate(state, ch, [(ch, root_team)], random.Random(seed), None)
                    budget -= 1
            alive.sort(key=lambda m: -(root.children[m].total / max(root.children[m].visits, 1)))
            alive = alive[:max(1, (len(alive) + 1) // 2)]
        return alive[0]

    def iterate(self, state, node, path, rng: random.Random, root) -> None:
        """One ISMCTS iteration from ``node`` (whose moves are ``state``'s): select,
        expand one move, roll out, evaluate and back the reward up ``path``."""
        check()  # past the move's deadline (budget.deadline) the search is abandoned here
        c_explore = self.c
        log = math.log
        sqrt = math.sqrt
        bias = self.bias
        play = self.play
        team_of = self.team
        reply = self.reply
        while not state.done:
            moves = state.legal_moves()
            if reply is not None and len(moves) > 1:
                m = reply(state, moves)
                if m is not None:
                    moves = [m]
            children = node.children
            untried = None
            best = None
            best_u = -1e18
            for m in moves:
                ch = children.get(m)
                if ch is None:
                    if untried is None:
                        untried = [m]
                    else:
                        untried.append(m)
                    continue
                ch.avail += 1
                if untried is None:
                    u = ch.total / ch.visits + c_explore * sqrt(log(ch.avail) / ch.visits)
                    if bias is not None and node is root:
                        u += bias[m] / (ch.visits + 1)
                    if u > best_u:
                        best_u, best = u, m
            team = team_of(state)
            if untried is not None:
                if len(untried) == 1:
                    m = untried[0]
                elif self.expand_greedy:
                    m = _best_quick(self.hooks, state, untried, rng)
                else:
                    m = rng.choice(untried)
                ch = _Node()
                ch.avail = 1
                children[m] = ch
                play(state, m)
                path.append((ch, team))
                break
            ch = children[best]
            play(state, best)
            path.append((ch, team))
            node = ch
        # rollout, then the exact result or the static evaluation
        if not state.done and self.depth:
            self.rollout(state, rng, self.depth)
        self.back_up(path, self.evaluate(state))

    def back_up(self, path, diff: float) -> None:
        """The reward of a final point difference ``diff`` (team 0's) added to every node of ``path``."""
        mode = self.mode
        if mode == "points":
            r0 = diff / self.scale
        elif mode == "win":
            r0 = float((diff > 0) - (diff < 0))
        else:
            r0 = float((diff > 0) - (diff < 0)) + diff / self.scale
        for ch, team in path:
            ch.visits += 1
            ch.total += r0 if team == 0 else -r0


def _parse_kv(arg: str) -> dict:
    out = {}
    for part in arg.split(","):
        k, sep, v = part.partition("=")
        if not sep or not k:
            raise BotSpecError(f"ismcts option {part!r} must look like key=value")
        out[k.strip()] = v.strip()
    return out


_GENERIC = {"c": ("exploration", float), "exploration": ("exploration", float), "reward": ("reward", str),
            "scale": ("scale", float), "depth": ("depth", int), "prior": ("prior", float),
            "expand": ("expand", str), "root": ("root", str), "engine": ("engine", str)}


def from_spec(arg, seed=None, game: str | None = None) -> ISMCTSBot:
    """Build from the text after ``ismcts:``.

    ``"1000"`` = 1000 iterations; options may follow, comma separated:
    ``"1000,c=0.5,reward=win,scale=10,depth=6"`` plus the game's own search
    options (Cavalloìcera: ``rollout=random,epsilon=0.1,infer=0.9,hand=0.65``).
    """
    if arg is None or not str(arg).strip():
        raise BotSpecError("ismcts needs an iteration count, e.g. 'ismcts:1000'")
    first, _, rest = str(arg).partition(",")
    try:
        iterations = int(first.strip())
    except ValueError:
        raise BotSpecError(f"ismcts iteration count must be a positive integer, got {first!r}") from None
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise BotSpecError(f"ismcts iteration count must be in 1..{MAX_ITERATIONS}, got {iterations}")
    kwargs = {}
    if rest:
        game_options = {}
        for name in ([game] if game else games.names()):
            game_options.update(getattr(type(games.get(name).search()), "OPTIONS", {}))
        for k, v in _parse_kv(rest).items():
            entry = _GENERIC.get(k) or game_options.get(k)
            if entry is None:
                known = list(OPTIONS) + sorted(game_options)
                raise BotSpecError(f"unknown ismcts option {k!r}; known: {', '.join(known)}")
            attr, parse = entry
            try:
                kwargs[attr] = parse(v)
            except ValueError:
                raise BotSpecError(f"ismcts option {k}={v!r} is not a number") from None
    return ISMCTSBot(iterations, seed=seed, game=game, **kwargs)
