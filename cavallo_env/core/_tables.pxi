# What the games' bindings share (included by each _<game>.pyx): Python's random in C,
# and the checks of an array's rows against the number of tables.

cdef extern from "pyrandom.h":
    ctypedef struct cv_pyrandom:
        pass


cdef void _rows(Py_ssize_t got, Py_ssize_t n, str what) except *:
    if got != n:
        raise ValueError(f"{what} has {got} rows for {n} tables")


cdef const uint8_t *_where(const uint8_t[::1] where, Py_ssize_t n) except? NULL:
    cdef const uint8_t *w = NULL
    if where is not None:
        _rows(where.shape[0], n, "where")
        w = &where[0]
    return w
