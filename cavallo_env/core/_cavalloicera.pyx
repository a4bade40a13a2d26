# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The binding of cavalloicera.c: ``Tables(n)``, n Cavalloìcera tables in one C array.

Thin on purpose, as _briscola.pyx: ``Tables`` extends _Tables (_tables.pxi:
the numpy arrays, step, random_actions, observe, state) with Cavalloìcera's deals,
capture sets, result and snapshot.
The Python wrapper (cavallo_env/core/cavalloicera.py) checks values and says
what is wrong in words.  numpy is imported at run time only.
"""

import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free


include "_tables.pxi"


cdef extern from "cavalloicera.h":
    ctypedef struct cv_cavalloicera:
        uint64_t hands[4]
        uint64_t table
        uint64_t piles[2]
        uint64_t unclaimed
        uint64_t build_taken
        uint64_t move_capture[48]
        int8_t move_seat[48]
        int8_t move_card[48]
        int8_t build_card
        int8_t last_capturer
        int8_t prev_placed
        uint8_t dealer
        uint8_t current
        uint8_t turn
        uint8_t done
        uint8_t bonuses[2][4]
        int8_t scored[4]
        uint8_t completed

    int CV_CV_ACTIONS
    int CV_CV_OBS_SIZE
    int CV_CV_STATE_SIZE
    int CV_CV_KEYS
    uint32_t cv_cavalloicera_count_sets(const cv_cavalloicera *t, int card)
    int cv_cavalloicera_score(const cv_cavalloicera *t, int points[2], int breakdown[2][10], int cards[2])
    void cv_cavalloicera_reset_seeds(cv_cavalloicera *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds,
                                     const uint8_t *where) nogil
    void cv_cavalloicera_reset_deals(cv_cavalloicera *t, int64_t n, const int8_t *ids, const int8_t *dealers,
                                     const uint8_t *where) nogil
    const cv_game cv_cavalloicera_game


cdef extern from "cavalloicera_bots.h":
    int CV_CV_PRIOR_SIZE

NUM_ACTIONS = CV_CV_ACTIONS
PRIOR_SIZE = CV_CV_PRIOR_SIZE
OBS_SIZE = CV_CV_OBS_SIZE
STATE_SIZE = CV_CV_STATE_SIZE
BREAKDOWN_SIZE = CV_CV_KEYS


cdef list _ids(uint64_t bits):
    return _cards(bits, 52)


cdef class Tables(_Tables):
    """n Cavalloìcera tables and their arrays; row i of every array is table i.

    With ``python_rng`` each table has Python's random.Random (seeds deal as
    random_deal, random actions spell random_playout's moves); without, a splitmix64 stream.
    """

    cdef cv_cavalloicera *t

    def __cinit__(self, Py_ssize_t n, bint python_rng=True):
        self.t = <cv_cavalloicera *> self._setup(&cv_cavalloicera_game, n, python_rng)

    def reset_seeds(self, const uint64_t[::1] seeds, const uint8_t[::1] where=None):
        _rows(seeds.shape[0], self.n, "seeds")
        cv_cavalloicera_reset_seeds(self.t, self.py, self.n, &seeds[0], _where(where, self.n))
        self._query()

    def reset_deals(self, const int8_t[:, ::1] ids, const int8_t[::1] dealers, const uint8_t[::1] where=None):
        _rows(ids.shape[0], self.n, "ids")
        if ids.shape[1] != 52:
            raise ValueError(f"ids has {ids.shape[1]} columns, not 52")
        _rows(dealers.shape[0], self.n, "dealers")
        cv_cavalloicera_reset_deals(self.t, self.n, &ids[0, 0], &dealers[0], _where(where, self.n))
        self._query()

    def count_sets(self, Py_ssize_t i, int card):
        """The number of legal capture sets of ``card`` on table i's table."""
        self._check_table(i)
        return cv_cavalloicera_count_sets(self.t + i, card)

    def result(self, Py_ssize_t i):
        """engine.score of table i's piles and bonuses: ``(team_points, breakdown rows, cards, winner)``."""
        cdef int points[2]
        cdef int breakdown[2][10]
        cdef int cards[2]
        self._check_table(i)
        winner = cv_cavalloicera_score(self.t + i, points, breakdown, cards)
        return ([points[0], points[1]], [[breakdown[s][k] for k in range(10)] for s in range(2)],
                [cards[0], cards[1]], None if winner < 0 else winner)

    def snapshot(self, Py_ssize_t i):
        """Table i as a dict named like CavalloiceraState's attributes (piles as sorted lists)."""
        self._check_table(i)
        cdef cv_cavalloicera *t = self.t + i
        return {
            "dealer": t.dealer, "hands": [_ids(t.hands[s]) for s in range(4)], "table": _ids(t.table),
            "piles": [_ids(t.piles[0]), _ids(t.piles[1])], "current": t.current, "turn": t.turn,
            "last_capturer": None if t.last_capturer < 0 else t.last_capturer,
            "prev_placed": None if t.prev_placed < 0 else t.prev_placed,
            "bonuses": [[t.bonuses[s][k] for k in range(4)] for s in range(2)],
            "moves": [(t.move_seat[k], t.move_card[k], tuple(_ids(t.move_capture[k]))) for k in range(t.turn)],
            "unclaimed": _ids(t.unclaimed), "done": bool(t.done),
            "building": None if t.build_card < 0 else (t.build_card, tuple(_ids(t.build_taken))),
            "scored": None if not t.completed or t.scored[0] < 0 else [t.scored[k] for k in range(4)],
            "completed": bool(t.completed),
        }


include "_mlp.pxi"  # the policy network in C (Network), for the searches it guides
include "_search_tree.pxi"  # the generic tree's options and answer
include "_cavalloicera_search.pxi"
