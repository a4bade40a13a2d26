"""The terminal side of ``cavallo play``, the same for every game: the prompt, the seats'
names, a move's line and a breakdown table.  What a game shows of itself (its rules,
a position, what a move caused) comes from its ``Game`` (``rules_text``,
``view_text``, ``describe_move``, ``move_bonuses``, ``item_labels``, ``after_move``)."""

from __future__ import annotations

import sys

from ..levels import level_of

HELP_WORDS = ("rules", "help", "?")
HUMAN = 0  # you sit in seat 0



def ai_name(spec: str) -> str:
    """``"the strong AI"``, ``"the fast AI"`` for a shipped level's spec (``search:scopa``, ``policy:default``);
    another spec as it is."""
    level = level_of(spec)
    return f"the {level} AI" if level else spec


def seat_name(game, seat: int, the: bool = False) -> str:
    """``"you"``, ``"partner (seat 2)"``, ``"opponent (seat 3)"``, or ``"opponent"`` when there is
    one; ``the``: with the article (``"the opponent"``), as in the middle of a sentence."""
    if seat == HUMAN:
        return "you"
    word = "partner" if game.team_of(seat) == game.team_of(HUMAN) else "opponent"
    name = word if game.num_seats == 2 else f"{word} (seat {seat})"
    return f"the {name}" if the else name


def move_line(game, state, move, deck=None) -> str:
    """``"7-coins takes 3-coins + 4-cups  [Simili]"``: a move of the seat to play in ``state``, with the bonuses it scores."""
    bonuses = [game.item_labels.get(b, b) for b in game.move_bonuses(state, move)]
    return game.describe_move(move, deck) + (f"  [{', '.join(bonuses)}]" if bonuses else "")


def breakdown_table(game, result: dict, labels=("team 0", "team 1")) -> str:
    """A result (``Game.outcome``'s form, or one of ``deal_results``) as a text table: a row per
    item of ``game.breakdown_keys``, the total and (when the result has them) the cards taken."""
    a_w, b_w = max(10, len(labels[0]) + 2), max(10, len(labels[1]) + 2)
    rows = [(game.item_labels.get(k, k), result["breakdown"][0][k], result["breakdown"][1][k])
            for k in game.breakdown_keys]
    lines = [f"\n  {'':<20}{labels[0]:>{a_w}}{labels[1]:>{b_w}}"]
    lines += [f"  {label:<20}{a:>{a_w}}{b:>{b_w}}" for label, a, b in rows]
    lines.append(f"  {'-' * (20 + a_w + b_w)}")
    lines.append(f"  {'total':<20}{result['points'][0]:>{a_w}}{result['points'][1]:>{b_w}}")
    if "cards" in result:
        lines.append(f"  {'cards':<20}{result['cards'][0]:>{a_w}}{result['cards'][1]:>{b_w}}")
    return "\n".join(lines) + "\n"


def terminal_reader():
    """``input``, or for piped input a reader that echoes each line so the transcript reads like a session."""
    if sys.stdin.isatty():
        return input

    def read(prompt):
        line = input(prompt)
        print(line.strip())
        return line

    return read


def ask_choice(moves, labels, rules_text: str, out, read):
    """Show ``labels`` numbered and read a choice: the chosen one of ``moves``, None = quit.

    ``rules``/``help``/``?`` prints ``rules_text`` and asks again; anything
    else that is not a move number says so and asks again."""
    w = out.write
    w("Your moves:\n")
    for i, label in enumerate(labels, start=1):
        w(f"  {i:>2}) {label}\n")
    while True:
        out.flush()
        try:
            pick = "1 (the only legal move)" if len(moves) == 1 else f"1-{len(moves)}"
            line = read(f"Choose {pick} (? for the rules, q to quit): ")
        except EOFError:
            return None
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            return None
        if text in HELP_WORDS:
            w(rules_text)
            continue
        if text.isdigit() and 1 <= int(text) <= len(moves):
            return moves[int(text) - 1]
        w(f"  '{line.strip()}' is not a move: type a number from 1 to {len(moves)}, ? for the rules, "
          "or q to quit\n")
