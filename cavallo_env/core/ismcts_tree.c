/* The ISMCTS decision in C for any game: see ismcts_tree.h.  Each function names
 * the Python it mirrors (cavallo_env/bots/ismcts.py: ISMCTSBot.search, _Search). */
#include "ismcts_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PATH 64 /* more than any deal's moves, and the root */

cv_rng cv_rng_start(const uint32_t *mt, uint64_t seed, cv_pyrandom *py) {
    cv_rng r = {seed, NULL};
    if (mt) {
        cv_search_setstate(py, mt);
        r.py = py;
    }
    return r;
}

int cv_moves_push(cv_moves *m, uint64_t code) {
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 64;
        uint64_t *codes = realloc(m->code, sizeof(uint64_t) * (size_t)cap);
        if (!codes) return -1;
        m->code = codes;
        m->cap = cap;
    }
    m->code[m->n++] = code;
    return 0;
}

typedef struct {
    int64_t visits, avail;
    double total; /* summed reward of the team that made the move into this node */
} node;

/* the children of every node in one hash table: (parent, move) -> child, open addressing (a
 * position may have thousands of moves: a lookup must not walk them) */
typedef struct {
    uint64_t move;
    int32_t parent, child; /* child -1: an empty slot */
} slot;

typedef struct {
    const cv_search_game *g;
    void *ctx;
    const void *base;
    const cv_search_params *p;
    node *nodes;
    int32_t used;
    slot *slots;
    uint64_t mask; /* slots - 1, a power of two at least twice the nodes */
    int32_t path[MAX_PATH];
    int8_t team[MAX_PATH];
    int plen;
    cv_moves moves;
    int *untried;
    int untried_cap;
    char *world, *state; /* two states of the game */
    cv_clock clock;
    cv_pyrandom seeded, local; /* halving with Python's numbers: a world's generator, and a move's copy */
    const int32_t *root_kid;   /* halving: the node of each root move (its order by mean) */
} search;

static uint64_t slot_of(const search *s, int32_t at, uint64_t move) {
    uint64_t h = (move ^ ((uint64_t)at << 32 | (uint64_t)at)) * 0x9e3779b97f4a7c15ULL;
    return (h ^ (h >> 29)) & s->mask;
}

static int32_t child(const search *s, int32_t at, uint64_t move) {
    for (uint64_t i = slot_of(s, at, move);; i = (i + 1) & s->mask) {
        const slot *e = s->slots + i;
        if (e->child < 0) return -1;
        if (e->parent == at && e->move == move) return e->child;
    }
}

static int32_t add_child(search *s, int32_t at, uint64_t move) {
    int32_t k = s->used++;
    uint64_t i = slot_of(s, at, move);
    while (s->slots[i].child >= 0) i = (i + 1) & s->mask;
    s->slots[i] = (slot){move, at, k};
    s->nodes[k] = (node){0, 0, 0.0};
    return k;
}

static int best_quick(search *s, const void *t, int nu, cv_rng *rng) { /* ismcts._best_quick */
    int *best = s->untried + nu, nb = 0; /* the room after the untried ones */
    double top = -1e18;
    for (int i = 0; i < nu; i++) {
        int m = s->untried[i];
        double q = s->g->quick(t, s->moves.code[m]);
        if (q > top) top = q, nb = 0;
        if (q == top) best[nb++] = m;
    }
    return nb == 1 ? best[0] : best[cv_rng_below(rng, nb)];
}

static void back_up(search *s, double diff) { /* _Search.back_up */
    const cv_search_params *p = s->p;
    double sign = (double)((diff > 0) - (diff < 0));
    double r0 = p->reward == CV_REWARD_POINTS ? diff / p->scale
                : p->reward == CV_REWARD_WIN  ? sign
                                              : sign + diff / p->scale;
    for (int i = 0; i < s->plen; i++) {
        node *n = s->nodes + s->path[i];
        n->visits++;
        n->total += s->team[i] == 0 ? r0 : -r0;
    }
}

/* the index (in s->moves) of the move the walk takes at `at`: UCB over the tried moves, or an
 * untried one to expand (*expand set); -1 without memory */
static int select_move(search *s, int32_t at, int32_t root, const void *t, cv_rng *rng, int *expand) {
    const cv_search_params *p = s->p;
    if (s->g->moves(t, &s->moves)) return -1;
    int n = s->moves.n, nu = 0, best = -1;
    if (2 * n > s->untried_cap) {
        int *u = realloc(s->untried, sizeof(int) * (size_t)(2 * n));
        if (!u) return -1;
        s->untried = u, s->untried_cap = 2 * n;
    }
    double best_u = -1e18;
    int lo = 0, hi = n, only = n > 1 && s->g->only ? s->g->only(s->ctx, t, &s->moves) : -1;
    if (only >= 0) lo = only, hi = only + 1;
    for (int i = lo; i < hi; i++) {
        int32_t k = child(s, at, s->moves.code[i]);
        if (k < 0) {
            s->untried[nu++] = i;
            continue;
        }
        node *ch = s->nodes + k;
        ch->avail++;
        if (nu) continue;
        double u = ch->total / ch->visits + p->c * sqrt(log((double)ch->avail) / ch->visits);
        if (p->bias && at == root) u += p->bias[i] / (ch->visits + 1);
        if (u > best_u) best_u = u, best = i;
    }
    *expand = nu > 0;
    if (!nu) return best;
    if (nu == 1) return s->untried[0];
    return p->expand_greedy ? best_quick(s, t, nu, rng) : s->untried[cv_rng_below(rng, nu)];
}

/* one iteration from `at` (whose moves are t's): select, expand one move, roll out, evaluate,
 * back up along the path (_Search.iterate); -1 without memory */
static int iterate(search *s, void *t, int32_t at, cv_rng *rng, int32_t root) {
    const cv_search_game *g = s->g;
    while (!g->done(t) && s->plen < MAX_PATH) {
        int expand, i = select_move(s, at, root, t, rng, &expand);
        if (i < 0) return -1;
        uint64_t move = s->moves.code[i];
        int team = g->team(t);
        int32_t k = expand ? add_child(s, at, move) : child(s, at, move);
        if (expand) s->nodes[k].avail = 1;
        g->play(t, move);
        s->path[s->plen] = k;
        s->team[s->plen++] = (int8_t)team;
        at = k;
        if (expand) break;
    }
    if (!g->done(t) && s->p->depth) g->rollout(s->ctx, t, rng);
    back_up(s, g->evaluate(s->ctx, t));
    return 0;
}

/* -- the root: UCB or sequential halving (ISMCTSBot.search, _Search.halving) ---------------- */

static double mean(const node *n) { return n->total / (double)(n->visits > 1 ? n->visits : 1); }

/* halving's order after its first round: a root move's mean reward (s->root_kid: the root's nodes) */
static double mean_key(const void *s, int move) { return mean(((const search *)s)->nodes + ((const search *)s)->root_kid[move]); }

/* the generator below every move of a halving world (Python: random.Random(rng.random())): its
 * seed (fast), or s->seeded set up (py) */
static uint64_t world_seed(search *s, cv_rng *rng) {
    return cv_search_world_seed(rng, &s->seeded);
}

/* every alive move played once on s->world (common random numbers); 0, or an error */
static int halving_world(search *s, const int *alive, int n, const int32_t *kid, const cv_moves *root,
                         uint64_t seed, int py) {
    const cv_search_game *g = s->g;
    for (int i = 0; i < n; i++) {
        if (cv_clock_past(&s->clock)) return CV_SEARCH_LATE;
        memcpy(s->state, s->world, g->size);
        cv_rng local = {seed, NULL};
        if (py) {
            s->local = s->seeded;
            local.py = &s->local;
        }
        node *ch = s->nodes + kid[alive[i]];
        g->play(s->state, root->code[alive[i]]);
        ch->avail++;
        s->path[0] = kid[alive[i]];
        s->team[0] = (int8_t)g->team(s->world);
        s->plen = 1;
        if (iterate(s, s->state, kid[alive[i]], &local, -1)) return CV_SEARCH_NO_MEMORY;
    }
    return 0;
}

static int halving(search *s, const cv_moves *root, int *alive, int32_t *kid, cv_rng *rng) {
    int n = root->n;
    for (int i = 0; i < n; i++) alive[i] = i;
    if (s->p->bias) cv_sort_alive(alive, n, cv_bias_key, s->p->bias);
    for (int i = 0; i < n; i++) kid[alive[i]] = add_child(s, 0, root->code[alive[i]]);
    s->root_kid = kid;
    int rounds = cv_halving_rounds(n);
    int64_t budget = s->p->iterations;
    for (int r = 0; r < rounds; r++) {
        if (n == 1 || budget <= 0) break;
        int64_t per_move = cv_halving_share(budget, rounds, r, n);
        for (int64_t k = 0; k < per_move && budget >= n; k++) {
            s->g->determinize(s->ctx, s->base, s->world, rng);
            uint64_t seed = world_seed(s, rng);
            int err = halving_world(s, alive, n, kid, root, seed, rng->py != NULL);
            if (err) return err;
            budget -= n;
        }
        cv_sort_alive(alive, n, mean_key, s);
        n = (n + 1) / 2;
    }
    return alive[0];
}

static int ucb_root(search *s, const cv_moves *root, int32_t *kid, cv_rng *rng) {
    for (int64_t k = 0; k < s->p->iterations; k++) {
        if (cv_clock_past(&s->clock)) return CV_SEARCH_LATE;
        s->g->determinize(s->ctx, s->base, s->world, rng);
        s->plen = 0;
        if (iterate(s, s->world, 0, rng, 0)) return CV_SEARCH_NO_MEMORY;
    }
    int best = -1;
    int64_t best_v = 0;
    double best_t = 0.0;
    for (int i = 0; i < root->n; i++) { /* most visits, then most total */
        kid[i] = child(s, 0, root->code[i]);
        int64_t v = kid[i] < 0 ? -1 : s->nodes[kid[i]].visits;
        double tot = kid[i] < 0 ? 0.0 : s->nodes[kid[i]].total;
        if (best < 0 || v > best_v || (v == best_v && tot > best_t)) best = i, best_v = v, best_t = tot;
    }
    return best;
}

/* the decision once the root's moves are listed and the memory is there */
static int decide(search *s, cv_moves *root, int *alive, int32_t *kid, int64_t *visits) {
    const cv_search_params *p = s->p;
    cv_pyrandom py;
    cv_rng rng = cv_rng_start(p->mt, p->seed, &py);
    cv_clock_start(&s->clock, p->seconds);
    int move = p->halving ? halving(s, root, alive, kid, &rng) : ucb_root(s, root, kid, &rng);
    for (int i = 0; i < root->n; i++) visits[i] = kid[i] < 0 ? 0 : s->nodes[kid[i]].visits;
    return move;
}

int cv_search(const cv_search_game *g, void *ctx, const void *base, const cv_search_params *p, int n_root,
              int64_t *visits) {
    search s;
    memset(&s, 0, sizeof s);
    s.g = g, s.ctx = ctx, s.base = base, s.p = p;
    cv_moves root = {0, 0, NULL};
    int move = CV_SEARCH_NO_MEMORY;
    int *alive = NULL;
    int32_t *kid = NULL;
    if (g->moves(base, &root)) goto out;
    move = CV_SEARCH_BAD_ROOT;
    if (root.n != n_root || n_root < 2) goto out;
    move = CV_SEARCH_NO_MEMORY;
    uint64_t cap = (uint64_t)p->iterations + (uint64_t)n_root + 2, room = 64;
    while (room < 2 * cap) room *= 2;
    s.nodes = malloc(sizeof(node) * cap);
    s.slots = malloc(sizeof(slot) * room);
    s.mask = room - 1;
    s.world = malloc(2 * g->size);
    alive = malloc(sizeof(int) * (size_t)n_root);
    kid = malloc(sizeof(int32_t) * (size_t)n_root);
    if (!s.nodes || !s.slots || !s.world || !alive || !kid) goto out;
    for (uint64_t i = 0; i < room; i++) s.slots[i].child = -1;
    s.state = s.world + g->size;
    for (int i = 0; i < n_root; i++) kid[i] = -1;
    s.used = 1; /* node 0: the root */
    move = decide(&s, &root, alive, kid, visits);
out:
    free(s.nodes), free(s.slots), free(s.world), free(alive), free(kid), free(s.untried);
    free(s.moves.code), free(root.code);
    return move;
}
