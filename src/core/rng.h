/* src/core/rng.h: the library's one sequential pseudo-random generator (splitmix64), for
 * deterministic inputs such as the benchmark's vectors. */
#ifndef SPX_CORE_RNG_H
#define SPX_CORE_RNG_H

#include <stdint.h>

/* The splitmix64 increment (2^64 / golden ratio, odd). */
#define SPX_SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ull

/* The splitmix64 finaliser: a bijective 64-bit mix (also the generators' counter-based RNG). */
static inline uint64_t spx_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Advances *state and returns its next 64 random bits. */
static inline uint64_t spx_splitmix64(uint64_t *state)
{
    return spx_mix64(*state += SPX_SPLITMIX64_GAMMA);
}

/* A double uniform in [0, 1) from the top 53 bits of the next draw. */
static inline double spx_splitmix64_unit(uint64_t *state)
{
    return (double)(spx_splitmix64(state) >> 11) * 0x1.0p-53;
}

#endif
