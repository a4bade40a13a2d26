/* Python's random.Random (CPython's Mersenne Twister, MT19937) for the deals.
 *
 * The same numbers as random.Random(seed) for an int seed 0 <= seed < 2**64:
 * seeding (init_by_array over the seed's 32-bit words), getrandbits(k) for
 * k <= 32, random() (53 bits from two words) and the rejection sampling of
 * _randbelow.  A deal seeded here is bit for bit random_deal(seed); the
 * Python wrapper checks that once against this Python's random module.
 */
#ifndef CAVALLO_PYRANDOM_H
#define CAVALLO_PYRANDOM_H

#include <stdint.h>

#define CV_MT_N 624

typedef struct {
    uint32_t state[CV_MT_N];
    int index;
} cv_pyrandom;

/* random.Random(seed) for 0 <= seed < 2**64 (Python seeds abs(seed)). */
void cv_pyrandom_seed(cv_pyrandom *r, uint64_t seed);
/* the next 32-bit output word (genrand_uint32) */
uint32_t cv_pyrandom_u32(cv_pyrandom *r);
/* getrandbits(k) for 1 <= k <= 32 */
uint32_t cv_pyrandom_bits(cv_pyrandom *r, int k);
/* _randbelow(n) for 1 <= n <= 2**31: getrandbits(n.bit_length()) until < n */
uint32_t cv_pyrandom_below(cv_pyrandom *r, uint32_t n);
/* random(): a double in [0, 1) */
double cv_pyrandom_random(cv_pyrandom *r);
/* the number of bits of n (int.bit_length) */
int cv_bit_length(uint32_t n);

/* shuffle.py's j for position i: getrandbits((i + 1).bit_length()) until <= i (Random.shuffle) */
static inline uint32_t cv_pyrandom_shuffle_index(cv_pyrandom *r, int i) {
    int k = cv_bit_length((uint32_t)i + 1);
    uint32_t j = cv_pyrandom_bits(r, k);
    while (j > (uint32_t)i) j = cv_pyrandom_bits(r, k);
    return j;
}

/* The fast generator the games use instead when Python's sequence is not needed:
 * splitmix64 (Steele, Lea, Flood 2014), and uniform draws below n from it */
static inline uint64_t cv_splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in 0..n-1 (Lemire's multiply-shift, rejecting the biased few) */
static inline uint32_t cv_fast_below(uint64_t *state, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(cv_splitmix64(state) >> 32) * n;
    if ((uint32_t)m < n) {
        uint32_t threshold = (uint32_t)-n % n;
        while ((uint32_t)m < threshold) m = (uint64_t)(uint32_t)(cv_splitmix64(state) >> 32) * n;
    }
    return (uint32_t)(m >> 32);
}

/* ids[0..n-1] = 0..n-1 shuffled as random.Random.shuffle (py) or by the fast generator (fast) */
static inline void cv_shuffled_ids(int8_t *ids, int n, cv_pyrandom *py, uint64_t *fast) {
    for (int i = 0; i < n; i++) ids[i] = (int8_t)i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates, as random.Random.shuffle */
        uint32_t j = py ? cv_pyrandom_shuffle_index(py, i) : cv_fast_below(fast, (uint32_t)i + 1);
        int8_t x = ids[i];
        ids[i] = ids[j];
        ids[j] = x;
    }
}

#endif
