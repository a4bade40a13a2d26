"""Time ISMCTS decisions: ``python benchmarks/ismcts_timing.py [spec] [deals]``.

Plays ``deals`` deals with the ISMCTS bot in seats 0 and 2 against the
heuristic and times every ISMCTS decision that has a real choice (more than
one legal move; forced moves return at once and are left out).  Wall-clock
times on a shared machine are noisy: the script prints the mean, median,
90th percentile and maximum.
"""

from __future__ import annotations

import sys
import time

from cavallo_env.bots import make
from cavallo_env.engine import GameState
from cavallo_env.evaluation import deal_for
from cavallo_env.views import make_view, move_from_dict


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    spec = argv[0] if argv else "ismcts:1000"
    deals = int(argv[1]) if len(argv) > 1 else 4
    bot = make(spec, seed=1)
    other = make("heuristic", seed=1)
    times = []
    for d in range(deals):
        state = GameState(*deal_for("timing", d))
        while not state.done:
            view = make_view(state, state.current)
            if state.current % 2 == 0 and len(view["legal_moves"]) > 1:
                t0 = time.perf_counter()
                answer = bot.choose(view)
                times.append(time.perf_counter() - t0)
            else:
                answer = other.choose(view)
            state.play(*move_from_dict(answer))
    times.sort()
    ms = [1000 * t for t in times]
    print(f"{spec}: {len(ms)} decisions over {deals} deals: mean {sum(ms) / len(ms):.0f} ms, "
          f"median {ms[len(ms) // 2]:.0f} ms, p90 {ms[int(0.9 * len(ms))]:.0f} ms, max {ms[-1]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
