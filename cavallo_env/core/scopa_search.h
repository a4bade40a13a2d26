/* Scopa's ISMCTS decision in C: the whole search of `ismcts:<n>` (the generic
 * SO-ISMCTS of cavallo_env/bots/ismcts.py with Scopa's hooks,
 * cavallo_env/scopa/search.py) run over cv_scopa single deals: Scopa's hooks
 * plugged into the tree of ismcts_tree.c (cv_search).
 *
 * Python stays the reference: the same tree (one for all determinizations,
 * availability counts, UCB with the mover's mean reward, greedy or random
 * expansion by quick_score, the prior as a fading bias at the root, the other
 * seat's modelled reply as the only child), the same sequential halving at
 * the root with common random numbers, the same determinizations (the other
 * hand drawn from the hands the Python hooks weigh once per decision, or
 * uniformly, with the kind of player it is taken for), the same rollout
 * (quick_score's move, a random one with chance epsilon, the other seat's
 * kind of player's move) and the same evaluation (static_eval and the best
 * capture past the horizon).  The other seat's kinds of player are the core's
 * bots (scopa_bots.c: heuristic, greedy).  Given the state of the Python
 * search's random.Random (mt), it draws the same numbers in the same order:
 * the same visits and the same move as the Python search, bit for bit.
 * Without, the fast generator (splitmix64): the same search on other numbers.
 */
#ifndef CAVALLO_SCOPA_SEARCH_H
#define CAVALLO_SCOPA_SEARCH_H

#include <stdint.h>

#include "ismcts_tree.h"
#include "mlp.h"
#include "scopa.h"

typedef struct {
    /* the tree's options (ismcts_tree.h): its bias is one root bias a legal move of base, in
     * cv_scopa_moves' order; with puct (search:scopa) the network-guided search over the same
     * determinizations, rollout and evaluation, guided by net (net_eval below) */
    cv_search_params search;
    double epsilon;         /* the rollout's random-move rate */
    double lookahead;       /* the evaluation's weight of the best capture open past the horizon */
    int modelled;           /* 1: the other seat plays as its kind of player (the search's model=1) */
    /* the determinizations (search._Determinizer): the cards hidden from the seat to play, in the
     * Python determinizer's order, of which the other seat holds n_other */
    const int8_t *hidden;
    int n_hidden, n_other;
    int n_hands;            /* 0: the other hand dealt uniformly; else one of these weighed hands */
    const int8_t *hands;    /* n_hands x n_other card ids */
    const double *cum;      /* n_hands cumulative weights of the hands */
    const double *kinds;    /* n_hands x 3 cumulative weights of the kinds of player holding each hand */
    double model[3];        /* the kinds of player with uniform deals (search.MODEL or player_model) */
    const cv_mlp *net;      /* the policy network (NULL unless search.puct) */
    double temp;            /* its softmax temperature (> 0) */
    double value_scale;     /* points of one unit of its value */
} cv_scs_params;

/* One play of the other seat since its current hand was dealt, and the public position before
 * it (search._Play): what the inference weighs a possible hand by. */
typedef struct {
    int8_t card;          /* the card played ... */
    uint64_t capture;     /* ... and the table cards it took (0: placed) */
    uint64_t table, piles[2];
    uint64_t kept;        /* the cards the seat played later in the same round: in its hand too */
    int8_t last_capturer; /* -1: nobody */
    uint8_t stock, opp_hand, plays_left;
} cv_scs_play;

/* search.player_model: the chance that seat is each kind of player (MODEL updated by its n_past
 * plays of the rounds already over, whole hands known), into model (NaN when out of memory). */
void cv_scopa_player_model(const cv_scs_play *past, int n_past, int seat, int money, double model[3]);

/* _Determinizer._weigh's weights of n_hands possible hands (n_other cards each) of seat, given its
 * plays: the kinds of player (model, by the rounds already over) times the likelihoods of the plays
 * (search.likelihoods, with the core's heuristic and greedy bots), the sum raised to infer, into
 * cum (n_hands cumulative weights) and kinds (n_hands x 3 cumulative weights of the kinds).
 * Returns 0, or -2 when out of memory. */
int cv_scopa_weigh(const cv_scs_play *plays, int n_plays, int seat, int money, const int8_t *hands, int n_hands,
                   int n_other, const double model[3], double infer, double *cum, double *kinds);

/* The move of the seat to play in base (a single deal, more than one legal move), as its index in
 * cv_scopa_moves(base)'s order, and the root visit count of every legal move (visits, as many).
 * Returns -1 when the time ran out (the search is abandoned), -2 when out of memory, -3 when base has
 * fewer than two legal moves. */
int cv_scopa_search(const cv_scopa *base, const cv_scs_params *p, int64_t *visits);

/* The rollout then the evaluation of one full-information single deal, as the search does below
 * its tree, the other seat (1 - seat to play at the root: other) of kind (0 heuristic, 1 greedy,
 * 2 any move): seat 0's expected difference.  seed: the fast generator's, or mt as above. */
double cv_scopa_rollout_value(const cv_scopa *state, const cv_scs_params *p, int other, int kind, uint64_t seed);

/* The network's policy over the legal moves of the seat to play in t (probs, in cv_scopa_moves'
 * order) and its value, as seat 0's point difference (p->value_scale points a unit).  The policy
 * plays a move as the policy bot does, one action at a time (actions.py): its first action
 * (place or capture with its card) by the softmax over the position's first actions, then, for a
 * card with several capture sets, each take by the softmax over the takes then legal (the network
 * run on the capture being built); a move's probability is the product.  The network reads the
 * observation and prior of the seat to play (scopa-obs/1, scopa-prior/1). */
double cv_scopa_net_eval(const cv_scopa *t, const cv_scs_params *p, double *probs);

/* The last round of t (the stock empty: nothing is hidden) solved by minimax, both seats playing their
 * best: seat 0's final point difference (NaN elsewhere, or out of memory).  search:scopa values a
 * new position of the last round so. */
double cv_scopa_exact(const cv_scopa *t);

/* Complete a single deal loaded field by field (its cards, piles, counts, moves, money, seat to
 * play): the table's subset sums, no capture being built, no match. */
void cv_scopa_search_load(cv_scopa *t);

/* One determinization of base for the seat to play, drawn from *seed (the fast generator), into
 * out; returns the kind of player the other seat is in it. */
int cv_scopa_determinize(const cv_scopa *base, const cv_scs_params *p, cv_scopa *out, uint64_t *seed);

#endif
