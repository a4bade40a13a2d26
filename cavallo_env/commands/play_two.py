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

from .play import ask_choice

HUMAN = 0

RULES = {
    "briscola": """
Briscola (two players, 40 cards, one deal of 20 tricks)
  - Each player holds 3 cards. The face-up card under the stock sets the trump suit
    (the briscola) and is the last card drawn.
  - The leader plays a card, then the other player. Any card may be played: there is
    no need to follow suit or to trump.
  - A trump beats any non-trump; between two trumps, or two cards of the suit led,
    the stronger wins. A card of another non-trump suit never wins.
  - Strength: A > 3 > K/R > Q/C > J/F > 7 > 6 > 5 > 4 > 2.
  - The winner takes both cards, draws first from the stock and leads the next trick.
  - Card points: A 11, 3 10, K/R 4, Q/C 3, J/F 2, the rest 0 (120 in all).
    After all 40 cards, more points wins; 60-60 is a draw.
  - Terms: a "carico" is a loaded card (A or 3); a "liscio" a card worth nothing.
""",
    "scopa": """
Scopa (two players, 40 cards, a match to 11 points)
  - Values: A 1, 2-7 their number, J/F 8, Q/C 9, K/R 10.
  - Play one card. If a table card has its value you must take one such card.
    Only if none does, and some set of two or more table cards adds up to it, you
    must take one such set. Otherwise the card stays on the table.
  - A capture that empties the table is a scopa (+1), except on the last play of
    the deal. The cards left at the end go to the last player who captured.
  - Each deal: +1 for most cards (over 20), most money cards (diamonds / coins,
    over 5), the settebello (7 of the money suit) and the primiera (the best card
    of each suit: 7 = 21, 6 = 18, A = 16, 5 = 15, 4 = 14, 3 = 13, 2 = 12, courts 10;
    you need all four suits). Ties score nothing.
  - The match ends after a deal when a player has 11 or more and more than the other.
""",
}


def _cards(names) -> str:
    return " ".join(names) if names else "(none)"


def show_view(view: dict, out) -> None:
    """The position as the human's seat sees it."""
    w = out.write
    if view["game"] == "briscola":
        w(f"\n--- trick {len(view['history']) // 2 + 1} of 20: your move ---\n")
        w(f"Trump:       {view['trump']} (the {view['trump'].split('-')[1]} are trumps); "
          f"stock: {view['stock_size']} card(s) face down\n")
        if view["trick"]:
            w(f"On the trick: {_cards(view['trick'])} (played by the opponent)\n")
        else:
            w("You lead this trick.\n")
        w(f"Your hand:   {_cards(view['hand'])}\n")
        w(f"Points:      you {view['points'][0]}, opponent {view['points'][1]} "
          f"(piles of {len(view['piles'][0])} and {len(view['piles'][1])} cards)\n")
    else:
        w(f"\n--- play {len(view['history']) + 1} of 36 of this deal: your move ---\n")
        w(f"Table:       {_cards(view['table'])}\n")
        w(f"Your hand:   {_cards(view['hand'])}   (opponent holds {view['hand_sizes'][1]}, "
          f"stock {view['stock_size']})\n")
        w(f"This deal:   scope you {view['scope'][0]}, opponent {view['scope'][1]}; "
          f"cards taken you {len(view['piles'][0])}, opponent {len(view['piles'][1])}\n")
        w(f"Match:       you {view['totals'][0]}, opponent {view['totals'][1]} (first to 11)\n")


def ask_move(game, view: dict, out, read):
    """Show the numbered legal moves and read a choice; None = quit."""
    legal = game.legal_moves_of(view)
    deck = game.deck_of(view)
    return ask_choice(legal, [game.describe_move(m, deck) for m in legal], RULES[game.name], out, read)


def _deal_lines(result: dict, number: int) -> str:
    b0, b1 = result["breakdown"]
    lines = [f"\n=== deal {number}: you {result['points'][0]}, opponent {result['points'][1]} ==="]
    for key in b0:
        lines.append(f"  {key:<12}{b0[key]:>6}{b1[key]:>10}")
    lines.append(f"  {'cards':<12}{result['cards'][0]:>6}{result['cards'][1]:>10}")
    return "\n".join(lines) + "\n"


def play(game, state, bot, out=None, read=input) -> bool:
    """Play ``state`` to the end, seat 0 by ``read``; False if the player quit."""
    out = out or sys.stdout
    shown_deals = 0
    while not state.done:
        seat = state.current
        view = game.make_view(state, seat)
        if seat == HUMAN:
            show_view(view, out)
            move = ask_move(game, view, out, read)
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
    from ..bots import make
    from ..evaluation import derive_seed
    from ..records import write_json

    spec = args.opponents
    bot = make(spec, seed=derive_seed("play", seed, 1), game=game.name)
    state = game.new_state(seed, **options)
    print(f"{game.title} ({options.get('deck')}), seed {seed} (replay it with --seed {seed}).")
    print(f"You are seat 0; the AI (seat 1) is {spec}. Type rules (or ? or help) at any move prompt.")
    read = input
    if not sys.stdin.isatty():  # piped input: echo it so the transcript reads like a session
        def read(prompt):
            line = input(prompt)
            print(line.strip())
            return line
    finished = False
    try:
        finished = play(game, state, bot, read=read)
    except KeyboardInterrupt:
        print("\ninterrupted")
    if not finished:
        print("\nYou left the game.")
    if path is not None:
        write_json(path, game.to_record(state))
        print(f"Record saved to {path}" + ("" if finished else " (game in progress)"))
    return 0 if finished else 1
