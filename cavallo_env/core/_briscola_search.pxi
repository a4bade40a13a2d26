# Briscola's ISMCTS decision in C (briscola_search.h), included by _briscola.pyx: a Python
# BriscolaState is copied into one cv_briscola, the search runs without the GIL, and the
# move and root visits come back.  cavallo_env/briscola/search.py (core_search) calls it.

from libc.string cimport memset


cdef extern from "briscola_search.h":
    ctypedef struct cv_brs_params:
        cv_search_params search
        const double *bias
        double epsilon
        int smart
        double win
        const double *weights
        const cv_mlp *net
        double temp, value_scale
        double *means

    int cv_briscola_search(const cv_briscola *base, const cv_brs_params *p, int64_t *visits) nogil
    double cv_briscola_rollout_value(const cv_briscola *state, const cv_brs_params *p, uint64_t seed) nogil
    double cv_briscola_solve(const cv_briscola *state, double bonus) nogil
    void cv_briscola_determinize(const cv_briscola *base, const double *weights, cv_briscola *out,
                                 uint64_t *rng) nogil


cdef void _put_hand(cv_briscola *t, int seat, object cards) except *:
    if len(cards) > 3:
        raise ValueError(f"a Briscola hand holds at most 3 cards, got {len(cards)}")
    t.hand_len[seat] = len(cards)
    t.hand_bits[seat] = 0
    for k, c in enumerate(cards):
        t.hands[seat][k] = c
        t.hand_bits[seat] |= (<uint64_t> 1) << <int> c


cdef void _load_state(cv_briscola *t, object state) except *:
    """A BriscolaState (its attributes) as one cv_briscola."""
    memset(t, 0, sizeof(cv_briscola))
    stock = state.stock
    if len(stock) > 33 or len(state.moves) > 40:
        raise ValueError("not a Briscola position: more than 33 stock cards or 40 moves")
    for s in range(2):
        _put_hand(t, s, state.hands[s])
        t.points[s] = state.points[s]
        t.tricks[s] = state.tricks[s]
        for c in state.piles[s]:
            t.piles[s] |= (<uint64_t> 1) << <int> c
    t.drawn = 33 - len(stock)
    for k, c in enumerate(stock):
        t.stock[t.drawn + k] = c
    t.trump = state.trump
    t.trump_suit = state.trump_suit
    t.trump_holder = -1 if state.trump_holder is None else state.trump_holder
    t.leader = state.leader
    t.current = state.current
    t.lead = state.trick[0] if state.trick else -1
    t.last_winner = -1
    t.turn = len(state.moves)
    for k, (seat, c) in enumerate(state.moves):
        t.move_seat[k] = seat
        t.move_card[k] = c
        t.played[seat] |= (<uint64_t> 1) << <int> c
    t.done = bool(state.done)


cdef void _params(cv_brs_params *p, dict o) except *:
    memset(p, 0, sizeof(cv_brs_params))
    _tree_options(&p.search, o)
    p.epsilon = o["epsilon"]
    p.smart = o["rollout"] == "smart"
    p.win = o["win"]


cdef const double *_by_card(double[::1] values) except? NULL:
    if values is None:
        return NULL
    if values.shape[0] != 40:
        raise ValueError(f"expected 40 values (one a card), got {values.shape[0]}")
    return &values[0]


def search(state, dict options, double[::1] bias=None, double[::1] weights=None, uint64_t seed=0,
           double seconds=0.0, mt=None, double[::1] means=None):
    """The ISMCTS move of the seat to play in ``state`` (a BriscolaState) and the root visits
    by card (a list of 40).  ``options``: iterations, c, expand, reward, scale, depth, root,
    epsilon, rollout, win; ``bias``/``weights``: None or 40 floats by card.  ``mt``: None (the
    fast generator from ``seed``) or ``random.Random.getstate()[1]`` (625 ints: Python's
    numbers, those the Python search would draw).  ``means``: None, or 40 doubles that receive
    each root card's mean reward (0 where not visited).  The move is None when ``seconds`` (> 0)
    ran out first."""
    cdef cv_briscola t
    cdef cv_brs_params p
    cdef int64_t visits[40]
    cdef uint32_t words[625]
    cdef int move
    _load_state(&t, state)
    cdef const uint32_t *py_words = _mt_words(mt, words)
    if t.done or t.hand_len[t.current] < 2:
        raise ValueError("the search needs a position with a choice (two or more cards to play)")
    _params(&p, options)
    p.bias = _by_card(bias)
    p.weights = _by_card(weights)
    p.search.seed = seed
    p.search.mt = py_words
    p.search.seconds = seconds
    if means is not None:
        if means.shape[0] != 40:
            raise ValueError(f"means must hold 40 values (one a card), got {means.shape[0]}")
        p.means = &means[0]
    with nogil:
        move = cv_briscola_search(&t, &p, visits)
    return _answer(move, p.search.iterations, _BAD_ROOT), [visits[c] for c in range(40)]


def net_search(state, Network net, dict options, double[::1] weights=None, uint64_t seed=0,
               double seconds=0.0, double budget=0.0, double budget_wall=0.0):
    """The network-guided search's move (search:briscola, briscola_search.h) of the seat to play in
    ``state`` and the root visits by card.  ``options``: those of ``search`` (but expand; root: ucb
    for PUCT at the root, or halving) and c_puct, temp, lambda, value_scale, fpu; ``budget`` (> 0): the seconds of this thread's CPU
    time after which it plays its best move, or ``budget_wall`` seconds of wall-clock time if that
    comes first; ``seconds`` (> 0): the deadline past which the move is None."""
    cdef cv_briscola t
    cdef cv_brs_params p
    cdef int64_t visits[40]
    cdef int move
    if net.obs_size != CV_BR_OBS_SIZE or net.actions != 40 or net.prior_size not in (0, CV_BR_PRIOR_SIZE):
        raise ValueError(f"not a Briscola network: {net.obs_size} observations, {net.prior_size} prior values and "
                         f"{net.actions} actions (Briscola's: {CV_BR_OBS_SIZE}, {CV_BR_PRIOR_SIZE} and 40)")
    _load_state(&t, state)
    if t.done or t.hand_len[t.current] < 2:
        raise ValueError("the search needs a position with a choice (two or more cards to play)")
    _params(&p, dict(options, expand="greedy"))
    _puct_options(&p.search, options, budget, budget_wall)
    p.net, p.temp, p.value_scale = &net.m, options["temp"], options["value_scale"]
    p.weights = _by_card(weights)
    p.search.seed = seed
    p.search.seconds = seconds
    with nogil:
        move = cv_briscola_search(&t, &p, visits)
    return _answer(move, p.search.iterations, _BAD_ROOT), [visits[c] for c in range(40)]


cdef str _BAD_ROOT = "the search's root has not the seat's cards as its moves"


def rollout_value(state, dict options, uint64_t seed):
    """The search's rollout (options: depth, epsilon, rollout, win) then evaluation of ``state``."""
    cdef cv_briscola t
    cdef cv_brs_params p
    _load_state(&t, state)
    options = {"iterations": 1, "c": 0.0, "expand": "greedy", "reward": "points", "scale": 1.0,
               "root": "ucb", **options}
    _params(&p, options)
    return cv_briscola_rollout_value(&t, &p, seed)


def hidden_counts(state, double[::1] weights=None, uint64_t seed=0, Py_ssize_t draws=1000):
    """How often each card (40 counts) lands in the other seat's hand over ``draws`` of the
    search's determinizations of ``state`` (``weights``: None, uniform, or 40 hold weights)."""
    cdef cv_briscola base, world
    cdef uint64_t rng = seed
    cdef const double *w = _by_card(weights)
    cdef long counts[40]
    _load_state(&base, state)
    cdef int other = 1 - base.current
    memset(counts, 0, sizeof(counts))
    for _ in range(draws):
        cv_briscola_determinize(&base, w, &world, &rng)
        for k in range(world.hand_len[other]):
            counts[world.hands[other][k]] += 1
    return [counts[c] for c in range(40)]


def solve(state, double bonus=0.0):
    """endgame.solve_state of ``state`` (at most one card in the stock), computed by the core."""
    cdef cv_briscola t
    _load_state(&t, state)
    if 33 - t.drawn > 1 and not t.done:
        raise ValueError("the exact solve needs at most one card in the stock")
    return cv_briscola_solve(&t, bonus)
