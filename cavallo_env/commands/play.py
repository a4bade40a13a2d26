"""Play in the terminal: Cavalloìcera with an AI partner against two AIs, or
(``--game``) Briscola or Scopa against one AI.

You sit in seat 0.  Each of your turns shows the position as your seat sees
it (your hand, the table, the piles, the score so far) and your legal moves,
numbered, with the bonuses each would score (e.g. ``7-coins takes 3-coins +
4-cups  [Simili]``); type the number (``q`` quits; ``rules``, ``help`` or ``?``
prints a short summary of the rules, then asks again).  Every AI move is
shown, with what it caused that you may know (in Briscola: who took the
trick, its points and the cards drawn).  The end shows the full breakdown,
and the record (docs/contract.md format, replayable with ``cavallo replay``)
is saved, also when you quit or press Ctrl-C.

Cavalloìcera: your partner sits in seat 2, the opponents in seats 1 and 3;
play goes 0 -> 1 -> 2 -> 3.  ``--partner`` and ``--opponents`` take a level,
``strong`` (the network-guided search, ``search:<game>``) or ``fast`` (the
network alone, ``policy:<game>``), or any bot spec (heuristic, greedy,
ismcts:1000, ...); the default is the strongest level this copy ships for the
game (``cavallo_env.levels``), ``ismcts:1000`` where it ships none.

Briscola and Scopa (``--game``, with ``--deck``): you against the AI of
``--opponents``.  Scopa plays a match to 11 unless ``--single-deal``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from .. import games, levels
from ..bots import make, split_specs
from ..evaluation import derive_seed
from ..records import check_output_file, write_json
from ._game import add_game_arguments, game_options, game_words
from ._terminal import HUMAN, ai_name, ask_choice, breakdown_table, move_line, seat_name, terminal_reader


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--partner", default=None,
                   help="Cavalloìcera: your partner, seat 2: a level, strong or fast, or a bot spec (default: the "
                        "strong AI where this copy ships it, else the fast one); Briscola and Scopa have no partner")
    p.add_argument("--opponents", default=None,
                   help="both opponents, seats 1 and 3, a level (strong, fast) or a bot spec, or two of them 'A,B' "
                        "(default: the strong AI where this copy ships it, else the fast one); Briscola and Scopa: "
                        "the one opponent")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal and the bots (default: a random one, printed)")
    p.add_argument("--record", metavar="PATH", default=None,
                   help="where to save the record (default runs/play/<game>-<seed>.json)")
    p.add_argument("--no-record", action="store_true", help="do not save the record")
    add_game_arguments(p)


def opponent_specs(text: str, game=None) -> list[str]:
    """``--opponents`` of a four-seat game: one spec or level for both (it may hold commas, e.g.
    ``ismcts:500,rollout=random``) or ``A,B``; checked against ``game`` (default: the default game)."""
    game = game or games.get(games.DEFAULT_GAME)
    try:
        specs = [levels.resolve(s, game.name) for s in split_specs(text)]
    except ValueError as e:
        raise ValueError(f"--opponents: {e}") from None
    if len(specs) > 2:
        raise ValueError(f"--opponents takes one bot spec or two ('A,B'), got {len(specs)}: {text!r}")
    for spec in specs:
        make(spec, seed=0, game=game.name)
    return specs * 2 if len(specs) == 1 else specs


def seat_specs(args, game) -> dict:
    """The bot spec of every seat but yours, from ``--partner`` and ``--opponents`` (a level's name is its spec)."""
    default = levels.default_spec(game.name) or "ismcts:1000"  # no shipped AI for the game: the plain search
    partners = [s for s in range(game.num_seats) if s != HUMAN and game.team_of(s) == game.team_of(HUMAN)]
    if not partners and args.partner is not None:
        raise ValueError(f"--partner: {game.title} is played by two, you against one AI; there is no partner")
    opponents = [s for s in range(game.num_seats) if game.team_of(s) != game.team_of(HUMAN)]
    if len(opponents) == 1:
        if args.opponents is not None and len(split_specs(args.opponents)) > 1:
            raise ValueError(f"--opponents: {game.title} has one opponent, give one bot spec, got {args.opponents!r}")
        specs = [levels.resolve(args.opponents, game.name) if args.opponents else default]
    else:
        specs = opponent_specs(args.opponents or default, game)
    out = dict(zip(opponents, specs))
    out.update({s: levels.resolve(args.partner, game.name) if args.partner else default for s in partners})
    return out


def header(game, options: dict, seed: int, specs: dict, state) -> str:
    """Who plays with and against you, and how to play the same deal again."""
    mine = [s for s in sorted(specs) if game.team_of(s) == game.team_of(HUMAN)]
    theirs = [s for s in sorted(specs) if s not in mine]
    partner = f"with {_side(game, mine, specs, 'partner')} " if mine else ""
    lines = [f"{game_words(game, options)}, seed {seed} (play the same deal again with --seed {seed}).",
             f"You play {partner}against {_side(game, theirs, specs, 'opponent')}."]
    dealer = getattr(state, "dealer", None)
    if dealer is not None:
        lines.append(f"{_cap(seat_name(game, dealer))} deal{'' if dealer == HUMAN else 's'}, "
                     f"{seat_name(game, state.current)} play{'' if state.current == HUMAN else 's'} first; "
                     f"play goes {' -> '.join(map(str, range(game.num_seats)))}.")
    lines.append("Type rules (or ? or help) at any move prompt for a summary of the rules.")
    return "\n".join(lines) + "\n"


def _side(game, seats: list, specs: dict, word: str) -> str:
    """``"the opponents in seats 1 and 3 (greedy, the strong AI)"``, ``"the opponent (greedy)"``."""
    ais = ", ".join(ai_name(specs[s]) for s in seats)
    if game.num_seats == 2:
        return f"the {word} ({ais})"
    where = f"seat {seats[0]}" if len(seats) == 1 else f"seats {' and '.join(map(str, seats))}"
    return f"the {word}{'s' if len(seats) > 1 else ''} in {where} ({ais})"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def ask_move(game, state, view: dict, out, read, options: dict | None = None):
    """Show your numbered legal moves (with their bonuses) and read a choice; None = quit."""
    legal = game.legal_moves_of(view)
    labels = [move_line(game, state, m, game.deck_of(view)) for m in legal]
    return ask_choice(legal, labels, game.rules_text(options), out, read)


def next_move(game, state, bots: dict, out, read, options: dict | None = None):
    """The move of the seat to play: yours from ``read`` (None = quit), a bot's checked."""
    seat = state.current
    view = game.make_view(state, seat)
    if seat == HUMAN:
        out.write(f"\n--- {game.view_text(view, options)}")
        return ask_move(game, state, view, out, read, options)
    move = game.move_from_dict(bots[seat].choose(view), game.deck_of(view))
    why = game.check_move(state, move)
    if why is not None:
        raise ValueError(f"the AI in seat {seat} answered an illegal move: {why}")
    return move


def play(game, state, bots: dict, out=None, read=input, options: dict | None = None) -> bool:
    """Play ``state`` (a game with ``options``) to the end, yours (seat 0) by ``read`` and the
    other seats by ``bots``; False if you quit."""
    out = out or sys.stdout
    deals_shown = 0
    while not state.done:
        seat = state.current
        move = next_move(game, state, bots, out, read, options)
        if move is None:
            return False
        text = move_line(game, state, move, game.deck_of(state))
        game.play(state, move)
        out.write(f"  {seat_name(game, seat)}: {text}\n")
        out.write(game.after_move_text(game.after_move(state, HUMAN), lambda s: seat_name(game, s, the=True)))
        deals = game.deal_results(state)
        for k in range(deals_shown, len(deals)):
            out.write(deal_text(game, deals[k], k + 1, len(deals) > 1 or not state.done))
        deals_shown = len(deals)
    out.write(final_text(game, state, options))
    return True


def deal_text(game, result: dict, number: int, numbered: bool) -> str:
    """A finished deal's breakdown, by team."""
    title = f"deal {number}: {result['points'][0]} - {result['points'][1]}" if numbered else "end of the deal"
    return f"\n=== {title} ===\n" + breakdown_table(game, result, team_labels(game))


def team_labels(game) -> tuple:
    """The breakdown's column heads: ``("you", "opponent")`` or ``("us (0+2)", "them (1+3)")``."""
    if game.num_seats == 2:
        return ("you", "opponent")
    mine = [s for s in range(game.num_seats) if game.team_of(s) == game.team_of(HUMAN)]
    theirs = [s for s in range(game.num_seats) if s not in mine]
    return (f"us ({'+'.join(map(str, mine))})", f"them ({'+'.join(map(str, theirs))})")


def final_text(game, state, options: dict | None) -> str:
    """Who won, and the final score (a match's totals)."""
    res = game.outcome(state)
    p, winner = res["points"], res["winner"]
    us = game.team_of(HUMAN)
    if game.num_seats == 2:
        verdict = "You win!" if winner == us else "The AI wins." if winner is not None else "A draw."
    else:
        verdict = "You and your partner win!" if winner == us else "The opponents win." if winner is not None \
            else "A draw."
    ending = "\n=== end of the match ===\n" if (options or {}).get("match") else ""
    return f"{ending}\n{verdict} {p[us]} - {p[1 - us]}\n"


def record_path(args, game, seed: int):
    """Where the record goes (None: nowhere); a bad path fails now, not when the record is saved."""
    if args.no_record:
        return None
    path = args.record or os.path.join("runs", "play", f"{game.name}-{seed}.json")
    try:
        check_output_file(path)
    except OSError as e:
        raise type(e)(f"--record: {e}") from None
    return path


def run(args) -> int:
    game, options = game_options(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    path = record_path(args, game, seed)
    specs = seat_specs(args, game)
    bots = {seat: make(spec, seed=derive_seed("play", seed, seat), game=game.name) for seat, spec in specs.items()}
    state = game.new_state(seed, **options)
    print(header(game, options, seed, specs, state), end="")
    what = "match" if options.get("match") else "deal"
    finished = False
    try:
        finished = play(game, state, bots, read=terminal_reader(), options=options)
    except KeyboardInterrupt:  # Ctrl-C: the game so far is still saved
        print("\ninterrupted")
    if not finished:
        print(f"\nYou left the {what}.")
    if path is not None:
        write_json(path, game.to_record(state))
        print(f"Record saved to {path}" + ("" if finished else f" ({what} in progress)"))
    return 0 if finished else 1
