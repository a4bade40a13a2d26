"""Play deals between bots, print a summary, and optionally save the records.

Deal i is the game's random start from ``deal_seed(seed, i)`` and the bot in
seat k is ``bots.make(spec_k, seed=bot_seed(seed, k), game=...)``, so a run
is a pure function of its arguments: the same command writes the same file.
Every move a bot returns is checked against the rules (a bot that cheats stops
the run with an error).  ``--game`` picks the game (``--deck`` a 40-card
game's deck; Scopa plays whole matches to 11 unless ``--single-deal``).

Sides: in Cavalloìcera seats 0 and 2 are team 0, seats 1 and 3 team 1
(docs/rules/cavalloicera.md); in Briscola and Scopa each seat is its own side.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time

from .. import games
from ..bots import BotSpecError, make, split_specs
from ..records import check_output_file, write_jsonl
from ._game import add_game_arguments, game_options

_SEED_BYTES = 4  # 32-bit derived seeds: accepted by random, numpy and torch alike


def _derive(seed: int, *parts) -> int:
    """A 32-bit seed from the run seed and a label, stable across Pythons (no hash())."""
    text = "/".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:_SEED_BYTES], "big")


def deal_seed(seed: int, index: int) -> int:
    """Seed of deal ``index`` (0-based) in a run with ``seed``."""
    return _derive(seed, "deal", index)


def bot_seed(seed: int, seat: int) -> int:
    """Seed of the bot in ``seat`` in a run with ``seed``."""
    return _derive(seed, "bot", seat)


def parse_bot_specs(text: str, game=None) -> list[str]:
    """One spec per seat: ``"a"`` (all seats), ``"a,b"`` (one per side) or one per seat."""

    game = game or games.get(games.DEFAULT_GAME)
    n = game.num_seats
    try:
        specs = split_specs(text)
    except BotSpecError as e:
        raise BotSpecError(f"--bots: {e}") from None
    if len(specs) == 1:
        return specs * n
    if len(specs) == 2:
        return [specs[game.team_of(seat)] for seat in range(n)]
    if len(specs) == n:
        return specs
    if n == 2:
        raise BotSpecError(f"--bots needs 1 (both seats) or 2 (one per seat) comma-separated specs, "
                           f"got {len(specs)}: {text!r}")
    raise BotSpecError(f"--bots needs 1, 2 (per team) or {n} (per seat) comma-separated specs, got {len(specs)}: {text!r}")


def add_arguments(parser) -> None:
    parser.add_argument("--deals", type=int, default=100, help="number of deals to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="run seed; the same seed replays the same run (default 0)")
    parser.add_argument("--bots", default="random",
                        help="bot specs: one for all seats, two for team 0/team 1, or four for seats 0..3 "
                             "(e.g. greedy,random,greedy,random); default random")
    parser.add_argument("--out", metavar="FILE.jsonl", help="write every deal's record to this JSONL file")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON instead of a table")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_arguments(parser)


def play_deal(state, bots, deal_index: int = 0, game=None):
    """Play ``state`` to the end with one bot per seat, checking every returned move."""

    game = game or games.get(games.DEFAULT_GAME)
    while not state.done:
        seat = state.current
        move = bots[seat].choose(game.make_view(state, seat))
        try:
            parsed = game.move_from_dict(move, game.deck_of(state))
            why = game.check_move(state, parsed)
            if why is not None:
                raise ValueError(f"illegal move: {why}")
            game.play(state, parsed)
        except ValueError as e:  # ViewError (malformed move) is a ValueError too
            name = getattr(bots[seat], "name", type(bots[seat]).__name__)
            raise ValueError(f"deal {deal_index}: the {name!r} bot in seat {seat} returned a bad move "
                             f"{move!r:.120}: {e}") from None
    return state


class Summary:
    """Running totals over deals: wins, points, the breakdown per side (and cards where counted)."""

    def __init__(self, specs, seed, game=None):
        self.game = game or games.get(games.DEFAULT_GAME)
        self.specs = list(specs)
        self.seed = seed
        self.deals = 0
        self.wins = [0, 0]
        self.draws = 0
        self.points = [0, 0]
        self.cards = [0, 0]
        self.has_cards = False
        self.unclaimed_deals = 0
        self.counts_unclaimed = False  # a game whose cards may stay unclaimed (Cavalloìcera's state.unclaimed)
        keys = self.game.breakdown_keys
        self.fell = {k: [0, 0] for k in keys}  # deals in which the side got it
        self.total = {k: [0, 0] for k in keys}  # points (= count for bonuses) summed

    def add(self, state) -> None:
        res = self.game.outcome(state)
        self.deals += 1
        if res["winner"] is None:
            self.draws += 1
        else:
            self.wins[res["winner"]] += 1
        self.counts_unclaimed = hasattr(state, "unclaimed")
        if getattr(state, "unclaimed", None):
            self.unclaimed_deals += 1
        cards = res.get("cards")
        self.has_cards = cards is not None
        for t in (0, 1):
            self.points[t] += res["points"][t]
            if cards is not None:
                self.cards[t] += cards[t]
            for k in self.total:
                v = res["breakdown"][t][k]
                self.total[k][t] += v
                self.fell[k][t] += v > 0

    def as_dict(self) -> dict:
        n = max(self.deals, 1)
        teams = []
        for t in (0, 1):
            seats = [s for s in range(self.game.num_seats) if self.game.team_of(s) == t]
            team = {
                "team": t,
                "seats": seats,
                "bots": [self.specs[s] for s in seats],
                "wins": self.wins[t],
                "win_rate": self.wins[t] / n,
                "mean_points": self.points[t] / n,
            }
            if self.has_cards:
                team["mean_cards"] = self.cards[t] / n
            teams.append(team)
        out = {"game": self.game.name, "deals": self.deals, "seed": self.seed, "bots": self.specs, "teams": teams,
               "draws": self.draws}
        if self.counts_unclaimed:
            out["unclaimed_deals"] = self.unclaimed_deals
        out["breakdown"] = {k: {"rate": [self.fell[k][t] / n for t in (0, 1)],
                                "mean": [self.total[k][t] / n for t in (0, 1)]} for k in self.total}
        return out


def format_summary(d: dict, options: dict | None = None) -> str:
    """The summary as a plain-text table; ``options``: the game's (deck, match), named in its first line."""

    game = games.get(d.get("game", games.DEFAULT_GAME))
    t0, t1 = d["teams"]
    side = "team" if game.num_seats > 2 else "seat"
    lines = [f"{games.label(game.name, options)}: {d['deals']} {games.counted_as(game.name, options)}, seed {d['seed']}"]
    for t in (t0, t1):
        if len(t["seats"]) > 1:
            lines.append(f"  team {t['team']} = seats {','.join(map(str, t['seats']))}: {' + '.join(t['bots'])}")
        else:
            lines.append(f"  seat {t['team']}: {t['bots'][0]}")
    lines.append("")
    w = 16
    lines.append(f"{'':{w}} {side + ' 0':>10} {side + ' 1':>10}")
    lines.append(f"{'wins':{w}} {t0['wins']:>10} {t1['wins']:>10}")
    lines.append(f"{'win rate':{w}} {t0['win_rate']:>10.3f} {t1['win_rate']:>10.3f}")
    lines.append(f"{'draws':{w}} {d['draws']:>10}")
    lines.append(f"{'mean points':{w}} {t0['mean_points']:>10.3f} {t1['mean_points']:>10.3f}")
    if "mean_cards" in t0:
        lines.append(f"{'mean cards':{w}} {t0['mean_cards']:>10.2f} {t1['mean_cards']:>10.2f}")
    lines.append("")
    lines.append(f"breakdown: share of {'games' if game.name == 'scopa' else 'deals'} in which the {side} scored it, "
                 "and its mean per game (points, or how many times for a bonus)")
    lines.append(f"{'':{w}} {'rate 0':>10} {'rate 1':>10} {'mean 0':>10} {'mean 1':>10}")
    for k, v in d["breakdown"].items():
        r, m = v["rate"], v["mean"]
        lines.append(f"{k:{w}} {r[0]:>10.3f} {r[1]:>10.3f} {m[0]:>10.3f} {m[1]:>10.3f}")
    if d.get("unclaimed_deals"):
        lines.append(f"\n{d['unclaimed_deals']} deal(s) had no capture at all (cards unclaimed, 0-0)")
    return "\n".join(lines)


def make_bots(specs, seed: int, game: str | None = None) -> list:
    """One bot per seat, each seeded from the run seed and its seat."""

    return [make(spec, seed=bot_seed(seed, seat), game=game) for seat, spec in enumerate(specs)]


def simulate(deals: int, seed: int, bots, progress=None, game=None, options: dict | None = None):
    """Yield ``(record, final state)`` for each of ``deals`` deals played by ``bots``."""

    game = game or games.get(games.DEFAULT_GAME)
    options = options or {}
    for i in range(deals):
        state = play_deal(game.new_state(deal_seed(seed, i), **options), bots, i, game)
        if progress is not None:
            progress.update(1)
        yield game.to_record(state), state


def run(args) -> int:
    if args.deals < 1:
        raise ValueError(f"--deals must be at least 1, got {args.deals}")
    game, options = game_options(args)
    specs = parse_bot_specs(args.bots, game)
    bots = make_bots(specs, args.seed, game.name)  # a bad spec fails here, before any file is touched
    if args.out:
        check_output_file(args.out)
        if not os.fspath(args.out).endswith(".jsonl"):
            raise ValueError(f"--out {args.out}: the records are written one per line (JSONL), and cavallo replay "
                             "reads a file by its name: name it .jsonl")

    from tqdm import tqdm  # lazy: tqdm (~40 ms), only with a progress bar; kept out of `cavallo --help`

    summary = Summary(specs, args.seed, game)
    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    with tqdm(total=args.deals, desc="deals", unit="deal", disable=not show, file=sys.stderr) as bar:

        def records():
            for rec, state in simulate(args.deals, args.seed, bots, bar, game, options):
                summary.add(state)
                yield rec

        if args.out:
            write_jsonl(args.out, records())
        else:
            for _ in records():
                pass
    elapsed = time.perf_counter() - start

    d = summary.as_dict()
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        print(format_summary(d, options))
        print(f"\n{elapsed:.1f} s ({d['deals'] / max(elapsed, 1e-9):.0f} {games.counted_as(game.name, options)}/s)"
              + (f"; records written to {args.out}" if args.out else ""))
    return 0
