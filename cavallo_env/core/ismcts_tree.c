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
 * position may have thousands of moves: a lookup must not walk them); grown as the tree grows */
typedef struct {
    uint64_t move;
    int32_t parent, child; /* child 0 (the root, nobody's child): an empty slot */
} slot;

typedef struct {
    const cv_search_game *g;
    void *ctx;
    const void *base;
    const cv_search_params *p;
    node *nodes;
    double *prior; /* puct: each node's prior (the network's policy when its parent was expanded) */
    int32_t used, cap;
    int full; /* the node cap was reached: play the best move so far */
    slot *slots;
    uint64_t mask; /* slots - 1, a power of two at least twice the nodes */
    int32_t path[MAX_PATH];
    int8_t team[MAX_PATH];
    int plen;
    cv_moves moves;
    int *untried; /* room for 2 * moves: the untried ones, then best_quick's */
    int32_t *kids; /* puct: the node of each move of the position */
    double *probs; /* puct: the network's policy over the position's moves */
    int room; /* the moves untried, kids and probs have room for */
    char *world, *state; /* two states of the game */
    cv_clock clock, cpu, wall; /* the deadline (abandon), the budget (play the best so far): CPU and wall */
    cv_pyrandom seeded, local; /* halving with Python's numbers: a world's generator, and a move's copy */
    const int32_t *root_kid;   /* halving: the node of each root move (its order by mean) */
} search;

enum { STOP = 1 }; /* a search's budget or node cap reached: its best move so far */

static uint64_t slot_of(uint64_t mask, int32_t at, uint64_t move) {
    uint64_t h = (move ^ ((uint64_t)at << 32 | (uint64_t)at)) * 0x9e3779b97f4a7c15ULL;
    return (h ^ (h >> 29)) & mask;
}

static int32_t child(const search *s, int32_t at, uint64_t move) {
    for (uint64_t i = slot_of(s->mask, at, move);; i = (i + 1) & s->mask) {
        const slot *e = s->slots + i;
        if (!e->child) return -1;
        if (e->parent == at && e->move == move) return e->child;
    }
}

static void put_slot(slot *slots, uint64_t mask, slot e) {
    uint64_t i = slot_of(mask, e.parent, e.move);
    while (slots[i].child) i = (i + 1) & mask;
    slots[i] = e;
}

/* the hash table twice as large (when the nodes would fill more than half of it); 0, or -1 */
static int grow_slots(search *s) {
    uint64_t room = 2 * (s->mask + 1);
    slot *slots = calloc(room, sizeof(slot));
    if (!slots) return -1;
    for (uint64_t i = 0; i <= s->mask; i++)
        if (s->slots[i].child) put_slot(slots, room - 1, s->slots[i]);
    free(s->slots);
    s->slots = slots, s->mask = room - 1;
    return 0;
}

/* a new child of at: its node, or -1 without memory (the caller keeps s->used below s->cap) */
static int32_t add_child(search *s, int32_t at, uint64_t move) {
    if (2 * (uint64_t)s->used >= s->mask && grow_slots(s)) return -1;
    int32_t k = s->used++;
    put_slot(s->slots, s->mask, (slot){move, at, k});
    s->nodes[k] = (node){0, 0, 0.0};
    if (s->prior) s->prior[k] = 0.0;
    return k;
}

/* the scratch lists with room for a position of n moves; 0, or -1 without memory */
static int make_room(search *s, int n) {
    if (n <= s->room) return 0;
    int *u = realloc(s->untried, sizeof(int) * (size_t)(2 * n));
    if (u) s->untried = u;
    int32_t *k = realloc(s->kids, sizeof(int32_t) * (size_t)n);
    if (k) s->kids = k;
    double *pr = realloc(s->probs, sizeof(double) * (size_t)n);
    if (pr) s->probs = pr;
    if (!u || !k || !pr) return -1;
    s->room = n;
    return 0;
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

/* below the root, s->moves (t's) narrowed to the one move g->only names there, if it names one */
static void narrow(search *s, const void *t) {
    int i = s->plen && s->moves.n > 1 && s->g->only ? s->g->only(s->ctx, t, &s->moves) : -1;
    if (i >= 0) s->moves.code[0] = s->moves.code[i], s->moves.n = 1;
}

/* the index (in s->moves) of the move the walk takes at `at`: UCB over the tried moves, or an
 * untried one to expand (*expand set); -1 without memory */
static int select_move(search *s, int32_t at, int32_t root, const void *t, cv_rng *rng, int *expand) {
    const cv_search_params *p = s->p;
    if (s->g->moves(t, &s->moves) || make_room(s, s->moves.n)) return -1;
    narrow(s, t);
    int n = s->moves.n, nu = 0, best = -1;
    double best_u = -1e18;
    for (int i = 0; i < n; i++) {
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
        if (k < 0) return -1;
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

/* -- the network-guided search (PUCT over the same tree; ismcts_tree.h) ----------------------- */

/* the moves of t (s->moves) without a node at `at` get one, with the network's policy as their
 * prior; every other one was available once more; s->kids: every move's node.  Returns 0 and
 * the network's value of t (*v) when it ran (*ran set), which it does when a move had no node;
 * -1 without memory */
static int expand_net(search *s, int32_t at, const void *t, int *ran, double *v) {
    const cv_moves *m = &s->moves;
    *ran = 0;
    for (int i = 0; i < m->n; i++) {
        int32_t k = child(s, at, m->code[i]);
        if (k >= 0) {
            s->nodes[k].avail++;
        } else {
            if (!*ran) *v = s->g->net(s->ctx, t, m, s->probs), *ran = 1;
            if ((k = add_child(s, at, m->code[i])) < 0) return -1;
            s->nodes[k].avail = 1;
            s->prior[k] = s->probs[i];
        }
        s->kids[i] = k;
    }
    return 0;
}

/* the value of a move not visited yet: fpu, or with fpu_parent fpu + the mean reward of the visited
 * moves among the position's (s->kids), visits weighing (0 while none is visited) */
static double unvisited_value(const search *s) {
    const cv_search_params *p = s->p;
    if (!p->fpu_parent) return p->fpu;
    double total = 0.0;
    int64_t visits = 0;
    for (int i = 0; i < s->moves.n; i++) {
        const node *ch = s->nodes + s->kids[i];
        total += ch->total, visits += ch->visits;
    }
    return p->fpu + (visits ? total / (double)visits : 0.0);
}

/* PUCT's move among the position's moves (s->kids: their nodes, every one there) */
static int puct_move(const search *s) {
    const cv_search_params *p = s->p;
    const double fpu = unvisited_value(s);
    int best = 0;
    double best_u = -1e18;
    for (int i = 0; i < s->moves.n; i++) {
        int32_t k = s->kids[i];
        const node *ch = s->nodes + k;
        double q = ch->visits ? ch->total / (double)ch->visits : fpu;
        double u = q + p->c_puct * s->prior[k] * sqrt((double)ch->avail) / (double)(1 + ch->visits);
        if (u > best_u) best_u = u, best = i;
    }
    return best;
}

/* the value of a new leaf t (net_v: the network's where it ran): exact where the game solves t,
 * else lambda * the network's + (1 - lambda) * evaluate after the rollout (t rolled out) */
static double leaf_value(search *s, void *t, int ran, double net_v, cv_rng *rng) {
    const cv_search_game *g = s->g;
    const cv_search_params *p = s->p;
    double v;
    if (g->exact && g->exact(s->ctx, t, &v)) return v;
    if (!ran) net_v = g->net(s->ctx, t, &s->moves, s->probs);
    if (p->lambda >= 1.0) return net_v;
    if (p->depth) g->rollout(s->ctx, t, rng);
    return p->lambda * net_v + (1.0 - p->lambda) * g->evaluate(s->ctx, t);
}

/* one PUCT iteration from `at` (whose moves are t's) down to a node visited for the first time:
 * there the network values the position (and gives its moves their priors), the value is backed
 * up.  0; STOP when the next position's nodes would not fit; -1 without memory */
static int iterate_net(search *s, void *t, int32_t at, cv_rng *rng) {
    const cv_search_game *g = s->g;
    while (!g->done(t) && s->plen < MAX_PATH) {
        if (g->moves(t, &s->moves) || make_room(s, s->moves.n)) return -1;
        narrow(s, t);
        if ((int64_t)s->used + s->moves.n > s->cap) { /* no room for one more position's nodes */
            s->full = 1;
            return STOP;
        }
        int ran;
        double v = 0.0;
        if (expand_net(s, at, t, &ran, &v)) return -1;
        if (s->plen && s->nodes[at].visits == 0) { /* a new leaf */
            back_up(s, leaf_value(s, t, ran, v, rng));
            return 0;
        }
        int i = puct_move(s);
        s->path[s->plen] = s->kids[i];
        s->team[s->plen++] = (int8_t)g->team(t);
        at = s->kids[i];
        g->play(t, s->moves.code[i]);
    }
    back_up(s, g->evaluate(s->ctx, t));
    return 0;
}

/* -- the root: UCB/PUCT or sequential halving (ISMCTSBot.search, _Search.halving) ------------- */

/* the budget spent (its CPU seconds or its wall cap) or the node cap reached (UCB: one node an
 * iteration): time to play the best move so far */
static int spent(search *s) {
    if (s->full || (!s->p->puct && s->used >= s->cap)) return 1;
    return s->p->budget > 0 && (cv_clock_past(&s->cpu) || cv_clock_past(&s->wall));
}

/* one iteration from `at` by the search's kind: 0, STOP, or CV_SEARCH_NO_MEMORY */
static int iteration(search *s, void *t, int32_t at, cv_rng *rng, int32_t root) {
    int r = s->p->puct ? iterate_net(s, t, at, rng) : iterate(s, t, at, rng, root);
    return r < 0 ? CV_SEARCH_NO_MEMORY : r;
}

static double mean(const node *n) { return n->total / (double)(n->visits > 1 ? n->visits : 1); }

/* halving's order after its first round: a root move's mean reward (s->root_kid: the root's nodes); a
 * move never tried (a budget or the node cap stopped the first round) ranks last, not as a mean of 0 */
static double mean_key(const void *s, int move) {
    const node *n = ((const search *)s)->nodes + ((const search *)s)->root_kid[move];
    return n->visits ? mean(n) : -INFINITY;
}

/* the generator below every move of a halving world (Python: random.Random(rng.random())): its
 * seed (fast), or s->seeded set up (py) */
static uint64_t world_seed(search *s, cv_rng *rng) {
    return cv_search_world_seed(rng, &s->seeded);
}

/* every alive move played once on s->world (common random numbers); 0, STOP (the budget or
 * the node cap), or an error */
static int halving_world(search *s, const int *alive, int n, const int32_t *kid, const cv_moves *root,
                         uint64_t seed, int py) {
    const cv_search_game *g = s->g;
    for (int i = 0; i < n; i++) {
        if (cv_clock_past(&s->clock)) return CV_SEARCH_LATE;
        if (spent(s)) return STOP;
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
        int err = iteration(s, s->state, kid[alive[i]], &local, -1);
        if (err) return err;
    }
    return 0;
}

static int halving(search *s, const cv_moves *root, int *alive, int32_t *kid, cv_rng *rng) {
    int n = root->n;
    for (int i = 0; i < n; i++) alive[i] = i;
    if (s->p->bias) cv_sort_alive(alive, n, cv_bias_key, s->p->bias);
    for (int i = 0; i < n; i++)
        if ((kid[alive[i]] = add_child(s, 0, root->code[alive[i]])) < 0) return CV_SEARCH_NO_MEMORY;
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
            if (err == STOP) break;
            if (err) return err;
            budget -= n;
        }
        cv_sort_alive(alive, n, mean_key, s);
        if (spent(s)) break; /* the best mean so far */
        n = (n + 1) / 2;
    }
    return alive[0];
}

static int tree_root(search *s, const cv_moves *root, int32_t *kid, cv_rng *rng) {
    for (int64_t k = 0; k < s->p->iterations; k++) {
        if (cv_clock_past(&s->clock)) return CV_SEARCH_LATE;
        if (k && spent(s)) break;
        s->g->determinize(s->ctx, s->base, s->world, rng);
        s->plen = 0;
        int err = iteration(s, s->world, 0, rng, 0);
        if (err == STOP) break;
        if (err) return err;
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
    cv_clock_start_on(&s->cpu, CLOCK_THREAD_CPUTIME_ID, p->budget);
    cv_clock_start(&s->wall, p->budget > 0 ? (p->budget_wall > 0 ? p->budget_wall : p->budget) : 0.0);
    int move = p->halving ? halving(s, root, alive, kid, &rng) : tree_root(s, root, kid, &rng);
    for (int i = 0; i < root->n; i++) visits[i] = kid[i] < 0 ? 0 : s->nodes[kid[i]].visits;
    for (int i = 0; p->means && i < root->n; i++)
        p->means[i] = kid[i] < 0 || !s->nodes[kid[i]].visits ? 0.0 : s->nodes[kid[i]].total / (double)s->nodes[kid[i]].visits;
    return move;
}

/* the tree's node cap: p->max_nodes, or per iteration 8 (puct) or 1, and the root's moves */
static int64_t node_cap(const cv_search_params *p, int n_root) {
    if (p->max_nodes > 0) return p->max_nodes;
    int64_t per = p->puct ? 8 : 1;
    if (p->iterations > (INT32_MAX - (int64_t)n_root - 2) / per) return INT64_MAX; /* more than a tree holds */
    return per * p->iterations + n_root + 2;
}

/* the search's memory: the nodes (their priors with puct), the hash table, two states; 0, or -1 */
static int allocate(search *s, int n_root) {
    int64_t cap = node_cap(s->p, n_root);
    if (cap < n_root + 2) cap = n_root + 2; /* the root and its moves (halving adds them first) */
    if (s->p->iterations < 0 || cap > INT32_MAX) return -1;
    uint64_t room = 64;
    while (room < 2 * (uint64_t)cap && room < (1u << 14)) room *= 2; /* grown with the tree */
    s->cap = (int32_t)cap;
    s->nodes = malloc(sizeof(node) * (size_t)cap);
    s->prior = s->p->puct ? malloc(sizeof(double) * (size_t)cap) : NULL;
    s->slots = calloc(room, sizeof(slot));
    s->mask = room - 1;
    s->world = malloc(2 * s->g->size);
    if (!s->nodes || (s->p->puct && !s->prior) || !s->slots || !s->world || make_room(s, n_root)) return -1;
    s->state = s->world + s->g->size;
    s->used = 1; /* node 0: the root */
    return 0;
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
    if (root.n != n_root || n_root < 2 || (p->puct && !g->net)) goto out;
    move = CV_SEARCH_NO_MEMORY;
    alive = malloc(sizeof(int) * (size_t)n_root);
    kid = malloc(sizeof(int32_t) * (size_t)n_root);
    if (!alive || !kid || allocate(&s, n_root)) goto out;
    for (int i = 0; i < n_root; i++) kid[i] = -1;
    move = decide(&s, &root, alive, kid, visits);
out:
    free(s.nodes), free(s.prior), free(s.slots), free(s.world), free(alive), free(kid);
    free(s.untried), free(s.kids), free(s.probs), free(s.moves.code), free(root.code);
    return move;
}
