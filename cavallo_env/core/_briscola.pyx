# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The binding of briscola.c: ``Tables(n)``, n Briscola tables in one C array.

Thin on purpose.  A ``Tables`` owns its numpy arrays (``actions``,
``rewards``, ``done``, ``current``, ``mask``, ``obs``: row i is table i) and
keeps C pointers to them, so a step costs one Python call and no buffer
look-ups; each method is one C function over all tables.  Deals come in as
arrays (checked by typed memoryviews).  The Python wrapper
(cavallo_env/core/briscola.py) checks values and says what is wrong in words.
numpy is imported at run time only: building needs no numpy headers.
"""

import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free


include "_tables.pxi"


cdef extern from "briscola.h":
    ctypedef struct cv_briscola:
        int8_t hands[2][3]
        uint8_t hand_len[2]
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
    int64_t cv_briscola_step(cv_briscola *t, int64_t n, const int32_t *actions, int reward, float *rewards,
                             uint8_t *done, int8_t *current, uint8_t *mask) nogil
    void cv_briscola_query(const cv_briscola *t, int64_t n, int8_t *current, uint8_t *mask) nogil
    void cv_briscola_random_actions(cv_briscola *t, cv_pyrandom *py, int64_t n, int32_t *actions) nogil
    void cv_briscola_observe_many(const cv_briscola *t, int64_t n, const int8_t *seats, float *out) nogil
    void cv_briscola_state_many(const cv_briscola *t, int64_t n, float *out) nogil


cdef extern from "briscola_bots.h":
    int CV_BR_PRIOR_SIZE
    void cv_briscola_bot_actions(const cv_briscola *t, int64_t n, int kind, const uint8_t *where,
                                 int32_t *actions) nogil
    void cv_briscola_prior_many(const cv_briscola *t, int64_t n, const uint8_t *where, float *out) nogil


OBS_SIZE = CV_BR_OBS_SIZE
STATE_SIZE = CV_BR_STATE_SIZE
PRIOR_SIZE = CV_BR_PRIOR_SIZE


def trick_winner(int lead, int card, int trump_suit, int leader):
    """engine.trick_winner, computed by the core."""
    return cv_briscola_trick_winner(lead, card, trump_suit, leader)


cdef class Tables:
    """n Briscola tables and their arrays; row i of every array is table i.

    With ``python_rng`` each table has Python's random.Random (seeds deal as
    random_deal, random moves are random_playout's); without, a splitmix64 stream.
    """

    cdef cv_briscola *t
    cdef cv_pyrandom *py
    cdef readonly Py_ssize_t n
    cdef readonly object actions, rewards, done, current, mask, obs
    cdef int32_t *p_actions
    cdef float *p_rewards
    cdef float *p_obs
    cdef uint8_t *p_done
    cdef int8_t *p_current
    cdef uint8_t *p_mask

    def __cinit__(self, Py_ssize_t n, bint python_rng=True):
        if n < 1:
            raise ValueError(f"the number of tables must be at least 1, got {n}")
        self.t = <cv_briscola *> calloc(n, sizeof(cv_briscola))
        if python_rng:
            self.py = <cv_pyrandom *> calloc(n, sizeof(cv_pyrandom))
        if self.t == NULL or (python_rng and self.py == NULL):
            raise MemoryError(f"no memory for {n} Briscola tables")
        self.n = n
        for i in range(n):  # no deal yet: like a finished one (skip or reset it)
            self.t[i].done = 1
        self._arrays(n)

    cdef _arrays(self, Py_ssize_t n):
        self.actions = np.zeros(n, np.int32)
        self.rewards = np.zeros((n, 2), np.float32)
        self.done = np.ones(n, np.uint8)
        self.current = np.zeros(n, np.int8)
        self.mask = np.zeros((n, 40), np.uint8)
        self.obs = np.zeros((n, CV_BR_OBS_SIZE), np.float32)
        cdef int32_t[::1] a = self.actions
        cdef float[:, ::1] r = self.rewards
        cdef uint8_t[::1] d = self.done
        cdef int8_t[::1] c = self.current
        cdef uint8_t[:, ::1] m = self.mask
        cdef float[:, ::1] o = self.obs
        self.p_actions, self.p_rewards, self.p_done = &a[0], &r[0, 0], &d[0]
        self.p_current, self.p_mask, self.p_obs = &c[0], &m[0, 0], &o[0, 0]

    def __dealloc__(self):
        free(self.t)
        free(self.py)

    def reset_seeds(self, const uint64_t[::1] seeds, const uint8_t[::1] decks, const uint8_t[::1] where=None):
        _rows(seeds.shape[0], self.n, "seeds")
        _rows(decks.shape[0], self.n, "decks")
        cv_briscola_reset_seeds(self.t, self.py, self.n, &seeds[0], &decks[0], _where(where, self.n))
        cv_briscola_query(self.t, self.n, self.p_current, self.p_mask)

    def reset_deals(self, const int8_t[:, ::1] ids, const int8_t[::1] leaders, const uint8_t[::1] decks,
                    const uint8_t[::1] where=None):
        _rows(ids.shape[0], self.n, "ids")
        if ids.shape[1] != 40:
            raise ValueError(f"ids has {ids.shape[1]} columns, not 40")
        _rows(leaders.shape[0], self.n, "leaders")
        _rows(decks.shape[0], self.n, "decks")
        cv_briscola_reset_deals(self.t, self.n, &ids[0, 0], &leaders[0], &decks[0], _where(where, self.n))
        cv_briscola_query(self.t, self.n, self.p_current, self.p_mask)

    def step(self, int reward):
        """Play ``actions`` (negative: skip), write rewards, done, current, mask; returns -1, or the first
        table whose action is illegal (then nothing is played)."""
        cdef int64_t bad
        with nogil:
            bad = cv_briscola_step(self.t, self.n, self.p_actions, reward, self.p_rewards, self.p_done,
                                   self.p_current, self.p_mask)
        return bad

    def random_actions(self):
        """Write a random legal card of every table into ``actions`` (-1 where over)."""
        cv_briscola_random_actions(self.t, self.py, self.n, self.p_actions)

    def observe(self, const int8_t[::1] seats=None):
        """Write the observations (of ``seats``, default the seats to play) into ``obs``."""
        cdef const int8_t *s = NULL
        if seats is not None:
            _rows(seats.shape[0], self.n, "seats")
            s = &seats[0]
        with nogil:
            cv_briscola_observe_many(self.t, self.n, s, self.p_obs)

    def state(self, float[:, ::1] out):
        """Write the full-information vectors into ``out`` (n x 578, made by the caller: rarely needed)."""
        _rows(out.shape[0], self.n, "out")
        if out.shape[1] != CV_BR_STATE_SIZE:
            raise ValueError(f"out has {out.shape[1]} columns, not {CV_BR_STATE_SIZE}")
        with nogil:
            cv_briscola_state_many(self.t, self.n, &out[0, 0])

    def snapshot(self, Py_ssize_t i):
        """Table i as a dict named like BriscolaState's attributes (piles as sorted lists)."""
        if not 0 <= i < self.n:
            raise IndexError(f"table {i} out of range 0..{self.n - 1}")
        cdef cv_briscola *t = self.t + i
        return {
            "hands": [[t.hands[s][k] for k in range(t.hand_len[s])] for s in range(2)],
            "stock": tuple(t.stock[k] for k in range(t.drawn, 33)),
            "trump": t.trump, "trump_suit": t.trump_suit,
            "trump_holder": None if t.trump_holder < 0 else t.trump_holder,
            "leader": t.leader, "current": t.current,
            "trick": () if t.lead < 0 else (t.lead,),
            "piles": [[c for c in range(40) if t.piles[s] >> c & 1] for s in range(2)],
            "points": [t.points[0], t.points[1]], "tricks": [t.tricks[0], t.tricks[1]],
            "moves": [(t.move_seat[k], t.move_card[k]) for k in range(t.turn)],
            "done": bool(t.done), "deck": t.deck, "last_winner": None if t.last_winner < 0 else t.last_winner,
        }

    def bot_actions(self, int kind, const uint8_t[::1] where=None):
        """Write the fixed bot ``kind``'s card (0 greedy, 1 heuristic) of every table into ``actions``
        (-1 where over or where ``where`` is false)."""
        cdef const uint8_t *w = _where(where, self.n)
        with nogil:
            cv_briscola_bot_actions(self.t, self.n, kind, w, self.p_actions)

    def prior(self, float[:, ::1] out, const uint8_t[::1] where=None):
        """Write the heuristic prior of every table's seat to play into ``out`` (n x 80; zeros where over
        or where ``where`` is false)."""
        _rows(out.shape[0], self.n, "out")
        if out.shape[1] != CV_BR_PRIOR_SIZE:
            raise ValueError(f"out has {out.shape[1]} columns, not {CV_BR_PRIOR_SIZE}")
        cdef const uint8_t *w = _where(where, self.n)
        with nogil:
            cv_briscola_prior_many(self.t, self.n, w, &out[0, 0])
