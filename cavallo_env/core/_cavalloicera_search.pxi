# Cavalloìcera's ISMCTS decision in C (cavalloicera_search.h), included by _cavalloicera.pyx: a
# Python CavalloiceraState is copied into one cv_cavalloicera, the search runs without the GIL,
# and the move (its index in legal_moves()) and the root visits come back.
# cavallo_env/cavalloicera/search.py (core_search) calls it.

from libc.stdint cimport uint16_t
from libc.string cimport memset


cdef extern from "cavalloicera_search.h":
    ctypedef struct cv_cvs_params:
        cv_search_params search
        int random_rollout
        double epsilon, hand_p
        const uint16_t *missing
        double infer
        const cv_mlp *net
        double temp, value_scale

    int cv_cavalloicera_count_moves(const cv_cavalloicera *t)
    int cv_cavalloicera_search(const cv_cavalloicera *base, const cv_cvs_params *p, int n_root,
                               int64_t *visits) nogil
    double cv_cavalloicera_rollout_value(const cv_cavalloicera *state, const cv_cvs_params *p, uint64_t seed)
    double cv_cavalloicera_static_eval(const cv_cavalloicera *t, double hand_p)
    void cv_cavalloicera_determinizations(const cv_cavalloicera *base, const cv_cvs_params *p, int n,
                                          uint64_t *hands)
    void cv_cavalloicera_prepare(cv_cavalloicera *t)
    int cv_cavalloicera_net_eval(const cv_cavalloicera *t, const cv_cvs_params *p, int n, double *probs,
                                 double *value) nogil


cdef extern from "cavalloicera_bots.h":
    int cv_cavalloicera_move_scores(const cv_cavalloicera *t, double *out, int n, double seconds) nogil


cdef uint64_t _mask(object cards, str what, uint64_t *seen) except? 0:
    """The cards (ids) as a mask; ValueError for an id off the deck or a card met twice."""
    cdef uint64_t bits = 0, bit
    for c in cards:
        if not 0 <= c < 52:
            raise ValueError(f"not a Cavalloìcera position: card id {c!r} in {what} is not in 0..51")
        bit = (<uint64_t> 1) << <int> c
        if seen[0] & bit:
            raise ValueError(f"not a Cavalloìcera position: card {c} in {what} is met twice")
        seen[0] |= bit
        bits |= bit
    return bits


cdef void _load_state(cv_cavalloicera *t, object state) except *:
    """A CavalloiceraState (its attributes) as one cv_cavalloicera."""
    cdef uint64_t seen = 0, moved = 0
    memset(t, 0, sizeof(cv_cavalloicera))
    moves = state.moves
    if len(moves) > 48 or state.turn != len(moves) or any(len(h) > 12 for h in state.hands):
        raise ValueError("not a Cavalloìcera position: more than 48 moves, a turn that is not the moves' "
                         "count, or a hand of more than 12 cards")
    for s in range(4):
        t.hands[s] = _mask(state.hands[s], f"the hand of seat {s}", &seen)
    t.table = _mask(state.table, "the table", &seen)
    for team in range(2):
        t.piles[team] = _mask(state.piles[team], f"the pile of team {team}", &seen)
        for k in range(4):
            t.bonuses[team][k] = state.bonuses[team][k]
    t.unclaimed = _mask(state.unclaimed, "the unclaimed cards", &seen)
    for k, (seat, card, capture) in enumerate(moves):
        t.move_seat[k] = seat
        t.move_card[k] = card
        t.move_capture[k] = _mask(capture, f"move {k}", &moved)
    t.last_capturer = -1 if state.last_capturer is None else state.last_capturer
    t.prev_placed = -1 if state.prev_placed is None else state.prev_placed
    t.dealer = state.dealer
    t.current = state.current
    t.turn = state.turn
    t.done = bool(state.done)
    cv_cavalloicera_prepare(t)


cdef void _params(cv_cvs_params *p, dict o) except *:
    memset(p, 0, sizeof(cv_cvs_params))
    if not 1 <= o["iterations"] <= 10_000_000 or not 0 <= o["depth"] <= 48:
        raise ValueError(f"iterations must be in 1..10000000 and depth in 0..48, got {o['iterations']!r}, "
                         f"{o['depth']!r}")
    _tree_options(&p.search, o)
    p.random_rollout = ("greedy", "random").index(o["rollout"])
    p.epsilon = o["epsilon"]
    p.hand_p = o["hand"]
    p.infer = o["infer"]


cdef const uint16_t *_missing(object missing, uint16_t *ranks) except? NULL:
    """The ranks each seat likely lacks (4 masks of 13 bits, by seat), or NULL for None."""
    if missing is None:
        return NULL
    if len(missing) != 4 or any(not 0 <= m < (1 << 13) for m in missing):
        raise ValueError(f"missing must be 4 rank masks (ints in 0..8191), got {missing!r}")
    for s in range(4):
        ranks[s] = missing[s]
    return ranks


def search(state, dict options, double[::1] bias=None, missing=None, uint64_t seed=0, double seconds=0.0,
           mt=None, double[::1] means=None):
    """The ISMCTS move of the seat to play in ``state`` (a CavalloiceraState), as its index in
    ``state.legal_moves()``, and the root visits of every legal move (a list in that order).
    ``options``: iterations, c, expand, reward, scale, depth, root, rollout, epsilon, hand, infer;
    ``bias``: None or one float per legal move; ``missing``: None (uniform deals) or 4 rank masks
    by seat (bit r: the seat likely lacks rank r).  ``mt``: None (the fast generator from ``seed``)
    or ``random.Random.getstate()[1]`` (Python's numbers, those the Python search would draw).
    ``means``: None, or one double a legal move that receives its mean reward at the root (0 where
    not visited).  The move is None when ``seconds`` (> 0) ran out first."""
    cdef cv_cavalloicera t
    cdef cv_cvs_params p
    cdef uint32_t words[625]
    cdef uint16_t ranks[4]
    cdef int move, n
    _load_state(&t, state)
    n = cv_cavalloicera_count_moves(&t)
    if n < 2:
        raise ValueError("the search needs a position with a choice (two or more legal moves)")
    if bias is not None and bias.shape[0] != n:
        raise ValueError(f"bias has {bias.shape[0]} values for {n} legal moves")
    if means is not None and means.shape[0] != n:
        raise ValueError(f"means has {means.shape[0]} values for {n} legal moves")
    _params(&p, options)
    p.search.bias = &bias[0] if bias is not None else NULL
    p.missing = _missing(missing, ranks)
    p.search.seed = seed
    p.search.mt = _mt_words(mt, words)
    p.search.seconds = seconds
    p.search.means = &means[0] if means is not None else NULL
    visits = np.zeros(n, np.int64)
    cdef int64_t[::1] v = visits
    with nogil:
        move = cv_cavalloicera_search(&t, &p, n, &v[0])
    return _answer(move, p.search.iterations, "the core lists other legal moves than the position's"), \
        visits.tolist()


cdef void _check_network(Network net) except *:
    if net.obs_size != CV_CV_OBS_SIZE or net.actions != CV_CV_ACTIONS or net.prior_size not in (0, CV_CV_PRIOR_SIZE):
        raise ValueError(f"not a Cavalloìcera network: {net.obs_size} observations, {net.prior_size} prior values "
                         f"and {net.actions} actions (Cavalloìcera's: {CV_CV_OBS_SIZE}, {CV_CV_PRIOR_SIZE} and "
                         f"{CV_CV_ACTIONS})")


def net_eval(state, Network net, double temp=1.0, double value_scale=1.0):
    """What the network-guided search's net hook gives for the seat to play in ``state``: the
    policy over ``state.legal_moves()`` (a list in that order; the sets of one capturing card share
    its capture action's probability equally) and the value as team 0's expected final
    difference (the value head times ``value_scale``)."""
    cdef cv_cavalloicera t
    cdef cv_cvs_params p
    cdef double value = 0.0
    cdef int n
    _check_network(net)
    if not temp > 0:
        raise ValueError(f"temp must be > 0, got {temp!r}")
    _load_state(&t, state)
    n = cv_cavalloicera_count_moves(&t)
    if n < 1:
        raise ValueError("the network's policy needs a position with a move to play")
    memset(&p, 0, sizeof(cv_cvs_params))
    p.net, p.temp, p.value_scale = &net.m, temp, value_scale
    probs = np.zeros(n, np.float64)
    cdef double[::1] out = probs
    if cv_cavalloicera_net_eval(&t, &p, n, &out[0], &value):
        raise MemoryError(f"no memory for the prior of {n} moves")
    return probs.tolist(), value


def net_search(state, Network net, dict options, missing=None, uint64_t seed=0, double seconds=0.0,
               double budget=0.0, double budget_wall=0.0):
    """The network-guided search's move (search:cavalloicera; ismcts_tree.h with params.puct) of the
    seat to play in ``state``: its index in ``state.legal_moves()`` and the root visits of every
    legal move.  ``options``: those of ``search`` (but expand and c) and c_puct, temp, lambda,
    value_scale, fpu, max_nodes (the tree's node cap; 0: the tree's default); ``missing``: as in
    ``search``; ``budget`` (> 0): the seconds of this thread's CPU time after which it plays its
    best move so far, or ``budget_wall`` seconds of wall-clock time if that comes first;
    ``seconds`` (> 0): the deadline past which the move is None."""
    cdef cv_cavalloicera t
    cdef cv_cvs_params p
    cdef uint16_t ranks[4]
    cdef int move, n
    _check_network(net)
    _load_state(&t, state)
    n = cv_cavalloicera_count_moves(&t)
    if n < 2:
        raise ValueError("the search needs a position with a choice (two or more legal moves)")
    _params(&p, dict(options, expand="greedy", c=0.0))
    _puct_options(&p.search, options, budget, budget_wall)
    p.net, p.temp, p.value_scale = &net.m, options["temp"], options["value_scale"]
    p.missing = _missing(missing, ranks)
    p.search.seed = seed
    p.search.seconds = seconds
    visits = np.zeros(n, np.int64)
    cdef int64_t[::1] v = visits
    with nogil:
        move = cv_cavalloicera_search(&t, &p, n, &v[0])
    return _answer(move, p.search.iterations, "the core lists other legal moves than the position's"), \
        visits.tolist()


def rollout_value(state, dict options, uint64_t seed=0, mt=None):
    """The search's rollout (options: depth, rollout, epsilon, hand) then evaluation of ``state``,
    on the fast generator from ``seed`` or on Python's numbers (``mt``, as in ``search``)."""
    cdef cv_cavalloicera t
    cdef cv_cvs_params p
    cdef uint32_t words[625]
    _load_state(&t, state)
    _params(&p, {"iterations": 1, "c": 0.0, "expand": "greedy", "reward": "points", "scale": 1.0,
                 "root": "ucb", "infer": 0.0, **options})
    p.search.mt = _mt_words(mt, words)
    return cv_cavalloicera_rollout_value(&t, &p, seed)


def static_eval(state, double hand_p=0.5):
    """search.static_eval(state, 1.5, hand_p), computed by the core."""
    cdef cv_cavalloicera t
    _load_state(&t, state)
    return cv_cavalloicera_static_eval(&t, hand_p)


def determinizations(state, Py_ssize_t draws, missing=None, double infer=0.0, uint64_t seed=0, mt=None):
    """The hands (4 lists of ids each) of the search's first ``draws`` determinizations of
    ``state`` for the seat to play (``missing``, ``mt``: as in ``search``)."""
    cdef cv_cavalloicera t
    cdef cv_cvs_params p
    cdef uint32_t words[625]
    cdef uint16_t ranks[4]
    if not 0 <= draws <= 100_000:
        raise ValueError(f"draws must be in 0..100000, got {draws}")
    _load_state(&t, state)
    memset(&p, 0, sizeof(cv_cvs_params))
    p.missing = _missing(missing, ranks)
    p.infer = infer
    p.search.seed = seed
    p.search.mt = _mt_words(mt, words)
    hands = np.zeros((max(draws, 0), 4), np.uint64)
    cdef uint64_t[:, ::1] h = hands
    if draws > 0:
        cv_cavalloicera_determinizations(&t, &p, <int> draws, &h[0, 0])
    return [[_ids(h[i, s]) for s in range(4)] for i in range(draws)]


def move_scores(state, double seconds=0.0):
    """HeuristicBot.move_scores of the seat to play in ``state`` (its one-ply scores, no endgame), one
    float per move of ``state.legal_moves()``, in that order, computed by the core; None when
    ``seconds`` (> 0) ran out first."""
    cdef cv_cavalloicera t
    cdef int err, n
    _load_state(&t, state)
    n = cv_cavalloicera_count_moves(&t)
    scores = np.zeros(max(n, 1), np.float64)
    cdef double[::1] out = scores
    if not n:
        return []
    with nogil:
        err = cv_cavalloicera_move_scores(&t, &out[0], n, seconds)
    if err == -2:
        return None
    if err:
        raise MemoryError(f"no memory for the scores of {n} moves")
    return scores[:n].tolist()
