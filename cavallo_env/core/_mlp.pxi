# The policy network's forward pass in C (mlp.h), included by a game's binding: ``Network``, the
# weights of one PolicyNet copied into C memory (checked and loaded in Python by
# cavallo_env/bots/search.py, load_network), and its forward pass over numpy rows.

from libc.stdlib cimport malloc, free
from libc.string cimport memset


cdef extern from "mlp.h":
    int CV_MLP_MAX_HIDDEN
    int CV_MLP_MAX_WIDTH
    ctypedef struct cv_mlp:
        int obs_size, prior_size, actions, hidden, activation
        int width[9]
        const float *w[8]
        const float *b[8]
        const float *policy_w
        const float *policy_b
        const float *value_w
        float value_b
        float gain[2]

    float cv_mlp_forward(const cv_mlp *m, const float *obs, const float *prior, float *logits) nogil


_ACTIVATIONS = ("relu", "tanh", "gelu")


cdef float *_copy(float *at, object array, bint transpose):
    """``array`` (float32, 1 or 2 dimensions; a 2-D one transposed when asked) written at ``at``;
    returns the next free place."""
    cdef const float[::1] flat = np.ascontiguousarray(array.T if transpose else array, dtype=np.float32).ravel()
    cdef Py_ssize_t k
    for k in range(flat.shape[0]):
        at[k] = flat[k]
    return at + flat.shape[0]


cdef class Network:
    """One policy network in C memory.  ``layers``: the hidden layers' ``(weight [out, in], bias
    [out])`` as torch's nn.Linear stores them; ``policy`` and ``value`` the heads' the same way;
    ``gains``: None or the two prior gains; sizes as PolicyNet's (``obs_size`` + ``prior_size``
    inputs, ``prior_size`` 0 for a model that reads no prior)."""

    cdef cv_mlp m
    cdef float *mem
    cdef readonly int obs_size, prior_size, actions

    def __cinit__(self):
        self.mem = NULL

    def __init__(self, list layers, tuple policy, tuple value, gains, str activation, int obs_size,
                 int prior_size):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(_ACTIVATIONS)}, got {activation!r}")
        if not 1 <= len(layers) <= CV_MLP_MAX_HIDDEN:
            raise ValueError(f"the network must have 1..{CV_MLP_MAX_HIDDEN} hidden layers, got {len(layers)}")
        if (gains is None) != (prior_size == 0) or (gains is not None and len(gains) != 2):
            raise ValueError("a model that reads the prior has two prior gains, and one that does not has none")
        widths = [obs_size + prior_size] + [int(np.shape(w)[0]) for w, _ in layers]
        actions = int(np.shape(policy[0])[0])
        top = widths[len(layers)]
        shapes = [((widths[k + 1], widths[k]), (widths[k + 1],)) for k in range(len(layers))]
        shapes += [((actions, top), (actions,)), ((1, top), (1,))]
        for (w, b), (ws, bs) in zip(layers + [policy, value], shapes):
            if tuple(np.shape(w)) != ws or tuple(np.shape(b)) != bs:
                raise ValueError(f"a layer of shape {np.shape(w)} + {np.shape(b)} where {ws} + {bs} was expected")
        if max(widths + [actions]) > CV_MLP_MAX_WIDTH:
            raise ValueError(f"a layer wider than {CV_MLP_MAX_WIDTH}")
        total = sum(int(np.size(w)) + int(np.size(b)) for w, b in layers + [policy, value])
        self.mem = <float *> malloc(sizeof(float) * total)
        if self.mem == NULL:
            raise MemoryError(f"no memory for a network of {total} weights")
        memset(&self.m, 0, sizeof(cv_mlp))
        cdef float *at = self.mem
        for k, (w, b) in enumerate(layers):
            self.m.width[k] = widths[k]
            self.m.w[k] = at
            at = _copy(at, w, True)
            self.m.b[k] = at
            at = _copy(at, b, False)
        self.m.width[len(layers)] = top
        self.m.policy_w = at
        at = _copy(at, policy[0], True)
        self.m.policy_b = at
        at = _copy(at, policy[1], False)
        self.m.value_w = at
        at = _copy(at, value[0], False)
        self.m.value_b = float(np.asarray(value[1], dtype=np.float32)[0])
        if gains is not None:
            self.m.gain[0], self.m.gain[1] = float(gains[0]), float(gains[1])
        self.m.obs_size, self.m.prior_size, self.m.actions = obs_size, prior_size, actions
        self.m.hidden, self.m.activation = len(layers), _ACTIVATIONS.index(activation)
        self.obs_size, self.prior_size, self.actions = obs_size, prior_size, actions

    def __dealloc__(self):
        free(self.mem)

    def forward(self, obs, mask=None, prior=None):
        """``(logits [N, actions], value [N])`` of rows ``obs`` [N, obs_size] (and ``prior``
        [N, prior_size] for a model that reads it), as the exported model: illegal actions
        (``mask`` [N, actions], zero = illegal) at -1e9."""
        cdef const float[:, ::1] o = np.ascontiguousarray(obs, dtype=np.float32)
        cdef const float[:, ::1] p
        if o.shape[1] != self.obs_size:
            raise ValueError(f"obs has {o.shape[1]} columns, the network takes {self.obs_size}")
        if self.prior_size:
            if prior is None:
                raise ValueError("this network reads the heuristic prior: pass prior")
            p = np.ascontiguousarray(prior, dtype=np.float32)
            if p.shape[0] != o.shape[0] or p.shape[1] != self.prior_size:
                raise ValueError(f"prior must be [{o.shape[0]}, {self.prior_size}], got {tuple(np.shape(prior))}")
        logits = np.zeros((o.shape[0], self.actions), dtype=np.float32)
        value = np.zeros(o.shape[0], dtype=np.float32)
        cdef float[:, ::1] lg = logits
        cdef float[::1] v = value
        cdef Py_ssize_t i
        for i in range(o.shape[0]):
            v[i] = cv_mlp_forward(&self.m, &o[i, 0], &p[i, 0] if self.prior_size else NULL, &lg[i, 0])
        if mask is not None:
            logits[np.asarray(mask) == 0] = np.float32(-1e9)
        return logits, value
