# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The binding of briscola.c: ``Tables(n)``, n Briscola tables in one C array.

Thin on purpose: every method hands contiguous numpy arrays (as typed
memoryviews, no copies) to one C function.  Shapes and dtypes are checked by
the memoryviews; the Python wrapper (cavallo_env/core/briscola.py) makes the
arrays and says what is wrong in words.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free


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
    int cv_briscola_trick_winner(int lead, int card, int trump_suit, int leader)
    void cv_briscola_reset_seeds(cv_briscola *t, int64_t n, const uint64_t *seeds, const uint8_t *decks,
                                 const uint8_t *where) nogil
    void cv_briscola_reset_deals(cv_briscola *t, int64_t n, const int8_t *ids, const int8_t *leaders,
                                 const uint8_t *decks, const uint8_t *where) nogil
    int64_t cv_briscola_check(const cv_briscola *t, int64_t n, const int32_t *actions) nogil
    void cv_briscola_step(cv_briscola *t, int64_t n, const int32_t *actions, int reward, float *rewards,
                          uint8_t *done) nogil
    void cv_briscola_query(const cv_briscola *t, int64_t n, int8_t *current, uint8_t *mask) nogil
    void cv_briscola_random_actions(cv_briscola *t, int64_t n, int32_t *actions) nogil
    void cv_briscola_observe_many(const cv_briscola *t, int64_t n, const int8_t *seats, float *out) nogil


OBS_SIZE = CV_BR_OBS_SIZE


def trick_winner(int lead, int card, int trump_suit, int leader):
    """engine.trick_winner, computed by the core."""
    return cv_briscola_trick_winner(lead, card, trump_suit, leader)


cdef const uint8_t *_where(const uint8_t[::1] where):
    cdef const uint8_t *w = NULL
    if where is not None:
        w = &where[0]
    return w


cdef void _rows(Py_ssize_t got, Py_ssize_t n, str what) except *:
    if got != n:
        raise ValueError(f"{what} has {got} rows for {n} tables")


cdef void _cols(Py_ssize_t got, Py_ssize_t want, str what) except *:
    if got != want:
        raise ValueError(f"{what} has {got} columns, not {want}")


cdef class Tables:
    """n Briscola tables; row i of every array is table i."""

    cdef cv_briscola *t
    cdef readonly Py_ssize_t n

    def __cinit__(self, Py_ssize_t n):
        if n < 1:
            raise ValueError(f"the number of tables must be at least 1, got {n}")
        self.t = <cv_briscola *> calloc(n, sizeof(cv_briscola))
        if self.t == NULL:
            raise MemoryError(f"no memory for {n} Briscola tables")
        self.n = n

    def __dealloc__(self):
        free(self.t)

    def reset_seeds(self, const uint64_t[::1] seeds, const uint8_t[::1] decks, const uint8_t[::1] where=None):
        _rows(seeds.shape[0], self.n, "seeds"); _rows(decks.shape[0], self.n, "decks")
        if where is not None:
            _rows(where.shape[0], self.n, "where")
        cv_briscola_reset_seeds(self.t, self.n, &seeds[0], &decks[0], _where(where))

    def reset_deals(self, const int8_t[:, ::1] ids, const int8_t[::1] leaders, const uint8_t[::1] decks,
                    const uint8_t[::1] where=None):
        _rows(ids.shape[0], self.n, "ids"); _cols(ids.shape[1], 40, "ids")
        _rows(leaders.shape[0], self.n, "leaders"); _rows(decks.shape[0], self.n, "decks")
        if where is not None:
            _rows(where.shape[0], self.n, "where")
        cv_briscola_reset_deals(self.t, self.n, &ids[0, 0], &leaders[0], &decks[0], _where(where))

    def check(self, const int32_t[::1] actions):
        """The first table whose action is illegal, or -1."""
        _rows(actions.shape[0], self.n, "actions")
        return cv_briscola_check(self.t, self.n, &actions[0])

    def step(self, const int32_t[::1] actions, int reward, float[:, ::1] rewards, uint8_t[::1] done,
             int8_t[::1] current, uint8_t[:, ::1] mask):
        """Play the actions (trusted: see check), then write the seat to play and the mask."""
        _rows(actions.shape[0], self.n, "actions"); _rows(rewards.shape[0], self.n, "rewards")
        _cols(rewards.shape[1], 2, "rewards"); _rows(done.shape[0], self.n, "done")
        _rows(current.shape[0], self.n, "current")
        _rows(mask.shape[0], self.n, "mask"); _cols(mask.shape[1], 40, "mask")
        with nogil:
            cv_briscola_step(self.t, self.n, &actions[0], reward, &rewards[0, 0], &done[0])
            cv_briscola_query(self.t, self.n, &current[0], &mask[0, 0])

    def query(self, int8_t[::1] current, uint8_t[:, ::1] mask):
        _rows(current.shape[0], self.n, "current")
        _rows(mask.shape[0], self.n, "mask"); _cols(mask.shape[1], 40, "mask")
        cv_briscola_query(self.t, self.n, &current[0], &mask[0, 0])

    def random_actions(self, int32_t[::1] actions):
        _rows(actions.shape[0], self.n, "actions")
        cv_briscola_random_actions(self.t, self.n, &actions[0])

    def observe(self, float[:, ::1] out, const int8_t[::1] seats=None):
        _rows(out.shape[0], self.n, "out"); _cols(out.shape[1], CV_BR_OBS_SIZE, "out")
        cdef const int8_t *s = NULL
        if seats is not None:
            _rows(seats.shape[0], self.n, "seats")
            s = &seats[0]
        with nogil:
            cv_briscola_observe_many(self.t, self.n, s, &out[0, 0])

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
