#!/usr/bin/env python3
# bench/overhead/overhead.py: the median time of one plan.spmv(x, y) from Python on the matrix and settings of bench/overhead/overhead.c (gen:poisson2d:n=32, csr, CPU, 1 thread, 10,000 calls after 1,000 warm-ups). Usage: overhead.py BUILD_PYTHON_DIR
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
import spx  # noqa: E402

ctx = spx.Context("cpu", threads=1)
plan = spx.plan(spx.gen("gen:poisson2d:n=32", context=ctx), format="csr", context=ctx)
x, y = np.ones(plan.shape[1]), np.empty(plan.shape[0])
for _ in range(1000):
    plan.spmv(x, y)
times = []
for _ in range(10000):
    t0 = time.perf_counter_ns()
    plan.spmv(x, y)
    times.append(time.perf_counter_ns() - t0)
times.sort()
print("Python  median %.2f us per plan.spmv(x, y) (%d rows, %d calls)" % (times[5000] / 1e3, plan.shape[0], len(times)))
