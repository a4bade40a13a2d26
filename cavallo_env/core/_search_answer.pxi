# What a search of the generic tree (ismcts_tree.h) answered, read the same way by every game's
# binding: included by _briscola.pyx, _cavalloicera.pyx and _scopa.pyx before their search.

cdef extern from "ismcts_tree.h":
    int CV_SEARCH_NO_MEMORY, CV_SEARCH_BAD_ROOT


cdef object _answer(int move, int64_t iterations, str bad_root):
    """The move the search answered (a card, or an index into the legal moves), or None when its
    deadline passed first; MemoryError without memory, ValueError(bad_root) when the core's root
    has not the position's moves."""
    if move == CV_SEARCH_NO_MEMORY:
        raise MemoryError(f"no memory for a search of {iterations} iterations")
    if move == CV_SEARCH_BAD_ROOT:
        raise ValueError(bad_root)
    return None if move < 0 else move
