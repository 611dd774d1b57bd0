# python/tests/test_threads.py: the GIL is released while spx computes (another Python thread keeps running during a long solve), and threads sharing one context or plan get correct results (the context's lock serialises them).
import threading
import time

import numpy as np
import scipy.sparse as sp

import spx
from conftest import assert_spmv, random_csr, vector


def test_gil_is_released_during_a_long_call():
    ctx = spx.Context("cpu", threads=1)  # one core for spx, the other for the main thread
    n = 250
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    p = spx.plan(sp.csr_array(sp.kronsum(T, T)), context=ctx)
    b = vector(n * n)
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=spx.cg(p, b, rtol=1e-30, maxiter=1500, full_output=True)))
    gaps, last = [], time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    seconds = out["r"][2].seconds
    assert out["r"][2].iterations > 100
    assert seconds > 0.1, "the solve was too short to tell"
    assert max(gaps) < 0.75 * seconds, f"the main thread stalled {max(gaps):.3f} s of a {seconds:.3f} s solve"


def test_threads_sharing_a_context_and_a_plan():
    ctx = spx.Context("cpu", threads=1)
    A = random_csr(400, 300, 8, seed=61)
    p = spx.plan(A, context=ctx)
    errors = []

    def work(seed):
        try:
            for k in range(50):
                x = vector(300, seed=seed * 100 + k)
                assert_spmv(p @ x, A, x, np.float64)
                q = spx.plan(A, format="csr", context=ctx)  # plans made meanwhile on the same context
                assert_spmv(q @ x, A, x, np.float64)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert p.stats["spmv_calls"] >= 200
