/* src/formats/ehyb/ehyb_voronoi.h: the rules of ehyb's `voronoi` partitioner (graph Voronoi
 * cells: hashed seeds, then synchronous breadth-first rounds in which every unlabelled row takes
 * the best label among its columns'), one definition for the host (ehyb_voronoi.c) and the
 * device (ehyb_voronoi_cuda.cu, which defines SPX_EHYB_VORONOI_FN with __host__ __device__ before
 * including it), so both produce the same parts bit for bit. */
#ifndef SPX_FORMATS_EHYB_VORONOI_H
#define SPX_FORMATS_EHYB_VORONOI_H

#include <stdint.h>

/* A row no cell has reached yet. */
#define SPX_EHYB_VORONOI_NONE (-1)

#ifndef SPX_EHYB_VORONOI_FN
#define SPX_EHYB_VORONOI_FN static inline
#endif

/* A 32-bit integer mix (the same bits on every machine): seed choice and label priority. */
SPX_EHYB_VORONOI_FN uint32_t spx_ehyb_voronoi_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

/* The seed threshold for cells of `mean` rows on average (mean >= 1): a row v is a seed when
 * mix(v ^ salt) < threshold (probability 1 / mean). */
SPX_EHYB_VORONOI_FN uint64_t spx_ehyb_voronoi_threshold(int32_t mean)
{
    return mean <= 1 ? (uint64_t)1 << 32 : ((uint64_t)1 << 32) / (uint64_t)mean;
}

/* Whether row v starts a cell. */
SPX_EHYB_VORONOI_FN int spx_ehyb_voronoi_is_seed(int32_t v, uint64_t threshold)
{
    return (uint64_t)spx_ehyb_voronoi_mix((uint32_t)v ^ 0x5EEDu) < threshold;
}

/* Whether label a wins over label b (b == SPX_EHYB_VORONOI_NONE: none yet): the lower hash,
 * then the lower label; hashing keeps low-numbered seeds from winning every tie. */
SPX_EHYB_VORONOI_FN int spx_ehyb_voronoi_better(int32_t a, int32_t b)
{
    if (b == SPX_EHYB_VORONOI_NONE) return 1;
    const uint32_t ha = spx_ehyb_voronoi_mix((uint32_t)a), hb = spx_ehyb_voronoi_mix((uint32_t)b);
    return ha < hb || (ha == hb && a < b);
}

/* The label of row v when no cell reached it within the rounds: its block of `mean` rows,
 * as a negative number below SPX_EHYB_VORONOI_NONE (seed labels are rows, 0 .. n - 1). */
SPX_EHYB_VORONOI_FN int32_t spx_ehyb_voronoi_block_label(int32_t v, int32_t mean)
{
    return SPX_EHYB_VORONOI_NONE - 1 - v / (mean > 1 ? mean : 1);
}

#endif
