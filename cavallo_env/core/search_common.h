/* What the games' ISMCTS searches in C share (ismcts_tree.c, briscola_search.c; the pieces of
 * cavallo_env/bots/ismcts.py that do not depend on a game): the search's
 * random numbers (the fast generator, or Python's random.Random drawn as the
 * Python search draws it), a world's own generator for sequential halving's
 * common random numbers, the deadline and sequential halving's order and
 * shares (the tree is ismcts_tree.c's).  Header only: each search includes it. */
#ifndef CAVALLO_SEARCH_COMMON_H
#define CAVALLO_SEARCH_COMMON_H

#ifndef _POSIX_C_SOURCE /* clock_gettime under -std=c11 (Python.h, included first by a binding, asks for more) */
#define _POSIX_C_SOURCE 199309L
#endif

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pyrandom.h"

enum { CV_SEARCH_POINTS = 0, CV_SEARCH_WIN = 1, CV_SEARCH_MIXED = 2 };

/* -- random numbers --------------------------------------------------------------- */

/* the fast generator, or Python's random.Random (py != NULL) drawn as the Python search draws it
 * (random(), _randbelow for choice and shuffle), number for number */
typedef struct {
    uint64_t fast;
    cv_pyrandom *py;
} cv_search_rng;

static inline double cv_search_random(cv_search_rng *r) { /* random.random() */
    return r->py ? cv_pyrandom_random(r->py) : (double)(cv_splitmix64(&r->fast) >> 11) * 0x1.0p-53;
}

static inline int cv_search_below(cv_search_rng *r, int n) { /* random.Random._randbelow(n) with py */
    return (int)(r->py ? cv_pyrandom_below(r->py, (uint32_t)n) : cv_fast_below(&r->fast, (uint32_t)n));
}

static inline void cv_search_shuffle(int8_t *a, int n, cv_search_rng *r) { /* random.Random.shuffle */
    for (int i = n - 1; i > 0; i--) {
        int j = cv_search_below(r, i + 1);
        int8_t x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

/* hash(x) of a float 0 <= x < 1 (CPython's _Py_HashDouble), as random.Random(x) seeds with it */
static inline uint64_t cv_py_hash_unit(double x) {
    const uint64_t mod = (1ULL << 61) - 1;
    int e;
    double m = frexp(x, &e);
    uint64_t h = 0;
    while (m) {
        h = ((h << 28) & mod) | h >> (61 - 28);
        m *= 268435456.0;
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        h += y;
        if (h >= mod) h -= mod;
    }
    e = e >= 0 ? e % 61 : 61 - 1 - ((-1 - e) % 61);
    h = ((h << e) & mod) | h >> (61 - e);
    return h;
}

/* halving's world generator (Python: random.Random(rng.random()), the same stream below every move
 * of the world): returns the fast seed; with Python's numbers, *seeded is that random.Random */
static inline uint64_t cv_search_world_seed(cv_search_rng *rng, cv_pyrandom *seeded) {
    if (!rng->py) return cv_splitmix64(&rng->fast);
    uint64_t seed = cv_py_hash_unit(cv_pyrandom_random(rng->py));
    cv_pyrandom_seed(seeded, seed);
    cv_pyrandom_u32(seeded); /* the first draw twists the state ... */
    seeded->index = 0;       /* ... and this puts its word back: the state right after */
    return seed;
}

/* a move's generator in a world: a copy of the world's (local: its storage for Python's) */
static inline cv_search_rng cv_search_world_rng(uint64_t seed, const cv_search_rng *rng, const cv_pyrandom *seeded,
                                                cv_pyrandom *local) {
    cv_search_rng r = {seed, NULL};
    if (rng->py) {
        *local = *seeded;
        r.py = local;
    }
    return r;
}

/* random.Random.setstate(words): the 624 words and the index */
static inline void cv_search_setstate(cv_pyrandom *py, const uint32_t *words) {
    memcpy(py->state, words, sizeof py->state);
    py->index = (int)words[CV_MT_N];
}

/* -- the deadline ----------------------------------------------------------------- */

/* a deadline on a clock: CLOCK_MONOTONIC (wall time), or CLOCK_THREAD_CPUTIME_ID (the CPU time of
 * the thread that searches: the same search on a busy machine as on an idle one) */
typedef struct {
    struct timespec stop;
    clockid_t clock;
    int bounded, late;
} cv_deadline;

static inline void cv_deadline_start_on(cv_deadline *d, clockid_t clock, double seconds) {
    d->bounded = seconds > 0;
    d->late = 0;
    d->clock = clock;
    if (!d->bounded) return;
    clock_gettime(clock, &d->stop);
    double whole = floor(seconds);
    d->stop.tv_sec += (time_t)whole;
    d->stop.tv_nsec += (long)((seconds - whole) * 1e9);
    if (d->stop.tv_nsec >= 1000000000L) d->stop.tv_sec++, d->stop.tv_nsec -= 1000000000L;
}

static inline void cv_deadline_start(cv_deadline *d, double seconds) {
    cv_deadline_start_on(d, CLOCK_MONOTONIC, seconds);
}

static inline int cv_deadline_passed(cv_deadline *d) {
    if (!d->bounded) return 0;
    struct timespec now;
    clock_gettime(d->clock, &now);
    if (now.tv_sec > d->stop.tv_sec || (now.tv_sec == d->stop.tv_sec && now.tv_nsec > d->stop.tv_nsec)) d->late = 1;
    return d->late;
}

/* -- sequential halving's order ------------------------------------------------------ */

/* the root moves still in (alive[n]) sorted stably by key(ctx, move), descending: Python's
 * sorted(..., reverse=True), as _Search.halving orders them by the prior's bias, then by mean */
typedef double (*cv_alive_key)(const void *ctx, int move);

static inline void cv_sort_alive(int *alive, int n, cv_alive_key key, const void *ctx) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && key(ctx, alive[j]) > key(ctx, alive[j - 1]); j--) {
            int x = alive[j];
            alive[j] = alive[j - 1];
            alive[j - 1] = x;
        }
}

static inline double cv_bias_key(const void *bias, int move) { return ((const double *)bias)[move]; }

/* sequential halving's rounds for n moves: ceil(log2(n)), at least 1 */
static inline int cv_halving_rounds(int n) {
    int rounds = 1;
    while ((1 << rounds) < n) rounds++;
    return rounds;
}

/* the iterations each move still in plays in round r of halving (at least one) */
static inline int64_t cv_halving_share(int64_t budget, int rounds, int r, int n) {
    int64_t per_move = (budget / (rounds - r)) / n;
    return per_move < 1 ? 1 : per_move;
}

#endif
