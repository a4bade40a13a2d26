"""How far can the capture sets' share of the prior reach in Cavalloìcera?
``python benchmarks/sets_reach.py [deals]`` (default 200).

``search:cavalloicera`` gives a move the probability of its first action
(place the card, or capture with it), the sets of one card sharing their
capture action's equally; ``sets=net`` spreads it at the root as the network
takes the cards one by one.  That can only matter where a card in hand has
two or more capture sets.  Along ``deals`` deals of ``heuristic`` play (seeds
1000 on), this counts the decisions with a choice, those with such a card,
and those where the search's move (600 iterations, no time budget, the same
seed) changes with ``sets=net``: the most any gain can draw on.
"""

from __future__ import annotations

import sys
from collections import Counter

from cavallo_env import games
from cavallo_env.bots import make


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    deals = int(argv[0]) if argv else 200
    game = games.get("cavalloicera")
    player = make("heuristic", seed=0)
    equal, net = (make(f"search:cavalloicera,ms=0,iterations=600,sets={k}", seed=1) for k in ("equal", "net"))
    choices = several = changed = 0
    for k in range(deals):
        state = game.new_state(seed=1000 + k)
        while not state.done:
            view, legal = game.make_view(state, state.current), state.legal_moves()
            if len(legal) > 1:
                choices += 1
                if max(Counter(card for card, capture in legal if capture).values(), default=0) > 1:
                    several += 1
                    changed += equal.choose_move(view, legal) != net.choose_move(view, legal)
            game.play(state, game.move_from_dict(player.choose(view), game.deck_of(view)))
    print(f"{deals} deals of heuristic play: {choices} decisions with a choice; {several} "
          f"({100 * several / choices:.1f}%) with a card of several capture sets; the search's move changed by "
          f"sets=net in {changed} ({100 * changed / choices:.2f}% of the decisions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
