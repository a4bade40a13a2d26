"""``cavallo play --game briscola|scopa``: you (seat 0) against one AI, in the terminal.

Everything shown comes from the seat's view (docs/contract.md): what a real
player at the table sees.  Each of your turns shows the position and your
legal moves, numbered; type the number, ``rules`` (or ``?``/``help``) for the
rules, ``q`` to quit.  Every AI move is shown.  Scopa plays a whole match to
11 (``--single-deal`` for one deal) and shows each deal's points.  The record
(replayable with ``cavallo replay``) is saved at the end, also when you quit
or press Ctrl-C.
"""

from __future__ import annotations

import sys

from ..bots import make
from ..evaluation import derive_seed
from ..records import write_json
from ._terminal import ask_choice, terminal_reader

HUMAN = 0

def show_view(game, view: dict, out, options: dict | None = None) -> None:
    """The position as the human's seat sees it (the game's ``view_text``)."""
    out.write(f"\n--- {game.view_text(view, options)}\n")


def ask_move(game, view: dict, out, read, options: dict | None = None):
    """Show the numbered legal moves and read a choice; None = quit."""
    legal = game.legal_moves_of(view)
    deck = game.deck_of(view)
    return ask_choice(legal, [game.describe_move(m, deck) for m in legal], game.rules_text(options), out, read)


def _deal_lines(result: dict, number: int) -> str:
    b0, b1 = result["breakdown"]
    lines = [f"\n=== deal {number}: you {result['points'][0]}, opponent {result['points'][1]} ==="]
    for key in b0:
        lines.append(f"  {key:<12}{b0[key]:>6}{b1[key]:>10}")
    lines.append(f"  {'cards':<12}{result['cards'][0]:>6}{result['cards'][1]:>10}")
    return "\n".join(lines) + "\n"


def play(game, state, bot, out=None, read=input, options: dict | None = None) -> bool:
    """Play ``state`` (a game with ``options``) to the end, seat 0 by ``read``; False if the player quit."""
    out = out or sys.stdout
    shown_deals = 0
    while not state.done:
        seat = state.current
        view = game.make_view(state, seat)
        if seat == HUMAN:
            show_view(game, view, out, options)
            move = ask_move(game, view, out, read, options)
            if move is None:
                return False
            out.write(f"  you: {game.describe_move(move, game.deck_of(view))}\n")
        else:
            move = game.move_from_dict(bot.choose(view), game.deck_of(view))
            why = game.check_move(state, move)
            if why is not None:
                raise ValueError(f"the AI answered an illegal move: {why}")
            out.write(f"  opponent: {game.describe_move(move, game.deck_of(view))}\n")
        game.play(state, move)
        if game.name == "scopa":
            deals = game.to_record(state)["deals"]
            done = [d for d in deals if "result" in d]
            for k in range(shown_deals, len(done)):
                out.write(_deal_lines(done[k]["result"], k + 1))
            shown_deals = len(done)
    res = game.outcome(state)
    p = res["points"]
    w = out.write
    w(f"\n=== end of the {'match' if game.name == 'scopa' and len(game.to_record(state)['deals']) > 1 else 'game'} ===\n")
    w(f"You {p[0]}, opponent {p[1]}.\n")
    w("You win!\n" if res["winner"] == 0 else "The AI wins.\n" if res["winner"] == 1 else "A draw.\n")
    return True


def run(args, game, options: dict, seed: int, path) -> int:
    spec = args.opponents
    bot = make(spec, seed=derive_seed("play", seed, 1), game=game.name)
    state = game.new_state(seed, **options)
    print(f"{game.title} ({options.get('deck')}), seed {seed} (replay it with --seed {seed}).")
    print(f"You are seat 0; the AI (seat 1) is {spec}. Type rules (or ? or help) at any move prompt.")
    read = terminal_reader()
    finished = False
    try:
        finished = play(game, state, bot, read=read, options=options)
    except KeyboardInterrupt:
        print("\ninterrupted")
    if not finished:
        print("\nYou left the game.")
    if path is not None:
        write_json(path, game.to_record(state))
        print(f"Record saved to {path}" + ("" if finished else " (game in progress)"))
    return 0 if finished else 1
