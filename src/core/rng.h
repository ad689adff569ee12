// A small deterministic random number generator (PCG32), so that model
// initialisation and sampling repeat exactly for a given seed on any machine.
#ifndef TT_RNG_H
#define TT_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state, inc;
} Rng;

void rng_init(Rng *r, uint64_t seed);
uint32_t rng_u32(Rng *r);
// Uniform in [0, 1), 24 random bits.
float rng_uniform(Rng *r);
// Standard normal (Box-Muller).
float rng_normal(Rng *r);

#endif
