#!/usr/bin/env python3
# bench/overhead/vs_scipy.py: spx's Python API against scipy on the CPU, in one run: plan.spmv(x, y) against scipy's A @ x on the default suite (median of repeated calls), and spx.spgemm(A, A) against scipy's A @ A on its smaller matrices (median of 3; also A @ A followed by sort_indices, since scipy leaves C's columns unsorted and spx sorts them); prints a markdown table with the threads spx used (scipy is single-threaded). Usage: vs_scipy.py BUILD_PYTHON_DIR [THREADS]
import os
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
import spx  # noqa: E402
from suites import default_suite  # noqa: E402

SPGEMM_MAX_NNZ = 2_000_000


def median_time(fn, reps):
    """Median wall time of fn() over reps calls, after one warm-up."""
    fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return sorted(t)[len(t) // 2]


def sorted_product(A):
    """scipy's A @ A with its columns sorted, as spx returns C (scipy leaves them unsorted)."""
    C = A @ A
    C.has_sorted_indices = False
    C.sort_indices()
    return C


def main():
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    ctx = spx.Context("cpu", threads=threads)
    print("spx threads %d, scipy single-threaded; times in ms (median)\n" % threads)
    print("| matrix | nnz | scipy A@x | spx plan.spmv | x | scipy A@A | scipy A@A sorted | spx.spgemm | x | x sorted |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in default_suite():  # tools/cmd_bench.c's default suite
        M = spx.gen(spec, context=ctx)
        A = M.to_scipy()
        plan = spx.plan(M, format="auto", context=ctx)
        x, y = np.ones(A.shape[1]), np.empty(A.shape[0])
        ts = median_time(lambda: A @ x, 20)
        tx = median_time(lambda: plan.spmv(x, y), 20)
        row = "| %s | %d | %.3f | %.3f | %.2fx |" % (spec, A.nnz, 1e3 * ts, 1e3 * tx, ts / tx)
        if A.nnz <= SPGEMM_MAX_NNZ and A.shape[0] == A.shape[1]:
            gs = median_time(lambda: A @ A, 3)
            gss = median_time(lambda: sorted_product(A), 3)
            gx = median_time(lambda: spx.spgemm(A, A, context=ctx), 3)
            row += " %.1f | %.1f | %.1f | %.2fx | %.2fx |" % (1e3 * gs, 1e3 * gss, 1e3 * gx, gs / gx, gss / gx)
        else:
            row += " - | - | - | - | - |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
