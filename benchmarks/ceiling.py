"""How far a search gets against ``ismcts:1000`` when it knows the hidden cards.

The issue's targets for the strong levels are 58% against ``ismcts:1000`` on 1,000
duplicate deals. This measures what the gap is made of, as the Scopa ceiling experiment
did (docs/experiments/scopa-strength.md): ``ismcts:1000`` itself (the Python engine, the
same search as the compiled core's) plays against ``ismcts:1000``, but one
side's determinizer is told the truth:

- ``hand``: it sees the other hands (Cavalloìcera: all three, the partner's too);
  Briscola's and Scopa's stock order is still shuffled each iteration (Scopa plays
  single deals, as ``cavallo eval --single-deal``);
- ``all``: it sees the other hand and the stock's order too (Briscola: a perfect-information
  search; in Cavalloìcera every card is in a hand, so ``all`` is ``hand``);
- ``fair``: it sees nothing more than its view: the control, ``ismcts:1000`` against
  itself. In Cavalloìcera these are the very games of ``cavallo eval --game cavalloicera
  ismcts:1000 ismcts:1000`` (a test checks it), which the compiled core plays in a
  fraction of the time; Briscola's core search draws its own random numbers, so there
  the same search plays other games.

These are ceilings, not players: no honest bot can know these cards. The deals, the bot
seeds and the score are those of ``cavallo eval --game GAME --seed SEED``, so a row
compares with the shipped levels' evaluations on the same deals.

    python benchmarks/ceiling.py hand --game briscola --deals 300 --seed 1 --jobs 2
    python benchmarks/ceiling.py all --game briscola --deals 300 --seed 1 --jobs 2
    python benchmarks/ceiling.py hand --game cavalloicera --deals 300 --seed 1 --jobs 2
    python benchmarks/ceiling.py hand --game scopa --deals 200 --seed 1 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from cavallo_env import evaluation, games
from cavallo_env.bots.base import register
from cavallo_env.bots.ismcts import ISMCTSBot

VARIANTS = ("fair", "hand", "all")
GAMES = ("briscola", "cavalloicera", "scopa")


def truth_search(game: str, variant: str):
    """``game``'s search hooks whose determinizer deals from the true position (``.truth``)."""
    hooks_type = type(games.get(game).search())

    class TruthSearch(hooks_type):
        truth = None  # the true state, set before each decision (``TruthBot.see``)

        def determinizer(self, base, seat: int):
            truth = self.truth
            if variant == "fair" or truth is None:
                return super().determinizer(base, seat)
            if game == "scopa":
                return _scopa_truth(super().determinizer(base, seat), base, truth, variant)
            if [len(h) for h in truth.hands] != [len(h) for h in base.hands] or truth.moves != base.moves:
                raise RuntimeError("the truth given to the search is not the position it searches")
            others = [s for s in range(len(base.hands)) if s != seat]

            def determinize(rng: random.Random):
                state = base.copy()
                for s in others:
                    state.hands[s] = list(truth.hands[s])
                if hasattr(truth, "stock"):  # Briscola: the cards still to draw
                    stock = list(truth.stock)
                    if variant == "hand":
                        rng.shuffle(stock)
                    state.stock = tuple(stock)
                state._legal = None
                return state

            return determinize

    return TruthSearch()


def _scopa_truth(determinize, base, truth, variant: str):
    """Scopa's determinizer with the other hand the true one: its search state (the kind of
    player it takes the other seat for, drawn as ever) with that hand dealt, and the rest of
    the stock shuffled (``hand``) or in its true order (``all``)."""
    if truth.deal.turn != base.deal.turn or [len(h) for h in truth.deal.hands] != [len(h) for h in base.deal.hands]:
        raise RuntimeError("the truth given to the search is not the position it searches")
    other = determinize.other
    hand = sorted(truth.deal.hands[other])
    stock = tuple(truth.deal.initial_stock[truth.deal.stock_pos:])

    def deal(rng: random.Random):
        state = determinize(rng)
        d = state.deal
        rest = list(stock)
        if variant == "hand":
            rng.shuffle(rest)
        d.hands[other] = hand[:]
        d.initial_stock = determinize.head + tuple(rest)
        d._legal = None
        d._caps = None
        return state

    return deal


class TruthBot(ISMCTSBot):
    """``ismcts:1000`` (the Python engine) with a ``truth_search``; ``play_game`` below hands it
    the true state before each decision."""

    def __init__(self, game: str, variant: str, seed=None):
        super().__init__(1000, seed=seed, game=game, engine="python")
        self._hooks[game] = truth_search(game, variant)
        self.name = f"truth:{variant}"

    def see(self, state) -> None:
        self._hooks[self.game].truth = state


def _truth_bot(arg, seed, game=None):
    if arg not in VARIANTS or game not in GAMES:
        raise ValueError(f"truth:<{'|'.join(VARIANTS)}> for {' or '.join(GAMES)}; got {arg!r} for {game!r}")
    return TruthBot(game, arg, seed)


def _showing_truth(play_game):
    """``evaluation.play_game`` that shows the true state to every ``TruthBot`` first."""

    def play(bots, state, timings=None, game=None):
        for bot in bots:
            if isinstance(bot, TruthBot):
                bot.see(state)  # the same object, played on in place: it stays the truth
        return play_game(bots, state, timings, game)

    return play


def ceiling_eval(variant: str, game: str, deals: int, seed: int, jobs: int, opponent: str = "ismcts:1000"):
    """``truth:<variant>`` against ``opponent`` on ``deals`` duplicate deals: a ``DuplicateResult``."""
    register("truth", _truth_bot)
    plain = evaluation.play_game
    evaluation.play_game = _showing_truth(plain)  # play_duplicate_deal looks it up at call time (forked workers too)
    try:
        options = {"match": False} if game == "scopa" else {}  # Scopa: single deals, as --single-deal
        return evaluation.duplicate_eval(f"truth:{variant}", opponent, deals, seed=seed, jobs=jobs, game=game,
                                         **options)
    finally:
        evaluation.play_game = plain


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("variant", choices=VARIANTS)
    p.add_argument("--game", choices=GAMES, default="briscola")
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--opponent", default="ismcts:1000")
    p.add_argument("--json", type=Path, help="write the result here too")
    a = p.parse_args(argv)
    r = ceiling_eval(a.variant, a.game, a.deals, a.seed, a.jobs, a.opponent)
    print(evaluation.format_result(r))
    if a.json:
        a.json.write_text(json.dumps(r.to_dict(), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
