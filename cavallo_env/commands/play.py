"""Play in the terminal: Cavalloìcera with an AI partner against two AIs, or
(``--game``) Briscola or Scopa against one AI.

Cavalloìcera: you in seat 0, an AI partner in seat 2, two AI opponents.

Each of your turns shows your hand, the table, both teams' piles, the score
so far and your legal moves, numbered, with the bonuses each would score
(e.g. ``7-coins takes 3-coins + 4-cups  [Simili]``); type the number (``q``
quits; ``rules``, ``help`` or ``?`` prints a short summary of the rules: a
turn, the capture bonuses, the end-of-deal awards and the card letters, then
asks again).  Every AI move is shown with its bonuses.  The deal ends with the full
breakdown of both teams, and its record (docs/contract.md format, replayable with
``cavallo replay``) is saved.  Play goes 0 -> 1 -> 2 -> 3; seats 1 and 3 are
the opponents, so the player after you and the one before you are both
against you.  ``--partner`` and ``--opponents`` take any bot spec
(``policy:default`` is the shipped AI; ``heuristic``, ``greedy``, ...).

``--game briscola`` or ``--game scopa`` (with ``--deck``; Scopa plays a match
to 11 unless ``--single-deal``): you in seat 0 against the AI of
``--opponents`` (default ``policy:default``, the game's shipped model).  The
record is saved also when you quit or press Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from ..bots import make, split_specs
from ..cavalloicera.cards import NAMES, SUIT, SWORDS
from ..cavalloicera.engine import BREAKDOWN_KEYS, CavalloiceraState, capture_points, score
from ..cavalloicera.records import to_record
from ..cavalloicera.views import make_view, move_from_dict
from ..evaluation import derive_seed
from ..records import check_output_file, write_json
from . import play_two
from ._game import add_game_arguments, game_options
from ._terminal import HELP_WORDS, ask_choice, terminal_reader  # noqa: F401  (HELP_WORDS: its home until _terminal.py)

BONUS_NAMES = ("Scùa", "Picada", "Simili", "Quadriglia")
AWARD_LABELS = {
    "scua": "Scùa", "picada": "Picada", "simili": "Simili", "quadriglia": "Quadriglia",
    "most_cards": "Most cards", "most_swords": "Most swords", "la_mata": "La Mata (2-swords)",
    "coins_10": "10-coins", "cups_fante": "F-cups", "napula": "Napula",
}
HUMAN = 0

RULES_TEXT = """\
Cavalloìcera in short (the full rules: docs/rules/cavalloicera.md)
  Cards: A 2 3 4 5 6 7 8 9 10 F C R in coins, cups, swords and clubs. A-10 are worth
    1-10; F = Fante, C = Cavallo, R = Re are courts: no value, never in a sum.
  A turn: play one card, then either take ONE table card of the same rank, or (a
    numeral) a set of two or more table numerals adding up to its value, or just
    place it. Taking is never compulsory. Taken cards go to your team's pile.
    You and your partner (seat 2) are one team, seats 1 and 3 the other.
  Capture bonuses, +1 each, they add up:
    Scùa        your capture leaves the table empty
    Picada      you take, by rank, exactly the card the previous player just placed
    Simili      the played card and every card it takes are of one suit
    Quadriglia  you take three or more table cards
  End of the deal: the cards left on the table go to the team that captured
  last (no bonus); then each team scores from its pile:
    Most cards   +2 (26-26: nobody)      Most swords  +1 (a tie: nobody)
    La Mata      +1 for the 2-swords     10-coins     +1
    F-cups       +1 (Fante of cups)      Napula       holding A, 2, 3 of swords:
                                         the length of the run from A (3..10)
  Bonuses + awards: the higher total wins; equal totals are a draw.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--partner", default=None,
                   help="Cavalloìcera: bot spec of your partner, seat 2 (default policy:default); "
                        "Briscola and Scopa have no partner")
    p.add_argument("--opponents", default=None,
                   help="bot spec of both opponents, seats 1 and 3, or two specs 'A,B' (default policy:default); "
                        "Briscola and Scopa: the one opponent (default policy:default, the game's shipped model; "
                        "ismcts:1000 is a stronger, slower one)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal and the bots (default: a random one, printed)")
    p.add_argument("--record", metavar="PATH", default=None,
                   help="where to save the deal's record (default runs/play/deal-<seed>.json)")
    p.add_argument("--no-record", action="store_true", help="do not save the record")
    add_game_arguments(p)


def seat_label(seat: int) -> str:
    return {0: "you", 1: "opponent (seat 1)", 2: "partner (seat 2)", 3: "opponent (seat 3)"}[seat]


def move_text(card: int, capture: tuple, table, prev_placed) -> str:
    """``"7-coins takes 3-coins + 4-cups  [Simili]"`` or ``"place 7-coins"``."""

    if not capture:
        return f"place {NAMES[card]}"
    points = capture_points(card, capture, len(capture) == len(table), prev_placed)
    text = f"{NAMES[card]} takes {' + '.join(NAMES[t] for t in capture)}"
    bonuses = [name for name, p in zip(BONUS_NAMES, points) if p]
    return text + (f"  [{', '.join(bonuses)}]" if bonuses else "")


def _cards(cards) -> str:
    return " ".join(NAMES[c] for c in cards) if cards else "(none)"


def _pile(pile) -> str:
    swords = sum(1 for c in pile if SUIT[c] == SWORDS)
    return f"{len(pile)} cards, {swords} swords: {_cards(sorted(pile))}"


def _bonus_line(b) -> str:
    total = sum(b)
    parts = [f"{name} {n}" for name, n in zip(BONUS_NAMES, b) if n]
    return f"{total}" + (f" ({', '.join(parts)})" if parts else "")


def show_position(state, out) -> None:
    w = out.write
    w(f"\n--- turn {state.turn + 1} of 48: your move ---\n")
    w(f"Table:       {_cards(state.table)}\n")
    if state.prev_placed is not None:
        w(f"             (seat {state.moves[-1][0]} placed {NAMES[state.prev_placed]}: "
          f"take it by rank for a Picada)\n")
    w(f"Your hand:   {_cards(state.hands[HUMAN])}\n")
    w(f"Our pile:    {_pile(state.piles[0])}\n")
    w(f"Their pile:  {_pile(state.piles[1])}\n")
    w(f"Hands:       partner {len(state.hands[2])}, opponents {len(state.hands[1])} and {len(state.hands[3])} cards\n")
    w(f"Score so far (capture bonuses): us {_bonus_line(state.bonuses[0])}, them {_bonus_line(state.bonuses[1])}\n")
    now = score(state.piles, state.bonuses)["team_points"]
    w(f"If the deal ended now (bonuses + awards on the piles): us {now[0]}, them {now[1]}\n")


def ask_move(state, legal, out, read) -> tuple | None:
    """Show the numbered legal moves and read a choice; None = quit."""
    labels = [move_text(card, capture, state.table, state.prev_placed) for card, capture in legal]
    return ask_choice(legal, labels, RULES_TEXT, out, read)


def breakdown_table(res: dict, labels=("team 0", "team 1")) -> str:
    """The full breakdown of a result (``CavalloiceraState.result()``) as a text table."""

    a_w, b_w = max(10, len(labels[0]) + 2), max(10, len(labels[1]) + 2)
    lines = [f"\n  {'':<20}{labels[0]:>{a_w}}{labels[1]:>{b_w}}"]
    for key in BREAKDOWN_KEYS:
        lines.append(f"  {AWARD_LABELS[key]:<20}{res['breakdown'][0][key]:>{a_w}}{res['breakdown'][1][key]:>{b_w}}")
    lines.append(f"  {'-' * (20 + a_w + b_w)}")
    lines.append(f"  {'total':<20}{res['team_points'][0]:>{a_w}}{res['team_points'][1]:>{b_w}}")
    lines.append(f"  {'cards':<20}{res['cards'][0]:>{a_w}}{res['cards'][1]:>{b_w}}")
    return "\n".join(lines) + "\n"


def show_result(state, out) -> None:
    res = state.result()
    w = out.write
    w("\n=== end of the deal ===\n")
    if state.unclaimed:
        w(f"Nobody captured: {_cards(state.unclaimed)} stay unclaimed.\n")
    elif state.last_capturer is not None:
        w(f"The cards left on the table went to the last capturer, {seat_label(state.last_capturer)}.\n")
    w(breakdown_table(res, ("us (0+2)", "them (1+3)")))
    winner = res["winner"]
    verdict = "You and your partner win!" if winner == 0 else "The opponents win." if winner == 1 else "A draw."
    w(f"\n{verdict} {res['team_points'][0]} - {res['team_points'][1]}\n")


def play(state, bots, out=None, read=input) -> bool:
    """Play ``state`` to the end, seat 0 by ``read``; returns False if the player quit."""

    out = out or sys.stdout
    while not state.done:
        seat = state.current
        if seat == HUMAN:
            show_position(state, out)
            move = ask_move(state, state.legal_moves(), out, read)
            if move is None:
                return False
            text = move_text(*move, state.table, state.prev_placed)
            state.play(*move)
            out.write(f"  you: {text}\n")
        else:
            answer = bots[seat].choose(make_view(state, seat))
            card, capture = move_from_dict(answer)
            text = move_text(card, capture, state.table, state.prev_placed)
            state.play_checked(card, capture)
            out.write(f"  {seat_label(seat)}: {text}\n")
    show_result(state, out)
    return True


def opponent_specs(text: str) -> list[str]:
    """``--opponents``: one spec for both (it may hold commas, e.g. ``ismcts:500,rollout=random``) or ``A,B``."""

    try:
        specs = split_specs(text)
    except ValueError as e:
        raise ValueError(f"--opponents: {e}") from None
    if len(specs) > 2:
        raise ValueError(f"--opponents takes one bot spec or two ('A,B'), got {len(specs)}: {text!r}")
    for spec in specs:
        make(spec, seed=0, game="cavalloicera")
    return specs * 2 if len(specs) == 1 else specs


def run(args) -> int:
    game, options = game_options(args, match_default=True)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    name = "deal" if game.name == "cavalloicera" else game.name
    path = None if args.no_record else args.record or os.path.join("runs", "play", f"{name}-{seed}.json")
    if path is not None:  # a bad path fails now, not when the record is saved at the end

        try:
            check_output_file(path)
        except OSError as e:
            raise type(e)(f"--record: {e}") from None
    if game.name != "cavalloicera":
        if args.partner is not None:
            raise ValueError(f"--partner: {game.title} is played by two, you against one AI; there is no partner")
        if args.opponents is not None and len(split_specs(args.opponents)) > 1:
            raise ValueError(f"--opponents: {game.title} has one opponent, give one bot spec, got {args.opponents!r}")

        if args.opponents is None:  # the game's shipped model; without one, the search
            from ..bots.policy import shipped_model  # lazy: numpy, kept out of `cavallo --help`

            args.opponents = "policy:default" if shipped_model(game.name).is_file() else "ismcts:1000"
        return play_two.run(args, game, options, seed, path)
    if args.opponents is None:
        args.opponents = "policy:default"
    opp = opponent_specs(args.opponents)
    specs = {1: opp[0], 2: args.partner or "policy:default", 3: opp[1]}
    bots = {seat: make(spec, seed=derive_seed("play", seed, seat), game="cavalloicera") for seat, spec in specs.items()}
    state = CavalloiceraState.new(seed)
    print(f"Cavalloìcera, deal seed {seed} (replay it with --seed {seed}).")
    print(f"You are seat 0; your partner (seat 2) is {specs[2]}; the opponents (seats 1 and 3) are "
          f"{specs[1]} and {specs[3]}.")
    print(f"Seat {state.dealer} deals; seat {state.current} plays first; play goes 0 -> 1 -> 2 -> 3.")
    print("Type rules (or ? or help) at any move prompt for a summary of the rules and the bonuses.")
    read = terminal_reader()
    finished = False
    try:
        finished = play(state, bots, read=read)
    except KeyboardInterrupt:  # Ctrl-C: the deal so far is still saved
        print("\ninterrupted")
    if not finished:
        print("\nYou left the deal.")
    if path is not None:
        write_json(path, to_record(state))
        print(f"Record saved to {path}" + ("" if finished else " (deal in progress)"))
    return 0 if finished else 1
