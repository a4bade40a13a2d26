"""How often does a search bot agree with itself?
``python benchmarks/teacher_agreement.py [spec] [deals] [other spec]``.

The warm start imitates ``ismcts:1000``; its student reproduced the search's
move about 68% of the time on held-out decisions however many deals it saw
(docs/training.md).  This measures the ceiling that noise sets: positions
from ``deals`` deals of the search playing itself (seats with a real choice
only), each searched again by two copies of the bot with other seeds.  It
prints how often the two copies choose the same move, and the same first
action (the card and whether it captures), the action the student is scored
on first.  With a second spec, that bot's agreement with the first is
printed too (e.g. ``ismcts:3000``: does more search make a steadier teacher?).
"""

from __future__ import annotations

import sys
import time

from cavallo_env.cavalloicera.actions import move_to_actions
from cavallo_env.bots import make
from cavallo_env.cavalloicera.engine import CavalloiceraState
from cavallo_env.evaluation import deal_for
from cavallo_env.cavalloicera.views import make_view, move_from_dict


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec = argv[0] if argv else "ismcts:1000"
    deals = int(argv[1]) if len(argv) > 1 else 4
    other_spec = argv[2] if len(argv) > 2 else None
    player = make(spec, seed=0)
    a, b = make(spec, seed=101), make(spec, seed=202)
    c = make(other_spec, seed=303) if other_spec else None
    same_move = same_first = cross_move = n = 0
    t0 = time.perf_counter()
    for d in range(deals):
        state = CavalloiceraState(*deal_for("teacher-agreement", d))
        while not state.done:
            view = make_view(state, state.current)
            if len(view["legal_moves"]) > 1:
                ma, mb = (move_from_dict(bot.choose(view)) for bot in (a, b))
                n += 1
                same_move += ma == mb
                same_first += move_to_actions(state, *ma)[0] == move_to_actions(state, *mb)[0]
                if c is not None:
                    cross_move += move_from_dict(c.choose(view)) == ma
            state.play(*move_from_dict(player.choose(view)))
    print(f"{spec}: {n} decisions with a choice, {deals} deals, {time.perf_counter() - t0:.0f}s")
    print(f"  two seeds choose the same move:         {100 * same_move / n:.1f}%")
    print(f"  two seeds choose the same first action: {100 * same_first / n:.1f}%")
    if c is not None:
        print(f"  {other_spec} chooses the move of {spec}: {100 * cross_move / n:.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
