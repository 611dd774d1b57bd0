#!/usr/bin/env python3
"""scripts/dist_model.py: the scaling model of docs/distributed.md, evaluated for row-block
partitions of the large suite's structured matrices and a 1-billion-nonzero stencil.

Time per SpMV of one rank = local bytes / memory bandwidth + halo bytes / link bandwidth
+ latency x neighbour messages (the additive form `spx spmv --distributed` prints), and the
overlapped form max(diagonal block / memory, exchange) + off-diagonal block / memory, which is
what posting the exchange before the diagonal product aims at. The ranks' halos are computed
from the row-block (lexicographic slab) partition analytically; R-MAT's from the expected
number of distinct columns a rank's rows touch (random permutation: the owners are uniform).

Usage: scripts/dist_model.py [--hbm GB/s] [--link GB/s] [--latency us] [--ranks 1,2,8,64,512]
Defaults are assumptions for H100s (HBM: the device copy bandwidth measured in
bench/results, about 3000 GB/s; link: 25 GB/s per direction, host-staged through PCIe 5 and
MPI shared memory or InfiniBand NDR; latency: 15 us per message including the staging copies'
synchronisation), to be replaced by the 2-GPU measurement (docs/distributed.md)."""
import argparse
import math


def stencil(n, points):
    """Rows, nonzeros and the per-rank halo function of an n^3 stencil (7 or 27 points)."""
    m = n ** 3
    nnz = 7 * m - 6 * n * n if points == 7 else 27 * m - 54 * n * n  # boundary rows have fewer
    reach = n * n + (n + 1 if points == 27 else 0)  # farthest column offset from the row

    def halo(p):
        rows = m / p
        if p == 1:
            return 0.0, 0
        ghosts = 2 * min(reach, rows) if rows >= n * n else 2 * min(rows + (n + 1 if points == 27 else 0), reach)
        nbrs = 2 * max(1, math.ceil(reach / rows))
        return ghosts, min(nbrs, p - 1)

    return m, nnz, halo


def rmat(scale, nnz):
    """R-MAT with a random vertex permutation: a rank's rows touch distinct columns ~ n (1 - e^(-k/n))."""
    m = 2 ** scale

    def halo(p):
        if p == 1:
            return 0.0, 0
        k = nnz / p  # nonzeros of one rank
        distinct = m * (1 - math.exp(-k / m))
        return distinct * (1 - 1 / p), p - 1

    return m, nnz, halo


def model(m, nnz, halo, p, hbm, link, lat):
    """(additive, overlapped) seconds per SpMV of the busiest rank."""
    rows, nz = m / p, nnz / p
    ghosts, nbrs = halo(p)
    frac_off = min(1.0, ghosts / max(rows, 1) / 7) if p > 1 else 0.0  # off-diagonal share of entries (rough)
    local = nz * 12 + rows * (4 + 8 + 8) + (rows + ghosts) * 8  # values + int32 cols, row ptr, y, x
    exch = ghosts * 8 / link + nbrs * lat if p > 1 else 0.0
    off = local * frac_off
    return local / hbm + exch, max(local - off, 0) / hbm if p == 1 else max((local - off) / hbm, exch) + off / hbm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hbm", type=float, default=3000.0, help="memory bandwidth per GPU, GB/s")
    ap.add_argument("--link", type=float, default=25.0, help="halo bandwidth per GPU and direction, GB/s")
    ap.add_argument("--latency", type=float, default=15.0, help="per neighbour message, us")
    ap.add_argument("--ranks", default="1,2,8,64,512")
    a = ap.parse_args()
    hbm, link, lat = a.hbm * 1e9, a.link * 1e9, a.latency * 1e-6
    cases = [("poisson3d n=300", stencil(300, 7)), ("stencil27 n=160", stencil(160, 27)),
             ("rmat scale=23 (131M nnz)", rmat(23, 131163192)), ("poisson3d n=523 (1.0e9 nnz)", stencil(523, 7))]
    ranks = [int(x) for x in a.ranks.split(",")]
    print(f"hbm {a.hbm:.0f} GB/s, link {a.link:.0f} GB/s, latency {a.latency:.0f} us")
    print(f"{'matrix':30} {'P':>5} {'ghosts/rank':>12} {'nbrs':>5} {'additive ms':>12} {'overlap ms':>11} {'eff add':>8} {'eff ovl':>8}")
    for name, (m, nnz, halo) in cases:
        t1 = model(m, nnz, halo, 1, hbm, link, lat)[0]
        for p in ranks:
            add, ovl = model(m, nnz, halo, p, hbm, link, lat)
            g, nb = halo(p)
            print(f"{name:30} {p:5d} {g:12.0f} {nb:5d} {add * 1e3:12.4f} {ovl * 1e3:11.4f} {t1 / (p * add):8.2f} {t1 / (p * ovl):8.2f}")


if __name__ == "__main__":
    main()
