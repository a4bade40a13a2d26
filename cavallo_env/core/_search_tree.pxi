# The generic tree's options and answer (ismcts_tree.h), read the same way by every game's binding:
# included by _briscola.pyx, _cavalloicera.pyx and _scopa.pyx before their search.

from libc.stdint cimport uint32_t


cdef extern from "ismcts_tree.h":
    int CV_SEARCH_NO_MEMORY, CV_SEARCH_BAD_ROOT

    ctypedef struct cv_search_params:
        int64_t iterations
        double c
        int expand_greedy, reward
        double scale
        int depth, halving
        const double *bias
        uint64_t seed
        const uint32_t *mt
        double seconds
        int puct
        double c_puct, fpu
        int fpu_parent
        double lambda_ "lambda", budget, budget_wall
        int64_t max_nodes
        double *means


cdef void _tree_options(cv_search_params *s, dict o) except *:
    """``ismcts``'s options of the tree (iterations, c, expand, reward, scale, depth, root) into s."""
    s.iterations = o["iterations"]
    s.c = o["c"]
    s.expand_greedy = o["expand"] == "greedy"
    s.reward = ("points", "win", "mixed").index(o["reward"])
    s.scale = o["scale"]
    s.depth = o["depth"]
    s.halving = o["root"] == "halving"


cdef void _puct_options(cv_search_params *s, dict o, double budget, double budget_wall) except *:
    """The network-guided search's options of the tree (c_puct, fpu, fpu_base: zero when absent, or
    parent; lambda, max_nodes: 0 or absent for the tree's default) and its budget into s, which then runs
    PUCT; ``temp`` checked (> 0)."""
    s.puct = 1
    s.c_puct, s.fpu, s.lambda_ = o["c_puct"], o["fpu"], o["lambda"]
    s.fpu_parent = o.get("fpu_base", "zero") == "parent"
    s.max_nodes = o.get("max_nodes", 0)
    if not o["temp"] > 0 or s.max_nodes < 0:
        raise ValueError(f"temp must be > 0 and max_nodes >= 0 (0: the tree's default), got {o['temp']!r} "
                         f"and {s.max_nodes!r}")
    s.budget, s.budget_wall = budget, budget_wall


cdef const uint32_t *_mt_words(object mt, uint32_t *words) except? NULL:
    """Python's random state (``random.Random.getstate()[1]``: 625 ints) as words, the search then
    drawing the numbers the Python search draws; NULL for None (the fast generator)."""
    if mt is None:
        return NULL
    if len(mt) != 625:
        raise ValueError(f"mt must be random.Random.getstate()[1] (625 ints), got {len(mt)} values")
    for k in range(625):
        words[k] = mt[k]
    return words


cdef object _answer(int move, int64_t iterations, str bad_root):
    """The move the search answered (a card, or an index into the legal moves), or None when its
    deadline passed first; MemoryError without memory, ValueError(bad_root) when the core's root
    has not the position's moves."""
    if move == CV_SEARCH_NO_MEMORY:
        raise MemoryError(f"no memory for a search of {iterations} iterations")
    if move == CV_SEARCH_BAD_ROOT:
        raise ValueError(bad_root)
    return None if move < 0 else move
