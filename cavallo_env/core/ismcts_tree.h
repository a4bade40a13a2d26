/* The ISMCTS decision of cavallo_env/bots/ismcts.py in C, for any game of the core
 * (briscola_search.c, cavalloicera_search.c give it their rules and hooks).
 *
 * One tree for all determinizations (nodes in one array, a child found by
 * hashing its parent and the game's 64-bit move code, so a position of
 * thousands of moves costs a lookup a move), availability-aware UCB with the
 * mover's team's mean reward, greedy (quick score) or random expansion, the
 * prior as a fading bias at the root; the root by sequential halving with
 * common random numbers or by UCB; the reward of a final difference as
 * points, win or both; or, with a game's network, PUCT over the same tree
 * (the network-guided search).  Given Python's random.Random state (mt) it draws the
 * numbers the Python search draws, in the same order (random(), _randbelow
 * for choice and shuffle, random.Random(rng.random()) per halving world);
 * without, the fast generator (splitmix64).
 */
#ifndef CAVALLO_ISMCTS_TREE_H
#define CAVALLO_ISMCTS_TREE_H

#include "search_common.h" /* first: it asks for POSIX clocks */

#include <stddef.h>
#include <stdint.h>

/* the reward of a final difference: search_common.h's */
enum { CV_REWARD_POINTS = CV_SEARCH_POINTS, CV_REWARD_WIN = CV_SEARCH_WIN, CV_REWARD_MIXED = CV_SEARCH_MIXED };
enum { CV_SEARCH_LATE = -1, CV_SEARCH_NO_MEMORY = -2, CV_SEARCH_BAD_ROOT = -3 };

/* the search's random numbers and the deadline are search_common.h's, shared by every search */
typedef cv_search_rng cv_rng;
#define cv_rng_random cv_search_random
#define cv_rng_below cv_search_below
#define cv_rng_shuffle cv_search_shuffle
typedef cv_deadline cv_clock;
#define cv_clock_start cv_deadline_start
#define cv_clock_start_on cv_deadline_start_on
#define cv_clock_past cv_deadline_passed

/* the generator of a search: Python's from mt (getstate()[1]: 624 words and the index) into *py,
 * or the fast one from seed when mt is NULL */
cv_rng cv_rng_start(const uint32_t *mt, uint64_t seed, cv_pyrandom *py);

/* a list of move codes, grown as needed */
typedef struct {
    int n, cap;
    uint64_t *code;
} cv_moves;

int cv_moves_push(cv_moves *m, uint64_t code); /* 0, or -1 without memory */

/* what the search needs of a game; ctx is the game's own (its hooks' options) */
typedef struct {
    size_t size; /* bytes of a state (a plain struct, copied with memcpy) */
    int (*moves)(const void *state, cv_moves *out); /* the legal moves in the Python order: 0, or -1 */
    void (*play)(void *state, uint64_t move);
    int (*done)(const void *state);
    int (*team)(const void *state); /* hooks.team: the team of the seat to play */
    double (*quick)(const void *state, uint64_t move); /* hooks.quick_score */
    void (*determinize)(void *ctx, const void *base, void *out, cv_rng *rng);
    void (*rollout)(void *ctx, void *state, cv_rng *rng); /* the hooks' rollout of the search's depth */
    double (*evaluate)(void *ctx, const void *state);    /* team 0's expected final difference */
    /* the network-guided search (params.puct): the network's policy over state's legal moves (probs[moves->n],
     * in the moves' order, summing to 1) and its value of state, as team 0's expected final difference in
     * evaluate's units (the game's ctx holds the network, its softmax temperature, its value scale); NULL in a
     * game without one */
    double (*net)(void *ctx, const void *state, const cv_moves *moves, double *probs);
    /* NULL, or: returns 1 and sets *value (team 0's final difference, evaluate's units) where state is solved
     * exactly (Briscola: at most one card left in the stock), else 0 */
    int (*exact)(void *ctx, const void *state, double *value);
    /* NULL, or: the index in moves (state's, two or more; below the root) of the one move the walk may
     * take there (the others get no node and no availability; with puct, net sees that move alone), or
     * -1 for any (Scopa's modelled other seat) */
    int (*only)(void *ctx, const void *state, const cv_moves *moves);
} cv_search_game;

typedef struct {
    int64_t iterations;
    double c;           /* exploration */
    int expand_greedy;  /* 1: expand the untried move quick likes best; 0: a random one */
    int reward;         /* CV_REWARD_POINTS, CV_REWARD_WIN, CV_REWARD_MIXED */
    double scale;       /* points per unit of reward */
    int depth;          /* rollout plies (0: none) */
    int halving;        /* 1: sequential halving at the root; 0: UCB */
    const double *bias; /* NULL or one root bias per root move (reward units), in the moves' order */
    uint64_t seed;      /* the fast generator's seed */
    const uint32_t *mt; /* NULL, or Python's random.Random state: then Python's numbers */
    double seconds;     /* time allowed (<= 0: unbounded); past it the search stops */
    int puct;            /* 1: the network-guided search (PUCT over the same tree, g->net); 0: today's UCB search */
    double c_puct;       /* PUCT: Q + c_puct * P * sqrt(avail) / (1 + visits) */
    double fpu;          /* the value (reward units) of a move not visited yet (with fpu_parent: added to the mean) */
    int fpu_parent;      /* 1: a move not visited yet counts the mean reward of its position's visited moves
                          * (visits weighing; 0 while none is) plus fpu; 0: fpu alone */
    double lambda;       /* a new leaf's value: lambda * net value + (1 - lambda) * (rollout, then evaluate) */
    double budget;       /* > 0: CPU seconds of this thread after which the search plays its best move so far */
    double budget_wall;  /* with budget: wall seconds after which it does so all the same (<= 0: budget) */
    int64_t max_nodes;   /* puct: the tree's node cap (0: 8 an iteration + the root's moves + 2); when the next
                          * position's nodes would not fit, the search plays its best move so far (UCB: 0 is
                          * one an iteration + the root's moves + 2, never reached) */
    double *means;       /* NULL, or n_root doubles that receive each root move's mean reward (total / visits,
                          * the seat to play's reward units; 0 where not visited): what halving ranks by */
} cv_search_params;

/* The decision of the seat to play in base (n_root legal moves, two or more): the index of the
 * move in the game's order and every root move's visits (visits[n_root]); or CV_SEARCH_LATE
 * when the time ran out, CV_SEARCH_NO_MEMORY, CV_SEARCH_BAD_ROOT when base has not n_root moves
 * (or p->puct without g->net).
 *
 * With p->puct, the search is PUCT over the same information-set tree (AlphaZero, Expert
 * Iteration): walking down, every legal move of a position without a node gets one with the
 * network's policy as its prior (g->net runs once for the position), the others are available
 * once more; at a node visited for the first time (below the root) the position's value is
 * g->exact's where it answers, else lambda * the network's value + (1 - lambda) * evaluate after
 * the rollout; elsewhere PUCT picks the move (Q: the mean reward, fpu when unvisited).  The root:
 * PUCT, then the move visited most (ties: most total), or (p->halving) sequential halving with
 * common random numbers over PUCT iterations, then the best mean.  Either search stops at its
 * iterations, past p->seconds (abandoned: CV_SEARCH_LATE), past its budget (p->budget CPU
 * seconds of this thread or p->budget_wall wall seconds) or at its node cap (then it plays its
 * best move so far). */
int cv_search(const cv_search_game *g, void *ctx, const void *base, const cv_search_params *p, int n_root,
              int64_t *visits);

#endif
