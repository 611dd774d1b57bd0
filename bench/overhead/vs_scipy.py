#!/usr/bin/env python3
# bench/overhead/vs_scipy.py: spx's Python API against scipy on the CPU, in one run: plan.spmv(x, y) against scipy's A @ x on the default suite (median of repeated calls), and spx.spgemm(A, A) against scipy's A @ A on its smaller matrices (median of 3); prints a markdown table with the threads spx used (scipy is single-threaded). Usage: vs_scipy.py BUILD_PYTHON_DIR [THREADS]
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


def main():
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    ctx = spx.Context("cpu", threads=threads)
    print("spx threads %d, scipy single-threaded; times in ms (median)\n" % threads)
    print("| matrix | nnz | scipy A@x | spx plan.spmv | x | scipy A@A | spx.spgemm | x |")
    print("|---|---|---|---|---|---|---|---|")
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
            gx = median_time(lambda: spx.spgemm(A, A, context=ctx), 3)
            row += " %.1f | %.1f | %.2fx |" % (1e3 * gs, 1e3 * gx, gs / gx)
        else:
            row += " - | - | - |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
