/* Python's Mersenne Twister: see pyrandom.h.  Constants and steps follow
 * CPython's Modules/_randommodule.c (itself the MT19937 reference code). */
#include "pyrandom.h"

#define M 397
#define MATRIX_A 0x9908b0dfU
#define UPPER_MASK 0x80000000U
#define LOWER_MASK 0x7fffffffU

static void init_genrand(cv_pyrandom *r, uint32_t s) {
    uint32_t *mt = r->state;
    mt[0] = s;
    for (int i = 1; i < CV_MT_N; i++)
        mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = CV_MT_N;
}

static void init_by_array(cv_pyrandom *r, const uint32_t *key, int key_length) {
    uint32_t *mt = r->state;
    init_genrand(r, 19650218U);
    int i = 1, j = 0;
    int k = CV_MT_N > key_length ? CV_MT_N : key_length;
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= CV_MT_N) { mt[0] = mt[CV_MT_N - 1]; i = 1; }
        if (j >= key_length) j = 0;
    }
    for (k = CV_MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= CV_MT_N) { mt[0] = mt[CV_MT_N - 1]; i = 1; }
    }
    mt[0] = 0x80000000U; /* MSB is 1, assuring a non-zero initial array */
}

void cv_pyrandom_seed(cv_pyrandom *r, uint64_t seed) {
    /* CPython: the 32-bit words of abs(seed), least significant first; 0 -> [0] */
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    init_by_array(r, key, key[1] ? 2 : 1);
}

static void twist(cv_pyrandom *r) {
    static const uint32_t mag01[2] = {0x0U, MATRIX_A};
    uint32_t *mt = r->state;
    uint32_t y;
    int kk;
    for (kk = 0; kk < CV_MT_N - M; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    for (; kk < CV_MT_N - 1; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - CV_MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    y = (mt[CV_MT_N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
    mt[CV_MT_N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
    r->index = 0;
}

uint32_t cv_pyrandom_u32(cv_pyrandom *r) {
    if (r->index >= CV_MT_N) twist(r);
    uint32_t y = r->state[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

uint32_t cv_pyrandom_bits(cv_pyrandom *r, int k) {
    return cv_pyrandom_u32(r) >> (32 - k);
}

int cv_bit_length(uint32_t n) {
    int k = 0;
    while (n) { k++; n >>= 1; }
    return k;
}

uint32_t cv_pyrandom_below(cv_pyrandom *r, uint32_t n) {
    int k = cv_bit_length(n);
    uint32_t v = cv_pyrandom_bits(r, k);
    while (v >= n) v = cv_pyrandom_bits(r, k);
    return v;
}

double cv_pyrandom_random(cv_pyrandom *r) {
    uint32_t a = cv_pyrandom_u32(r) >> 5, b = cv_pyrandom_u32(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}
