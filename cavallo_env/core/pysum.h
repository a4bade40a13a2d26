/* Python's sum() of floats, as the interpreter that runs the extension adds
 * them: one by one (Python <= 3.11), or with Neumaier's compensation (Python
 * >= 3.12, which sum() uses for floats), so the bots' scores are the Python
 * bots' to the bit on either.  An extension is built for one Python version
 * (its ABI tag), so the mode is fixed when it is compiled. */
#ifndef CAVALLO_PYSUM_H
#define CAVALLO_PYSUM_H

#include <math.h>
#include <patchlevel.h> /* PY_VERSION_HEX of the Python this extension is built for */

#define CV_PYSUM_COMPENSATED (PY_VERSION_HEX >= 0x030C0000)

typedef struct {
    double sum, c;
} cv_pysum;

static inline void cv_pysum_add(cv_pysum *s, double x) {
    if (!CV_PYSUM_COMPENSATED) {
        s->sum += x;
        return;
    }
    double t = s->sum + x; /* CPython's builtin_sum_impl: Neumaier's improved Kahan-Babuska */
    if (fabs(s->sum) >= fabs(x)) s->c += (s->sum - t) + x;
    else s->c += (x - t) + s->sum;
    s->sum = t;
}

static inline double cv_pysum_result(const cv_pysum *s) {
    return (s->c != 0.0 && isfinite(s->c)) ? s->sum + s->c : s->sum;
}

#endif
