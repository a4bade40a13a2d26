# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The binding of briscola.c: ``Tables(n)``, n Briscola tables in one C array.

Thin on purpose.  ``Tables`` extends _Tables (_tables.pxi: the numpy arrays
``actions``, ``rewards``, ``done``, ``current``, ``mask``, ``obs``, row i
being table i, and step, random_actions, observe and state, each one C loop
over all tables) with Briscola's deals and snapshot.  Deals come in as arrays
(checked by typed memoryviews).  The Python wrapper
(cavallo_env/core/briscola.py) checks values and says what is wrong in words.
numpy is imported at run time only: building needs no numpy headers.
"""

import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free


include "_tables.pxi"
include "_mlp.pxi"
include "_search_tree.pxi"  # the generic tree's options and answer
include "_briscola_search.pxi"


cdef extern from "briscola.h":
    ctypedef struct cv_briscola:
        int8_t hands[2][3]
        uint8_t hand_len[2]
        uint64_t hand_bits[2]
        int8_t stock[33]
        uint8_t drawn
        int8_t trump
        int8_t trump_suit
        int8_t trump_holder
        uint8_t leader
        uint8_t current
        int8_t lead
        int8_t last_winner
        uint8_t points[2]
        uint8_t tricks[2]
        uint8_t turn
        uint8_t done
        uint8_t deck
        uint64_t piles[2]
        uint64_t played[2]
        int8_t move_seat[40]
        int8_t move_card[40]

    int CV_BR_OBS_SIZE
    int CV_BR_STATE_SIZE
    int cv_briscola_trick_winner(int lead, int card, int trump_suit, int leader)
    void cv_briscola_reset_seeds(cv_briscola *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds,
                                 const uint8_t *decks, const uint8_t *where) nogil
    void cv_briscola_reset_deals(cv_briscola *t, int64_t n, const int8_t *ids, const int8_t *leaders,
                                 const uint8_t *decks, const uint8_t *where) nogil
    const cv_game cv_briscola_game


cdef extern from "briscola_bots.h":
    int CV_BR_PRIOR_SIZE


OBS_SIZE = CV_BR_OBS_SIZE
STATE_SIZE = CV_BR_STATE_SIZE
PRIOR_SIZE = CV_BR_PRIOR_SIZE


def trick_winner(int lead, int card, int trump_suit, int leader):
    """engine.trick_winner, computed by the core."""
    return cv_briscola_trick_winner(lead, card, trump_suit, leader)


cdef class Tables(_Tables):
    """n Briscola tables and their arrays; row i of every array is table i.

    With ``python_rng`` each table has Python's random.Random (seeds deal as
    random_deal, random moves are random_playout's); without, a splitmix64 stream.
    """

    cdef cv_briscola *t

    def __cinit__(self, Py_ssize_t n, bint python_rng=True):
        self.t = <cv_briscola *> self._setup(&cv_briscola_game, n, python_rng)

    def reset_seeds(self, const uint64_t[::1] seeds, const uint8_t[::1] decks, const uint8_t[::1] where=None):
        _rows(seeds.shape[0], self.n, "seeds")
        _rows(decks.shape[0], self.n, "decks")
        cv_briscola_reset_seeds(self.t, self.py, self.n, &seeds[0], &decks[0], _where(where, self.n))
        self._query()

    def reset_deals(self, const int8_t[:, ::1] ids, const int8_t[::1] leaders, const uint8_t[::1] decks,
                    const uint8_t[::1] where=None):
        _rows(ids.shape[0], self.n, "ids")
        if ids.shape[1] != 40:
            raise ValueError(f"ids has {ids.shape[1]} columns, not 40")
        _rows(leaders.shape[0], self.n, "leaders")
        _rows(decks.shape[0], self.n, "decks")
        cv_briscola_reset_deals(self.t, self.n, &ids[0, 0], &leaders[0], &decks[0], _where(where, self.n))
        self._query()

    def snapshot(self, Py_ssize_t i):
        """Table i as a dict named like BriscolaState's attributes (piles as sorted lists)."""
        self._check_table(i)
        cdef cv_briscola *t = self.t + i
        return {
            "hands": [[t.hands[s][k] for k in range(t.hand_len[s])] for s in range(2)],
            "stock": tuple(t.stock[k] for k in range(t.drawn, 33)),
            "trump": t.trump, "trump_suit": t.trump_suit,
            "trump_holder": None if t.trump_holder < 0 else t.trump_holder,
            "leader": t.leader, "current": t.current,
            "trick": () if t.lead < 0 else (t.lead,),
            "piles": [_cards(t.piles[s], 40) for s in range(2)],
            "points": [t.points[0], t.points[1]], "tricks": [t.tricks[0], t.tricks[1]],
            "moves": [(t.move_seat[k], t.move_card[k]) for k in range(t.turn)],
            "done": bool(t.done), "deck": t.deck, "last_winner": None if t.last_winner < 0 else t.last_winner,
        }
