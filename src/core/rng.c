#include "rng.h"

#include <math.h>

void rng_init(Rng *r, uint64_t seed) {
    r->state = 0;
    r->inc = (seed << 1u) | 1u;
    rng_u32(r);
    r->state += 0x853c49e6748fea9bULL ^ seed;
    rng_u32(r);
}

uint32_t rng_u32(Rng *r) {
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ULL + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

float rng_uniform(Rng *r) {
    return (float)(rng_u32(r) >> 8) * (1.0f / 16777216.0f);
}

float rng_normal(Rng *r) {
    // 1 - u keeps the logarithm's argument in (0, 1]
    double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
