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

#endif
