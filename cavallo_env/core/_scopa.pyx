# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The binding of scopa.c: ``Tables(n)``, n Scopa tables (matches or single deals) in one C array.

Thin on purpose, as _briscola.pyx: ``Tables`` extends _Tables (_tables.pxi:
the numpy arrays, step, random_actions, observe, state) with Scopa's deals,
capture sets and snapshot.
The Python wrapper (cavallo_env/core/scopa.py) checks values and says what is
wrong in words.  numpy is imported at run time only.
"""

import numpy as np

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free


include "_tables.pxi"


cdef extern from "scopa.h":
    ctypedef struct cv_scopa:
        int8_t initial[40]
        uint64_t hands[2]
        uint64_t table
        uint64_t piles[2]
        uint64_t leftovers
        uint8_t dealer
        uint8_t stock_pos
        uint8_t turn
        uint8_t scope[2]
        uint8_t deal_done
        int8_t last_capturer
        int8_t leftovers_to
        int8_t move_seat[36]
        int8_t move_card[36]
        uint64_t move_capture[36]
        int8_t build_card
        uint64_t taken
        uint8_t match
        uint8_t deck
        uint8_t money
        uint8_t current
        uint8_t done
        int8_t winner
        int16_t base[2]
        int16_t totals[2]
        uint16_t deals
        uint8_t ended_deal
        uint8_t res_points[2]
        uint8_t res_cards[2]
        uint8_t res_breakdown[2][5]
        uint32_t acted

    int CV_SC_OBS_SIZE
    int CV_SC_STATE_SIZE
    int cv_scopa_captures(const cv_scopa *t, int card, uint64_t *out, int max)
    int cv_scopa_primiera(uint64_t pile)
    void cv_scopa_reset_seeds(cv_scopa *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds, const uint8_t *decks,
                              int match, const uint8_t *where) nogil
    void cv_scopa_reset_deals(cv_scopa *t, cv_pyrandom *py, int64_t n, const int8_t *ids, const int8_t *dealers,
                              const uint64_t *seeds, const uint8_t *decks, int match, const int16_t *bases,
                              const uint8_t *where) nogil
    const cv_game cv_scopa_game


cdef extern from "scopa_bots.h":
    int CV_SC_PRIOR_SIZE
    int CV_SC_HAND, CV_SC_MAX_SETS
    int cv_scopa_moves(const cv_scopa *t, int8_t *cards, uint64_t *captures) nogil

NUM_ACTIONS = 120
OBS_SIZE = CV_SC_OBS_SIZE
STATE_SIZE = CV_SC_STATE_SIZE
PRIOR_SIZE = CV_SC_PRIOR_SIZE
AWARDS = ("scope", "most_cards", "most_money", "settebello", "primiera")


def primiera(cards):
    """engine.primiera_value of a pile, computed by the core."""
    cdef uint64_t pile = 0
    for c in cards:
        pile |= (<uint64_t> 1) << <int> c
    return cv_scopa_primiera(pile)


cdef list _ids(uint64_t bits):
    return _cards(bits, 40)


cdef class Tables(_Tables):
    """n Scopa tables and their arrays; row i of every array is table i.

    ``match``: matches to 11 (else single deals).  With ``python_rng`` each table
    has Python's random.Random (seeds deal as random_state, random moves are
    random_playout(state, state.rng)'s); without, a splitmix64 stream.
    """

    cdef cv_scopa *t
    cdef readonly bint match

    def __cinit__(self, Py_ssize_t n, bint python_rng=True, bint match=True):
        self.t = <cv_scopa *> self._setup(&cv_scopa_game, n, python_rng)
        self.match = match

    def reset_seeds(self, const uint64_t[::1] seeds, const uint8_t[::1] decks, const uint8_t[::1] where=None):
        _rows(seeds.shape[0], self.n, "seeds")
        _rows(decks.shape[0], self.n, "decks")
        cv_scopa_reset_seeds(self.t, self.py, self.n, &seeds[0], &decks[0], self.match, _where(where, self.n))
        self._query()

    def reset_deals(self, const int8_t[:, ::1] ids, const int8_t[::1] dealers, const uint64_t[::1] seeds,
                    const uint8_t[::1] decks, const int16_t[:, ::1] bases=None, const uint8_t[::1] where=None):
        _rows(ids.shape[0], self.n, "ids")
        if ids.shape[1] != 40:
            raise ValueError(f"ids has {ids.shape[1]} columns, not 40")
        _rows(dealers.shape[0], self.n, "dealers")
        _rows(seeds.shape[0], self.n, "seeds")
        _rows(decks.shape[0], self.n, "decks")
        cdef const int16_t *b = NULL
        if bases is not None:
            _rows(bases.shape[0], self.n, "bases")
            b = &bases[0, 0]
        cv_scopa_reset_deals(self.t, self.py, self.n, &ids[0, 0], &dealers[0], &seeds[0], &decks[0], self.match,
                             b, _where(where, self.n))
        self._query()

    def decisions(self):
        """The actions applied at all tables since their resets (for benchmarks)."""
        cdef int64_t total = 0
        for i in range(self.n):
            total += self.t[i].acted
        return total

    def captures(self, Py_ssize_t i, int card):
        """The legal capture sets of ``card`` at table i (sorted tuples, the engine's order)."""
        cdef uint64_t out[4096]
        self._check_table(i)
        k = cv_scopa_captures(self.t + i, card, out, 4096)
        return [tuple(_ids(out[j])) for j in range(min(k, 4096))]

    def snapshot(self, Py_ssize_t i):
        """Table i as a dict named like ScopaDeal's / ScopaState's attributes (cards as sorted lists)."""
        self._check_table(i)
        cdef cv_scopa *t = self.t + i
        result = None
        if t.deals:
            result = {"points": [t.res_points[0], t.res_points[1]],
                      "breakdown": [{k: t.res_breakdown[s][j] for j, k in enumerate(AWARDS)} for s in range(2)],
                      "cards": [t.res_cards[0], t.res_cards[1]]}
        return {
            "initial": [t.initial[k] for k in range(40)], "dealer": t.dealer,
            "hands": [_ids(t.hands[0]), _ids(t.hands[1])], "table": _ids(t.table),
            "stock_pos": t.stock_pos, "piles": [_ids(t.piles[0]), _ids(t.piles[1])],
            "scope": [t.scope[0], t.scope[1]], "turn": t.turn,
            "last_capturer": None if t.last_capturer < 0 else t.last_capturer,
            "moves": [(t.move_seat[k], t.move_card[k], tuple(_ids(t.move_capture[k]))) for k in range(t.turn)],
            "deal_done": bool(t.deal_done), "leftovers": _ids(t.leftovers),
            "leftovers_to": None if t.leftovers_to < 0 else t.leftovers_to,
            "building": None if t.build_card < 0 else (t.build_card, tuple(_ids(t.taken))),
            "match": bool(t.match), "deck": t.deck, "money": t.money, "current": t.current, "done": bool(t.done),
            "winner": None if t.winner < 0 else t.winner, "base": [t.base[0], t.base[1]],
            "totals": [t.totals[0], t.totals[1]], "deals": t.deals, "last_result": result,
        }


include "_mlp.pxi"  # the policy network in C (Network), for the searches it guides
include "_search_tree.pxi"  # the generic tree's options and answer
include "_scopa_search.pxi"
