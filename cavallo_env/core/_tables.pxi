# What the games' bindings share (included by each _<game>.pyx): Python's random in C, the
# batched loops of batch.h (a game's cv_game) and the class over them, _Tables, which a game's
# Tables extends with its deals and its snapshot; and the checks of an array's rows.

cdef extern from "pyrandom.h":
    ctypedef struct cv_pyrandom:
        pass


cdef extern from "batch.h":
    ctypedef struct cv_game:
        const char *name
        size_t size
        int seats, actions, obs_size, state_size
        void (*blank)(void *t, int64_t n) nogil
        int64_t (*step)(void *t, cv_pyrandom *py, int64_t n, const int32_t *actions, int reward, float *rewards,
                        uint8_t *done, int8_t *current, uint8_t *mask) nogil
        void (*query)(const void *t, int64_t n, int8_t *current, uint8_t *mask) nogil
        void (*random_actions)(void *t, cv_pyrandom *py, int64_t n, int32_t *actions) nogil
        void (*observe)(const void *t, int64_t n, const int8_t *seats, float *out) nogil
        void (*state)(const void *t, int64_t n, float *out) nogil


cdef void _rows(Py_ssize_t got, Py_ssize_t n, str what) except *:
    if got != n:
        raise ValueError(f"{what} has {got} rows for {n} tables")


cdef const uint8_t *_where(const uint8_t[::1] where, Py_ssize_t n) except? NULL:
    cdef const uint8_t *w = NULL
    if where is not None:
        _rows(where.shape[0], n, "where")
        w = &where[0]
    return w


cdef list _cards(uint64_t bits, int count):
    return [c for c in range(count) if bits >> c & 1]


cdef class _Tables:
    """n tables of one game in one C array, and their numpy arrays (``actions``, ``rewards``, ``done``,
    ``current``, ``mask``, ``obs``: row i is table i), whose C pointers it keeps: a step costs one
    Python call and no buffer look-ups.  With ``python_rng`` each table has Python's random.Random,
    else its splitmix64 stream.  A game's Tables calls _setup from its __cinit__."""

    cdef const cv_game *game
    cdef void *mem
    cdef cv_pyrandom *py
    cdef readonly Py_ssize_t n
    cdef readonly object actions, rewards, done, current, mask, obs
    cdef int32_t *p_actions
    cdef float *p_rewards
    cdef float *p_obs
    cdef uint8_t *p_done
    cdef int8_t *p_current
    cdef uint8_t *p_mask

    cdef void *_setup(self, const cv_game *game, Py_ssize_t n, bint python_rng) except NULL:
        if n < 1:
            raise ValueError(f"the number of tables must be at least 1, got {n}")
        self.game = game
        self.mem = calloc(n, game.size)
        if python_rng:
            self.py = <cv_pyrandom *> calloc(n, sizeof(cv_pyrandom))
        if self.mem == NULL or (python_rng and self.py == NULL):
            raise MemoryError(f"no memory for {n} {game.name.decode('utf-8')} tables")
        self.n = n
        game.blank(self.mem, n)
        self._arrays(n)
        return self.mem

    cdef _arrays(self, Py_ssize_t n):
        self.actions = np.zeros(n, np.int32)
        self.rewards = np.zeros((n, self.game.seats), np.float32)
        self.done = np.ones(n, np.uint8)
        self.current = np.zeros(n, np.int8)
        self.mask = np.zeros((n, self.game.actions), np.uint8)
        self.obs = np.zeros((n, self.game.obs_size), np.float32)
        cdef int32_t[::1] a = self.actions
        cdef float[:, ::1] r = self.rewards
        cdef uint8_t[::1] d = self.done
        cdef int8_t[::1] c = self.current
        cdef uint8_t[:, ::1] m = self.mask
        cdef float[:, ::1] o = self.obs
        self.p_actions, self.p_rewards, self.p_done = &a[0], &r[0, 0], &d[0]
        self.p_current, self.p_mask, self.p_obs = &c[0], &m[0, 0], &o[0, 0]

    def __dealloc__(self):
        free(self.mem)
        free(self.py)

    cdef _query(self):
        """After a reset: write current and mask."""
        self.game.query(self.mem, self.n, self.p_current, self.p_mask)

    def step(self, int reward):
        """Apply ``actions`` (negative: skip), write rewards, done, current, mask; returns -1, or the first
        table whose action is illegal (then nothing is played)."""
        cdef int64_t bad
        with nogil:
            bad = self.game.step(self.mem, self.py, self.n, self.p_actions, reward, self.p_rewards, self.p_done,
                                 self.p_current, self.p_mask)
        return bad

    def random_actions(self):
        """Write a random legal action of every table into ``actions`` (-1 where over)."""
        with nogil:
            self.game.random_actions(self.mem, self.py, self.n, self.p_actions)

    def observe(self, const int8_t[::1] seats=None):
        """Write the observations (of ``seats``, default the seats to act) into ``obs``."""
        cdef const int8_t *s = NULL
        if seats is not None:
            _rows(seats.shape[0], self.n, "seats")
            s = &seats[0]
        with nogil:
            self.game.observe(self.mem, self.n, s, self.p_obs)

    def state(self, float[:, ::1] out):
        """Write the full-information vectors into ``out`` (n x STATE_SIZE, made by the caller)."""
        _rows(out.shape[0], self.n, "out")
        if out.shape[1] != self.game.state_size:
            raise ValueError(f"out has {out.shape[1]} columns, not {self.game.state_size}")
        with nogil:
            self.game.state(self.mem, self.n, &out[0, 0])

    cdef _check_table(self, Py_ssize_t i):
        if not 0 <= i < self.n:
            raise IndexError(f"table {i} out of range 0..{self.n - 1}")
