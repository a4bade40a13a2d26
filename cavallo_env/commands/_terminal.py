"""The terminal prompts of ``cavallo play``, shared by every game (``play`` and ``play_two``)."""

from __future__ import annotations

import sys

HELP_WORDS = ("rules", "help", "?")


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
