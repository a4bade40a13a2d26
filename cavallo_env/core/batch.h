/* What every game's core shares: the loops over n tables (row i is table i)
 * and the table of them, cv_game, that the Cython binding (_tables.pxi) calls.
 *
 * A game's .c file defines its one-table functions, then writes
 *
 *   CV_BATCH(type, seats, actions, obs_size, legal, act, query, random, observe, blank)
 *
 * to get the loops, and CV_BATCH_STATE(type, state_size, state) for the
 * full-information vector.  The one-table functions it names:
 *
 *   int  legal(const type *t, int action)                     whether action is legal now
 *   void act(type *t, cv_pyrandom *py, int action, int reward, float *r)
 *                                                             apply a legal action; write each seat's
 *                                                             return into r where it pays one
 *   void query(const type *t, int8_t *current, uint8_t *mask) the seat to act and the legal mask
 *   int  random(type *t, cv_pyrandom *py)                     a random legal action (-1 once over)
 *   void observe(const type *t, int seat, float *out)         the seat's observation
 *   void blank(type *t)                                       a table before its first deal: over
 *   void state(const type *t, float *out)                     the full-information vector
 *
 * Each table has the fields `done` and `current`; py is NULL (the fast generator)
 * or one cv_pyrandom a table.  The loops are static and call the one-table
 * functions directly, so the compiler inlines them as if written out in each game.
 */
#ifndef CAVALLO_BATCH_H
#define CAVALLO_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "pyrandom.h"

typedef struct {
    const char *name;                                 /* the game, for messages */
    size_t size;                                      /* the bytes of one table */
    int seats, actions, obs_size, state_size;         /* row lengths of rewards, mask, obs, state */
    void (*blank)(void *t, int64_t n);                /* tables before their first deal: over */
    /* play actions[i] at table i (negative: skip it); rewards (n x seats) and done (n) are written,
     * then current (n) and mask (n x actions) as query; nothing is played and the first table with
     * an illegal action is returned if there is one (else -1) */
    int64_t (*step)(void *t, cv_pyrandom *py, int64_t n, const int32_t *actions, int reward,
                    float *rewards, uint8_t *done, int8_t *current, uint8_t *mask);
    void (*query)(const void *t, int64_t n, int8_t *current, uint8_t *mask);
    void (*random_actions)(void *t, cv_pyrandom *py, int64_t n, int32_t *actions);
    /* observations (n x obs_size) of seats[i], or of the seat to act where seats == NULL */
    void (*observe)(const void *t, int64_t n, const int8_t *seats, float *out);
    /* full-information vectors (n x state_size) */
    void (*state)(const void *t, int64_t n, float *out);
} cv_game;

#define CV_BATCH(type, SEATS, ACTIONS, OBS_SIZE, legal_one, act_one, query_one, random_one, observe_one,            \
                 blank_one)                                                                                         \
    static void batch_blank(void *tables, int64_t n) {                                                              \
        for (int64_t i = 0; i < n; i++) blank_one((type *)tables + i);                                              \
    }                                                                                                               \
    static int64_t batch_step(void *tables, cv_pyrandom *py, int64_t n, const int32_t *actions, int reward,         \
                              float *rewards, uint8_t *done, int8_t *current, uint8_t *mask) {                      \
        type *t = tables;                                                                                           \
        for (int64_t i = 0; i < n; i++)                                                                             \
            if (actions[i] >= 0 && !legal_one(t + i, actions[i])) return i;                                         \
        for (int64_t i = 0; i < n; i++) {                                                                           \
            float *r = rewards + (SEATS) * i;                                                                       \
            for (int s = 0; s < (SEATS); s++) r[s] = 0.0f;                                                          \
            if (actions[i] >= 0) act_one(t + i, py ? py + i : NULL, actions[i], reward, r);                         \
            done[i] = t[i].done;                                                                                    \
            query_one(t + i, current + i, mask + i * (ACTIONS));                                                    \
        }                                                                                                           \
        return -1;                                                                                                  \
    }                                                                                                               \
    static void batch_query(const void *tables, int64_t n, int8_t *current, uint8_t *mask) {                        \
        const type *t = tables;                                                                                     \
        for (int64_t i = 0; i < n; i++) query_one(t + i, current + i, mask + i * (ACTIONS));                        \
    }                                                                                                               \
    static void batch_random_actions(void *tables, cv_pyrandom *py, int64_t n, int32_t *actions) {                  \
        for (int64_t i = 0; i < n; i++) actions[i] = random_one((type *)tables + i, py ? py + i : NULL);            \
    }                                                                                                               \
    static void batch_observe(const void *tables, int64_t n, const int8_t *seats, float *out) {                     \
        const type *t = tables;                                                                                     \
        for (int64_t i = 0; i < n; i++)                                                                             \
            observe_one(t + i, seats ? seats[i] : t[i].current, out + i * (OBS_SIZE));                              \
    }

#define CV_BATCH_STATE(type, STATE_SIZE, state_one)                                                                 \
    static void batch_state(const void *tables, int64_t n, float *out) {                                            \
        for (int64_t i = 0; i < n; i++) state_one((const type *)tables + i, out + i * (STATE_SIZE));                \
    }

/* the cv_game of a game whose .c wrote CV_BATCH and CV_BATCH_STATE */
#define CV_GAME(name, type, SEATS, ACTIONS, OBS_SIZE, STATE_SIZE)                                                   \
    {name, sizeof(type), SEATS, ACTIONS, OBS_SIZE, STATE_SIZE, batch_blank, batch_step, batch_query,                \
     batch_random_actions, batch_observe, batch_state}

#endif
