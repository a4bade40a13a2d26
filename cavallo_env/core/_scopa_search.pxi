# Scopa's ISMCTS decision in C (scopa_search.h), included by _scopa.pyx: a Python ScopaState's
# current deal is copied into one cv_scopa, the search runs without the GIL, and the move (its index
# among the legal moves) and the root visits come back.  cavallo_env/scopa/search.py
# (core_search) calls it.

from array import array

from libc.string cimport memset


cdef extern from "scopa_search.h":
    ctypedef struct cv_scs_params:
        cv_search_params search
        double epsilon, lookahead
        int modelled
        const int8_t *hidden
        int n_hidden, n_other, n_hands
        const int8_t *hands
        const double *cum
        const double *kinds
        double model[3]
        const cv_mlp *net
        double temp, value_scale

    ctypedef struct cv_scs_play:
        int8_t card
        uint64_t capture, table
        uint64_t piles[2]
        uint64_t kept
        int8_t last_capturer
        uint8_t stock, opp_hand, plays_left

    void cv_scopa_player_model(const cv_scs_play *past, int n_past, int seat, int money, double *model) nogil
    int cv_scopa_weigh(const cv_scs_play *plays, int n_plays, int seat, int money, const int8_t *hands,
                       int n_hands, int n_other, const double *model, double infer, double *cum,
                       double *kinds) nogil
    int cv_scopa_search(const cv_scopa *base, const cv_scs_params *p, int64_t *visits) nogil
    double cv_scopa_net_eval(const cv_scopa *t, const cv_scs_params *p, double *probs) nogil
    double cv_scopa_exact(const cv_scopa *t) nogil
    double cv_scopa_rollout_value(const cv_scopa *state, const cv_scs_params *p, int other, int kind,
                                  uint64_t seed) nogil
    int cv_scopa_determinize(const cv_scopa *base, const cv_scs_params *p, cv_scopa *out, uint64_t *seed) nogil
    void cv_scopa_search_load(cv_scopa *t) nogil


cdef uint64_t _mask(object cards, int most, str what) except? 0:
    if len(cards) > most:
        raise ValueError(f"not a Scopa position: {len(cards)} cards in {what}, at most {most}")
    cdef uint64_t bits = 0
    for c in cards:
        if not 0 <= c < 40:
            raise ValueError(f"not a Scopa position: card {c!r:.20} in {what}")
        bits |= (<uint64_t> 1) << <int> c
    return bits


cdef void _load_deal(cv_scopa *t, object state) except *:
    """The current deal of a ScopaState (not over) as one cv_scopa single deal."""
    memset(t, 0, sizeof(cv_scopa))
    deal = state.deal
    if state.done or deal.done:
        raise ValueError("the search needs a deal in play, not one that is over")
    if len(deal.initial_stock) != 30 or len(deal.moves) > 36 or not 0 <= deal.stock_pos <= 30:
        raise ValueError("not a Scopa position: a stock of 30 cards, at most 36 moves")
    for k, c in enumerate(deal.initial_stock):
        t.initial[10 + k] = c
    for s in range(2):
        t.hands[s] = _mask(deal.hands[s], 3, "a hand")
        t.piles[s] = _mask(deal.piles[s], 40, "a pile")
        t.scope[s] = deal.scope[s]
    t.table = _mask(deal.table, 40, "the table")
    t.dealer, t.stock_pos, t.turn = deal.dealer, deal.stock_pos, deal.turn
    t.last_capturer = -1 if deal.last_capturer is None else deal.last_capturer
    t.leftovers_to = -1
    for k, (seat, card, capture) in enumerate(deal.moves):
        t.move_seat[k], t.move_card[k], t.move_capture[k] = seat, card, _mask(capture, 40, "a capture")
    t.money, t.current, t.winner = state.money, deal.current, -1
    t.totals[0], t.totals[1] = state.totals  # a match's totals before this deal: the network reads them
    t.deck = 0 if state.money == 1 else 1
    cv_scopa_search_load(t)


cdef class _Deals:
    """The determinizations' data (cv_scs_params' hidden .. model), kept alive during a search."""

    cdef bytes hidden, hands
    cdef double[::1] cum, kinds
    cdef int n_other, n_hands
    cdef double model[3]

    def __init__(self, dict deals):
        self.hidden = bytes(deals["hidden"])
        self.n_other = deals["n_other"]
        hands = deals.get("hands") or []
        if not 0 <= self.n_other <= 3 or len(self.hidden) > 40 or self.n_other > len(self.hidden):
            raise ValueError("deals: n_other must be 0..3 and at most the hidden cards (40 at most)")
        self.n_hands = len(hands)
        self.hands = bytes([c for h in hands for c in h])
        if len(self.hands) != self.n_hands * self.n_other:
            raise ValueError(f"deals: every hand must hold n_other = {self.n_other} cards")
        self.cum = array_d(deals.get("cum") or [], self.n_hands, "cum")
        self.kinds = array_d([x for k in deals.get("kinds") or [] for x in k], 3 * self.n_hands, "kinds")
        for k in range(3):
            self.model[k] = deals["model"][k]

    cdef void put(self, cv_scs_params *p):
        p.hidden = <const int8_t *> <const char *> self.hidden
        p.n_hidden = len(self.hidden)
        p.n_other = self.n_other
        p.n_hands = self.n_hands
        p.hands = <const int8_t *> <const char *> self.hands
        p.cum = &self.cum[0] if self.n_hands else NULL
        p.kinds = &self.kinds[0] if self.n_hands else NULL
        for k in range(3):
            p.model[k] = self.model[k]


cdef object array_d(values, Py_ssize_t n, str what):
    out = array("d", values)
    if len(out) != n:
        raise ValueError(f"deals: {what} must hold {n} numbers, got {len(out)}")
    return out if n else array("d", [0.0])


cdef void _params(cv_scs_params *p, dict o) except *:
    memset(p, 0, sizeof(cv_scs_params))
    _tree_options(&p.search, o)
    p.epsilon = o["epsilon"]
    p.lookahead = o["lookahead"]
    p.modelled = bool(o["model"])


def search(state, dict options, dict deals, double[::1] bias=None, uint64_t seed=0, double seconds=0.0, mt=None,
           double[::1] means=None):
    """The ISMCTS move of the seat to play in ``state`` (a ScopaState; its current deal) as its index
    in ``state.legal_moves()``, and the root visits of those moves (a list).  ``options``: iterations,
    c, expand, reward, scale, depth, root, epsilon, lookahead, model; ``deals``: the determinizations
    (hidden, n_other, hands, cum, kinds, model: see scopa_search.h); ``bias``: None or one a legal
    move.  ``mt``: None (the fast generator from ``seed``) or ``random.Random.getstate()[1]`` (625
    ints: the Python search's numbers).  ``means``: None, or one double a legal move that receives
    its mean reward at the root (0 where not visited).  The move is None when ``seconds`` (> 0) ran
    out first."""
    cdef cv_scopa t
    cdef cv_scs_params p
    cdef uint32_t words[625]
    cdef int move
    _load_deal(&t, state)
    n = _legal_count(&t, state)
    if n < 2:
        raise ValueError("the search needs a position with a choice (two or more legal moves)")
    if bias is not None and bias.shape[0] != n:
        raise ValueError(f"bias must hold one value a legal move ({n}), got {bias.shape[0]}")
    if means is not None and means.shape[0] != n:
        raise ValueError(f"means must hold one value a legal move ({n}), got {means.shape[0]}")
    _params(&p, options)
    held = _Deals(deals)
    held.put(&p)
    p.search.bias = &bias[0] if bias is not None else NULL
    p.search.seed = seed
    p.search.mt = _mt_words(mt, words)
    p.search.seconds = seconds
    p.search.means = &means[0] if means is not None else NULL
    cdef int64_t[::1] counts = array("q", bytes(8 * n))
    with nogil:
        move = cv_scopa_search(&t, &p, &counts[0])
    return _answer(move, p.search.iterations, _BAD_ROOT), [int(x) for x in counts]


cdef str _BAD_ROOT = "the search's root has not the seat's legal moves as its moves"


cdef int _legal_count(const cv_scopa *t, object state) except -1:
    """How many legal moves the core finds in t, checked against ``state.legal_moves()`` (the
    searches write one value a move into arrays sized by the rules' count)."""
    n = len(state.legal_moves())
    cdef size_t room = <size_t> CV_SC_HAND * CV_SC_MAX_SETS
    cdef int8_t *cards = <int8_t *> calloc(room, sizeof(int8_t))
    cdef uint64_t *captures = <uint64_t *> calloc(room, sizeof(uint64_t))
    cdef int found = -1
    if cards != NULL and captures != NULL:
        found = cv_scopa_moves(t, cards, captures)
    free(cards)
    free(captures)
    if found < 0:
        raise MemoryError("no memory to list the legal moves")
    if found != n:
        raise ValueError(f"the core finds {found} legal moves where the rules find {n}: the position did not load")
    return n


cdef void _net(cv_scs_params *p, Network net, double temp, double value_scale) except *:
    if net.obs_size != CV_SC_OBS_SIZE or net.actions != 120 or net.prior_size not in (0, 240):
        raise ValueError(f"not a Scopa network: {net.obs_size} observations, {net.prior_size} prior values and "
                         f"{net.actions} actions (Scopa's: {CV_SC_OBS_SIZE}, 240 and 120)")
    if not temp > 0:
        raise ValueError(f"temp must be > 0, got {temp!r}")
    p.net = &net.m
    p.temp = temp
    p.value_scale = value_scale


def net_search(state, Network net, dict options, dict deals, uint64_t seed=0, double seconds=0.0,
               double budget=0.0, double budget_wall=0.0):
    """The network-guided search's move (search:scopa: PUCT over the tree of ``search``, guided by
    ``net``, see scopa_search.h) of the seat to play in ``state`` as its index in
    ``state.legal_moves()``, and the root visits of those moves.  ``options``: those of ``search``
    (but expand and c) and c_puct, temp, lambda, value_scale, fpu, max_nodes (0: the tree's
    default); ``deals`` as ``search``'s; ``budget`` (> 0): the seconds of this thread's CPU time
    after which it plays its best move so far, or ``budget_wall`` seconds of wall-clock time if
    that comes first; ``seconds`` (> 0): the deadline past which the move is None."""
    cdef cv_scopa t
    cdef cv_scs_params p
    cdef int move
    _load_deal(&t, state)
    n = _legal_count(&t, state)
    if n < 2:
        raise ValueError("the search needs a position with a choice (two or more legal moves)")
    _params(&p, dict(options, expand="greedy", c=0.0))
    _puct_options(&p.search, options, budget, budget_wall)
    _net(&p, net, options["temp"], options["value_scale"])
    held = _Deals(deals)
    held.put(&p)
    p.search.seed, p.search.seconds = seed, seconds
    cdef int64_t[::1] counts = array("q", bytes(8 * n))
    with nogil:
        move = cv_scopa_search(&t, &p, &counts[0])
    return _answer(move, p.search.iterations, _BAD_ROOT), [int(x) for x in counts]


def net_eval(state, Network net, double temp=1.0, double value_scale=1.0):
    """The network's policy over ``state.legal_moves()`` (a list, in their order: each move's chance
    as the policy plays it action by action) and its value as seat 0's point difference
    (``value_scale`` points a unit), for the seat to play in ``state``'s current deal."""
    cdef cv_scopa t
    cdef cv_scs_params p
    _load_deal(&t, state)
    memset(&p, 0, sizeof(cv_scs_params))
    _net(&p, net, temp, value_scale)
    n = _legal_count(&t, state)
    probs = array("d", bytes(8 * n))
    cdef double[::1] view = probs
    cdef double v = cv_scopa_net_eval(&t, &p, &view[0])
    if v != v:
        raise MemoryError("no memory for the legal moves")
    return list(probs), v


def exact_value(state):
    """The last round of ``state``'s deal (the stock empty) solved by minimax, both seats at their best:
    seat 0's final point difference, as search:scopa values a position there."""
    cdef cv_scopa t
    _load_deal(&t, state)
    if state.deal.stock_size:
        raise ValueError("the exact solve needs the deal's last round (the stock empty)")
    return cv_scopa_exact(&t)


def rollout_value(state, dict options, dict deals, int kind=2, uint64_t seed=0, mt=None):
    """The search's rollout (options: depth, epsilon, lookahead, model) then evaluation of ``state``
    (a full-information single deal), the other seat (``deals``' player: 1 - the root's seat to
    play, here the state's) of ``kind`` (0 heuristic, 1 greedy, 2 any move); Python's numbers
    with ``mt``."""
    cdef cv_scopa t
    cdef cv_scs_params p
    cdef uint32_t words[625]
    _load_deal(&t, state)
    options = {"iterations": 1, "c": 0.0, "expand": "greedy", "reward": "points", "scale": 1.0,
               "root": "ucb", **options}
    _params(&p, options)
    p.search.mt = _mt_words(mt, words)
    return cv_scopa_rollout_value(&t, &p, deals["other"], kind, seed)


def determinizations(state, dict deals, uint64_t seed=0, Py_ssize_t draws=1000, bint modelled=True):
    """``draws`` of the search's determinizations of ``state`` for its seat to play: each the other
    seat's hand (sorted ids), the rest of the stock (top first) and its kind of player."""
    cdef cv_scopa base, world
    cdef cv_scs_params p
    cdef uint64_t rng = seed
    _load_deal(&base, state)
    memset(&p, 0, sizeof(cv_scs_params))
    p.modelled = modelled
    held = _Deals(deals)
    held.put(&p)
    other = 1 - base.current
    out = []
    for _ in range(draws):
        kind = cv_scopa_determinize(&base, &p, &world, &rng)
        out.append((_ids(world.hands[other]), [world.initial[10 + k] for k in range(world.stock_pos, 30)], kind))
    return out


cdef void _plays(cv_scs_play *rows, object plays, int most, int seat, int money) except *:
    """search._Play objects as rows (at most ``most``)."""
    if len(plays) > most or not 0 <= seat <= 1 or not 0 <= money <= 1:
        raise ValueError(f"at most {most} plays; seat and money 0 or 1")
    for k, pl in enumerate(plays):
        memset(&rows[k], 0, sizeof(cv_scs_play))
        rows[k].card = pl.move[0]
        rows[k].capture = _mask(pl.move[1], 40, "a capture")
        rows[k].table = _mask(pl.table, 40, "the table")
        rows[k].piles[0] = _mask(pl.piles[0], 40, "a pile")
        rows[k].piles[1] = _mask(pl.piles[1], 40, "a pile")
        rows[k].kept = _mask(pl.kept, 3, "a round's later plays")
        rows[k].last_capturer = -1 if pl.last_capturer is None else pl.last_capturer
        rows[k].stock, rows[k].opp_hand, rows[k].plays_left = pl.stock, pl.opp_hand, pl.plays_left


def player_model(past, int seat, int money):
    """search.player_model of ``seat``'s ``past`` plays (search._Play, the rounds already over),
    computed by the core: a tuple of 3 floats."""
    cdef cv_scs_play rows[18]
    cdef double m[3]
    _plays(rows, past, 18, seat, money)
    cv_scopa_player_model(rows, len(past), seat, money, m)
    if m[0] != m[0]:
        raise MemoryError("no memory to weigh the plays")
    return (m[0], m[1], m[2])


def weigh(hands, plays, int seat, int money, model, double infer):
    """_Determinizer._weigh's weights, computed by the core: ``hands`` (lists of the same size),
    ``seat``'s ``plays`` since its hand was dealt (search._Play), ``model`` (3 floats), ``infer``.
    Returns ``(cum, kinds)``: the cumulative weights of the hands and, per hand, of the kinds."""
    cdef cv_scs_play rows[3]
    cdef double m[3]
    _plays(rows, plays, 3, seat, money)
    n_hands = len(hands)
    n_other = len(hands[0]) if n_hands else 0
    cards = bytes([c for h in hands for c in h])
    if len(cards) != n_hands * n_other or n_other > 3:
        raise ValueError("weigh: the hands must hold the same number of cards, at most 3")
    for k in range(3):
        m[k] = model[k]
    cum = array("d", bytes(8 * max(n_hands, 1)))
    kinds = array("d", bytes(24 * max(n_hands, 1)))
    cdef double[::1] c_view = cum, k_view = kinds
    cdef const char *hp = cards
    if cv_scopa_weigh(rows, len(plays), seat, money, <const int8_t *> hp, n_hands, n_other, m, infer,
                      &c_view[0], &k_view[0]) == -2:
        raise MemoryError("no memory to weigh the hands")
    return list(cum[:n_hands]), [tuple(kinds[3 * h:3 * h + 3]) for h in range(n_hands)]
