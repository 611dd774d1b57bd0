#!/usr/bin/env bash
# scripts/gpu-check.sh OUTDIR [STAGE...]: everything the GPU machine proves, in one script:
#   build     Release build for sm_90 (CUDA backend required)
#   test      the whole test suite with the GPU tests enabled
#   sanitize  compute-sanitizer memcheck and racecheck on the GPU tests and on one small
#             run of every GPU kernel
#   default   spx bench --backend cuda on the built-in default suite
#   large     spx bench --backend cuda on bench/suites/large.txt
#   cold      the large suite again, L2 flushed before every run (the default algorithm of
#             every format and cuSPARSE ALG1)
#   shared    every shared matrix (bench/suites/shared.txt), every format, fp64 and fp32
#   large32   the large suite in fp32 (every format's default algorithm, cuSPARSE ALG1/ALG2)
#   spgemm    spx bench --op spgemm on the GPU: A*A on bench/suites/spgemm-large.txt, A*A^T
#             on bench/suites/spgemm.txt (spx and cuSPARSE ALG1-3, verified by the CPU oracle)
#   spgemm-call the whole SpGEMM call from device operands and the context's memory pool (issue
#             48, docs/design.md "Memory"): test_gpu_memory alone (the async contract, the
#             pool's reuse and drop), test_spgemm_dev's pool cases and test_spgemm_gpu (quick:
#             its sweep's block and pool checks run in the test stage) beside compute-sanitizer
#             memcheck on test_spgemm_dev's pool cases (quick: one injected sweep); then spx bench --op
#             spgemm --methods spx on poisson3d n=60, luxembourg_osm, bcsstk29, finan512_pattern:
#             the first call (cold pool) and the steady median with their phases
#             (scripts/spgemm_call_report.py); about a minute (predicted)
#   spmm      SpMM on CUDA plans (docs/spmm.md): tests/test_spmm_gpu (every GPU format, device
#             blocks, k in 1 2 3 8 33, both layouts, fp64 and fp32, against the oracle; csr's own
#             kernels at k 31..256 and on long rows; cuSPARSE SpMM alg1..3), the same test's quick
#             subset under compute-sanitizer memcheck, spx spmm --backend cuda for csr and
#             cusparse/alg1..3 on poisson3d n=100 (k 8 and 32, both layouts: kernel, times,
#             verified), then spx bench --op spmm --k 1,8,32 on bench/suites/spmm.txt, row-major
#             (csr against the fastest cuSPARSE algorithm and k SpMVs); ~3 minutes (predicted)
#   spgemm-cpu the CPU Gustavson on all cores against one (--cpu-scaling) and against scipy's
#             single-threaded A @ B (scripts/spgemm_scipy_check.py --time)
#   solve     the solvers on the GPU: test_solve (every test on CUDA too), test_solve_steps (the
#             fused steps and the graph), then spx solve's CG against CuPy's cg
#             (scripts/solve_cupy_check.py: iterations within 2 %, time per iteration, the floor)
#   solvepersist the persistent CG and BiCGSTAB kernels (issue 49; docs/solvers.md):
#             tests/test_solve_persistent (the kernels against the graph path: counts, x; two runs
#             the same bits; the caps, breakdowns, n = 0 and 1, fp32, the fallbacks), its quick
#             cases under compute-sanitizer memcheck and racecheck, then CG by spx solve
#             --solver-path graph and persistent side by side on bcsstk15 and bcsstk16 (Jacobi),
#             poisson3d n=40 and stencil27 n=60 (both): ms/iteration, the floor, the ratio, the
#             counts (CuPy's cg beside them where CuPy is there; scripts/solve_cupy_check.py
#             --solver-path graph,persistent); BiCGSTAB on cage10 (Jacobi) on both paths;
#             1-2 minutes (predicted)
#   python    the Python module's figures (issue 16): per-call overhead against C on the host
#             and the device (bench/overhead/run.sh --backend all), then plan.spmv on CuPy
#             arrays against cupyx's A @ x on the default and large suites in fp64 (and the
#             default suite in fp32) beside spx bench's auto / cuSPARSE ratios
#             (bench/overhead/vs_cupy.py; the default and large stages' JSON when they cover
#             the suites, else spx bench --formats auto,cusparse run here)
#   gate      the performance gate (scripts/perf_gate.py): `auto` against cuSPARSE ALG1 on
#             bench/suites/gate.txt, SPX_GATE_RUNS processes (default 5), each matrix's ratio
#             against bench/gate/baseline-<device kind>.json; fails when one drops by more than
#             10 % beyond its recorded spread. About a minute on an H100 (predicted). To see it fail,
#             SPX_BENCH_DEMO_SLOWDOWN=0.2 scripts/gpu-check.sh OUT gate (auto does 20 % more work;
#             refused with any stage but build and gate)
#   peers     the public peers beside spx (issue 48, bench/peers/README.md): DASP (SpMV) on the
#             shared matrices and ../shared/PEERS.md's generated ones, spECK (as shipped and with
#             the H100's 227 KB of shared memory), OpSparse and nsparse (SpGEMM, C = A*A) on
#             PEERS.md's products and bench/suites/spgemm.txt, each run verified, spx bench on the
#             same matrices in the same session; tables in OUTDIR/peers-spmv.md, peers-spgemm.md.
#             Binaries from SPX_PEERS_BIN (default .device/peers-bin, bench/peers/build.sh's
#             output) when there, else built from SPX_PEERS_SRC (default .device/peers-src).
#             SPX_PEERS_QUICK=1: a short set (bench/peers/suites/quick-*.txt, ~1-2 minutes);
#             SPX_PEERS_LARGE=1 adds bench/suites/large.txt and spgemm-large.txt (minutes more);
#             SPX_PEERS_SPMV_SUITES, SPX_PEERS_SPGEMM_SUITES (suite files) replace the sets
# With no STAGE: build test sanitize default large cold (the others on request). Every call
# ends with scripts/results_page.py's preview of bench/RESULTS.md with this run's JSON added
# (OUTDIR/RESULTS-preview.md; commit the run's folder and rerun the script to make it the page).
# SPX_LARGE_FORMATS (a --formats list) and SPX_LARGE_SUITE narrow the large stage.
# Logs and JSON results go to OUTDIR. SPX_COMMIT names
# the commit in the results where the tree has no .git (the GPU machine gets a bare copy).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:?usage: scripts/gpu-check.sh OUTDIR [build|test|sanitize|default|large|...|python]...}
shift
mkdir -p "$out"
stages=${*:-build test sanitize default large cold}
# The gate's demonstration switch slows every spx bench of the call: allowed with the gate alone.
if [ -n "${SPX_BENCH_DEMO_SLOWDOWN:-}" ] && [ -n "$(echo " $stages " | sed 's/ build / /g; s/ gate / /g' | tr -d ' ')" ]; then
  echo "gpu-check.sh: SPX_BENCH_DEMO_SLOWDOWN is for the gate stage alone (stages: $stages)" >&2
  exit 2
fi
jobs=$(nproc)
status=0
# ../shared does not travel to the GPU machine: a copy carried in .device/matrices stands in
if [ ! -d ../shared/matrices ] && [ -d .device/matrices ]; then
  mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
fi
# METIS (the ehyb format) cannot be installed there: Debian's libmetis5 and libmetis-dev
# unpacked with dpkg -x into .device/metis travel with the tree; CMake finds them there.
[ -d .device/metis ] || echo "note: no .device/metis (scripts/device-metis.sh makes it): ehyb will be built without METIS" >&2
log() { echo "== $* ==" | tee -a "$out/summary.txt"; }

has() { [[ " $stages " == *" $1 "* ]]; }

# sanitize_persist CS: the persistent kernels' quick cases (tests/test_solve_persistent,
# SPX_SOLVE_TEST_QUICK=1) under memcheck and racecheck, in the background (the caller waits)
sanitize_persist() {
  for tool in memcheck racecheck; do
    SPX_SOLVE_TEST_QUICK=1 timeout 400 "$1" --tool "$tool" --error-exitcode 99 build-gpu/tests/test_solve_persistent \
      >"$out/sanitize-$tool-solve-persistent.log" 2>&1 &
  done
}

# sanitize_verdict LOG...: each log's summary line into the summary; status 1 unless every one
# reports 0 errors (or hazards) and 0 failed checks
sanitize_verdict() {
  for log in "$@"; do
    ok=$(grep -cE '(ERROR|RACECHECK) SUMMARY: 0 (errors|hazards)' "$log")
    echo "$(basename "$log" .log): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' "$log" | tr '\n' ' ')" \
      | tee -a "$out/summary.txt"
    { [ "$ok" -ge 1 ] && grep -q ' 0 failed' "$log"; } || status=1
  done
}

if has build || [ ! -x build-gpu/spx ]; then
  log "build (sm_90)"
  # shellcheck disable=SC2015 # (configure or build failing: the log's tail, then exit)
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    ${SPX_COMMIT:+-DSPX_GIT_COMMIT=$SPX_COMMIT} \
    >"$out/build.log" 2>&1 && cmake --build build-gpu -j"$jobs" >>"$out/build.log" 2>&1 \
    || { tail -40 "$out/build.log"; log "build FAILED"; exit 1; }
  build-gpu/spx --version | tee -a "$out/summary.txt"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv \
    | tee -a "$out/summary.txt" || true
fi
spx=build-gpu/spx
# the default algorithm of every format built here, the baseline's first (e.g. cusparse,csr,...)
default_formats=$($spx formats --json | python3 -c 'import json,sys
fs=json.load(sys.stdin)["formats"]
fs=[f for f in fs if f["available"] and f.get("cuda", True)]
fs.sort(key=lambda f: not f["baseline"])
print(",".join(f["name"] for f in fs))')

if has test; then
  log "test"
  ctest --test-dir build-gpu --output-on-failure -j4 >"$out/test.log" 2>&1 || status=1
  tail -15 "$out/test.log" | tee -a "$out/summary.txt"
  # the GPU test once more on its own, for its log (device, COO->CSR sort times, errors)
  build-gpu/tests/test_gpu >"$out/test-gpu.log" 2>&1 || status=1
  grep -E "^device|COO -> CSR|device [0-9.]+ ms|passed," "$out/test-gpu.log" | tee -a "$out/summary.txt"
  # device allocation failures, device budget, caller stream, device != 0
  build-gpu/tests/test_gpu_memory >"$out/test-gpu-memory.log" 2>&1 || status=1
  tail -n 25 "$out/test-gpu-memory.log" | tee -a "$out/summary.txt"
  build-gpu/tests/test_vec >"$out/test-vec.log" 2>&1 || status=1
  tail -n 3 "$out/test-vec.log" | tee -a "$out/summary.txt"
fi

if has sanitize; then
  # test_gpu runs every algorithm of every GPU format (and the COO->CSR sort) on the edge
  # cases and generated matrices, through the public API: the small run of every kernel
  log "compute-sanitizer"
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  # one process per format and tool, in parallel (the sanitizers are CPU-bound on the host)
  fmts=$($spx formats --json | python3 -c 'import json,sys; print(" ".join(f["name"] for f in json.load(sys.stdin)["formats"] if f["available"]))')
  # hbp's five algorithms (each built on the host and the device) take one process each
  units=$(for f in $fmts; do if [ "$f" = hbp ]; then echo hbp/auto hbp/hash hbp/hash_atomic hbp/sort hbp/band; else echo "$f"; fi; done)
  for tool in memcheck racecheck; do
    for f in $units; do
      # racecheck flags hazards inside cuSPARSE's own csrmv kernel (not ours): leave it out there
      [ "$tool" = racecheck ] && [ "$f" = cusparse ] && continue
      SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=$f timeout 400 "$cs" --tool "$tool" --error-exitcode 99 \
        build-gpu/tests/test_gpu >"$out/sanitize-$tool-${f/\//-}.log" 2>&1 &
    done
  done
  # SpGEMM's GPU methods (test_spgemm_gpu: every method on edge cases and generated matrices)
  # (racecheck: without cuSPARSE, whose kernels it flags, and without the allocation sweep)
  timeout 400 "$cs" --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu \
    >"$out/sanitize-memcheck-spgemm.log" 2>&1 &
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 400 "$cs" --tool racecheck --error-exitcode 99 \
    build-gpu/tests/test_spgemm_gpu >"$out/sanitize-racecheck-spgemm.log" 2>&1 &
  for t in csr_dev spgemm_dev plan_dev; do SPX_GPU_TEST_QUICK=1 timeout 400 "$cs" --tool memcheck --error-exitcode 99 build-gpu/tests/test_$t >"$out/sanitize-memcheck-$t.log" 2>&1 & done # device CSRs in: wrap checks, SpGEMM (C on the device), SpMV plans
  # the out-of-core panels (B resident and in column blocks, hetero and GPU-only)
  SPX_GPU_TEST_QUICK=1 timeout 400 "$cs" --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_ooc_gpu \
    >"$out/sanitize-memcheck-spgemm-ooc.log" 2>&1 &
  # the solvers' fused step kernels (every step, fp64 and fp32, with and without Jacobi), the
  # scalar block's last-block finishers and the captured iteration (test_solve_steps' small cases)
  for tool in memcheck racecheck; do
    SPX_SOLVE_TEST_QUICK=1 timeout 400 "$cs" --tool "$tool" --error-exitcode 99 build-gpu/tests/test_solve_steps \
      >"$out/sanitize-$tool-solve-steps.log" 2>&1 &
  done
  sanitize_persist "$cs" # the persistent kernels (grid-wide barriers, the scalar block in shared memory)
  wait
  logs=()
  for log in "$out"/sanitize-memcheck-*.log "$out"/sanitize-racecheck-*.log; do
    case $log in *-memory.log|*-vec.log|*-cli.log) continue ;; esac
    logs+=("$log")
  done
  sanitize_verdict "${logs[@]}"
  for f in $fmts; do [ -e "build-gpu/tests/test_${f}_gpu" ] || continue
    "$cs" --tool memcheck --error-exitcode 99 "build-gpu/tests/test_${f}_gpu" >"$out/sanitize-memcheck-$f-gpu.log" 2>&1 || status=1
    echo "memcheck test_${f}_gpu: $(grep -E 'ERROR SUMMARY|passed,' "$out/sanitize-memcheck-$f-gpu.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
  done
  "$cs" --tool memcheck --error-exitcode 99 build-gpu/tests/test_vec >"$out/sanitize-memcheck-vec.log" 2>&1 || status=1
  echo "memcheck test_vec: $(grep -E 'ERROR SUMMARY|passed,' "$out/sanitize-memcheck-vec.log" | tr '\n' ' ')" \
    | tee -a "$out/summary.txt"
  "$cs" --tool memcheck --leak-check full --error-exitcode 99 build-gpu/tests/test_gpu_memory \
    >"$out/sanitize-memcheck-memory.log" 2>&1 || status=1
  echo "memcheck test_gpu_memory: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY|passed,' "$out/sanitize-memcheck-memory.log" | tr '\n' ' ')" \
    | tee -a "$out/summary.txt"
  "$cs" --tool memcheck --error-exitcode 99 $spx spmv gen:powerlaw:m=3000,k=6 --backend cuda --reps 2 --warmup 1 \
    >"$out/sanitize-memcheck-cli.log" 2>&1 || status=1
  echo "memcheck spx spmv (csr auto + cusparse baseline): $(grep -E 'ERROR SUMMARY|verified' "$out/sanitize-memcheck-cli.log" | tr '\n' ' ')" \
    | tee -a "$out/summary.txt"
fi

if has default; then
  log "bench: default suite"
  $spx bench --backend cuda --json "$out/bench-default.json" --csv "$out/bench-default.csv" \
    >"$out/bench-default.txt" 2>"$out/bench-default.err" || status=1
  cat "$out/bench-default.txt"
fi

if has large; then
  log "bench: large suite"
  $spx bench --backend cuda --suite "${SPX_LARGE_SUITE:-bench/suites/large.txt}" --formats "${SPX_LARGE_FORMATS:-all}" \
    --json "$out/bench-large.json" \
    --csv "$out/bench-large.csv" >"$out/bench-large.txt" 2>"$out/bench-large.err" || status=1
  cat "$out/bench-large.txt"
fi

if has cold; then
  log "bench: large suite, cold L2"
  $spx bench --backend cuda --cold --suite bench/suites/large.txt --formats "$default_formats" \
    --json "$out/bench-large-cold.json" >"$out/bench-large-cold.txt" 2>"$out/bench-large-cold.err" || status=1
  cat "$out/bench-large-cold.txt"
fi

if has shared; then
  for prec in fp64 fp32; do
    log "bench: shared matrices, $prec"
    $spx bench --backend cuda --precision $prec --suite bench/suites/shared.txt \
      --json "$out/bench-shared-$prec.json" --csv "$out/bench-shared-$prec.csv" \
      >"$out/bench-shared-$prec.txt" 2>"$out/bench-shared-$prec.err" || status=1
    tail -n 5 "$out/bench-shared-$prec.txt"
  done
fi

if has large32; then
  log "bench: large suite, fp32"
  $spx bench --backend cuda --precision fp32 --suite bench/suites/large.txt --formats "$default_formats,cusparse/alg2" \
    --json "$out/bench-large-fp32.json" --csv "$out/bench-large-fp32.csv" \
    >"$out/bench-large-fp32.txt" 2>"$out/bench-large-fp32.err" || status=1
  cat "$out/bench-large-fp32.txt"
fi

if has spgemm; then
  log "bench: SpGEMM, A*A on the large suite"
  $spx bench --op spgemm --backend cuda --reps 3 --suite bench/suites/spgemm-large.txt \
    --json "$out/spgemm-large.json" >"$out/spgemm-large.txt" 2>"$out/spgemm-large.err" || status=1
  cat "$out/spgemm-large.txt"
  log "bench: SpGEMM, A*A^T on the quick suite"
  $spx bench --op spgemm --backend cuda --transpose-b --suite bench/suites/spgemm.txt \
    --json "$out/spgemm-aat.json" >"$out/spgemm-aat.txt" 2>"$out/spgemm-aat.err" || status=1
  cat "$out/spgemm-aat.txt"
fi

if has spgemm-call; then
  log "spgemm-call: the whole SpGEMM call from device operands, the context's memory pool"
  # test_gpu_memory first and alone: it compares the device's free memory before and after
  build-gpu/tests/test_gpu_memory >"$out/call-gpu-memory.log" 2>&1 || status=1
  grep -E "stream-ordered|caller's device allocator|CHECK failed|passed," "$out/call-gpu-memory.log" \
    | tee -a "$out/summary.txt"
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  SPX_GPU_TEST_POOL_ONLY=1 SPX_GPU_TEST_QUICK=1 timeout 300 "$cs" --tool memcheck --error-exitcode 99 \
    build-gpu/tests/test_spgemm_dev >"$out/call-memcheck-spgemm-dev.log" 2>&1 &
  memcheck=$!
  SPX_GPU_TEST_POOL_ONLY=1 build-gpu/tests/test_spgemm_dev >"$out/call-spgemm-dev.log" 2>&1 &
  dev=$!
  SPX_GPU_TEST_QUICK=1 build-gpu/tests/test_spgemm_gpu >"$out/call-spgemm-gpu.log" 2>&1 &
  gpu=$!
  for pid in "$memcheck" "$dev" "$gpu"; do wait "$pid" || status=1; done
  grep -E "pool |C after|caller's device hooks|CHECK failed|passed," "$out/call-spgemm-dev.log" | tee -a "$out/summary.txt"
  grep -E "CHECK failed|passed," "$out/call-spgemm-gpu.log" | tee -a "$out/summary.txt"
  echo "memcheck test_spgemm_dev (pool cases): $(grep -E 'ERROR SUMMARY|passed,' "$out/call-memcheck-spgemm-dev.log" \
    | tr '\n' ' ')" | tee -a "$out/summary.txt"
  $spx bench --op spgemm --backend cuda --methods spx --reps 11 gen:poisson3d:n=60 \
    ../shared/matrices/luxembourg_osm.mtx.gz ../shared/matrices/bcsstk29.mtx.gz \
    ../shared/matrices/finan512_pattern.mtx.gz --json "$out/spgemm-call.json" \
    >"$out/spgemm-call.txt" 2>"$out/spgemm-call.err" || status=1
  python3 scripts/spgemm_call_report.py "$out/spgemm-call.json" | tee -a "$out/summary.txt" || status=1
fi

if has spmm; then
  log "spmm: test_spmm_gpu (+ memcheck on its quick subset), spx spmm (csr, cusparse/alg1..3), spx bench --op spmm"
  build-gpu/tests/test_spmm_gpu >"$out/test-spmm-gpu.log" 2>&1 || status=1
  grep -E "CHECK failed|refused|passed," "$out/test-spmm-gpu.log" | head -20 | tee -a "$out/summary.txt"
  src=gen:poisson3d:n=100
  for f in csr cusparse/alg1 cusparse/alg2 cusparse/alg3; do
    for k in 8 32; do
      for layout in row col; do
        j="$out/spmm-${f/\//-}-k$k-$layout.json"
        "$spx" spmm "$src" --format "$f" --k "$k" \
          --layout "$layout" --backend cuda --reps 30 --json >"$j" 2>>"$out/spmm.err" || { status=1; tail -1 "$out/spmm.err"; }
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; print("%s k=%d %s: %s/%s %s fallback=%d t=%.4f ms batch=%.4f ms %.1f GFLOPS %.0f GB/s verified=%d" % (r["matrix"], r["k"], r["layout"], r["format"], r["algo"], r["kernel"], r["fallback"], r["t_median_s"]*1e3, (r["t_batch_s"] or 0)*1e3, r["gflops"], r["gbytes_batch"] or 0, r["verified"]))' "$j" \
          2>/dev/null | tee -a "$out/summary.txt"
      done
    done
  done
  $spx bench --op spmm --k 1,8,32 --backend cuda --suite bench/suites/spmm.txt \
    --formats csr,cusparse/alg1,cusparse/alg2,cusparse/alg3 --reps 30 --json "$out/bench-spmm.json" \
    >"$out/bench-spmm.txt" 2>"$out/bench-spmm.err" || status=1
  cat "$out/bench-spmm.txt"
  # the kernels under memcheck last (alone on the GPU: the timings above are not disturbed)
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  SPX_GPU_TEST_QUICK=1 timeout 150 "$cs" --tool memcheck --error-exitcode 99 build-gpu/tests/test_spmm_gpu \
    >"$out/sanitize-memcheck-spmm.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|passed," "$out/sanitize-memcheck-spmm.log" | tee -a "$out/summary.txt"
fi

if has spgemm-cpu; then
  log "bench: SpGEMM on the CPU, all threads against one and against scipy"
  $spx bench --op spgemm --backend cpu --cpu-scaling --reps 3 --suite "${SPX_SPGEMM_CPU_SUITE:-bench/suites/spgemm-large.txt}" \
    --json "$out/spgemm-cpu.json" >"$out/spgemm-cpu.txt" 2>"$out/spgemm-cpu.err" || status=1
  cat "$out/spgemm-cpu.txt"
  python3 scripts/spgemm_scipy_check.py --spx "$spx" --time --reps 3 --json "$out/spgemm-scipy.json" \
    gen:poisson3d:n=100 gen:stencil27:n=60 gen:rmat:scale=16,ef=16 ../shared/matrices/bcsstk29.mtx.gz \
    >"$out/spgemm-scipy.txt" 2>&1 || status=1
  cat "$out/spgemm-scipy.txt"
fi

if has solve; then
  log "solve: test_solve on the GPU, spx solve against CuPy's cg"
  build-gpu/tests/test_solve >"$out/test-solve.log" 2>&1 || status=1
  tail -n 3 "$out/test-solve.log" | tee -a "$out/summary.txt"
  # the fused steps: reads every 1..128 iterations give the same bits on the GPU, csr's iteration
  # a replayed graph, and every format's graph / read figures
  build-gpu/tests/test_solve_steps >"$out/test-solve-steps.log" 2>&1 || status=1
  grep -E "^cuda |CHECK failed|passed," "$out/test-solve-steps.log" | tee -a "$out/summary.txt"
  python3 scripts/solve_cupy_check.py --spx "$spx" --json "$out/solve-cupy.json" --md "$out/solve-cupy.md" \
    >"$out/solve-cupy.txt" 2>&1
  rc=$?
  [ $rc = 0 ] || { [ $rc = 77 ] && echo "solve_cupy_check skipped (no CuPy)" | tee -a "$out/summary.txt"; } || status=1
  cat "$out/solve-cupy.txt"
fi

if has solvepersist; then
  log "solvepersist: the persistent kernels against the graph path"
  t0=$SECONDS
  build-gpu/tests/test_solve_persistent >"$out/test-solve-persistent.log" 2>&1 || status=1
  grep -E "^cuda |CHECK failed|passed,|^gpu part" "$out/test-solve-persistent.log" | tee -a "$out/summary.txt"
  sanitize_persist "$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  wait
  sanitize_verdict "$out/sanitize-memcheck-solve-persistent.log" "$out/sanitize-racecheck-solve-persistent.log"
  python3 scripts/solve_cupy_check.py --spx "$spx" --solver-path graph,persistent --allow-no-cupy \
    --json "$out/solve-persist.json" --md "$out/solve-persist.md" \
    ../shared/matrices/bcsstk15.mtx.gz@jacobi ../shared/matrices/bcsstk16.mtx.gz@jacobi \
    gen:poisson3d:n=40,laplace=1@none gen:stencil27:n=60,laplace=1@both >"$out/solve-persist.txt" 2>&1 || status=1
  if [ -f "$out/solve-persist.md" ]; then tee -a "$out/summary.txt" <"$out/solve-persist.md"; else tail -n 20 "$out/solve-persist.txt"; fi
  # BiCGSTAB (CuPy has none): the same solve on both paths, the counts and times side by side
  for p in graph persistent; do
    $spx solve ../shared/matrices/cage10.mtx.gz --method bicgstab --precond jacobi --backend cuda --solver-path $p \
      --json "$out/solve-persist-bicgstab-$p.json" >"$out/solve-persist-bicgstab-$p.txt" 2>&1 || status=1
  done
  python3 -c 'import json, sys
f = lambda v, scale, fmt: "-" if v is None else fmt % (v * scale)
for p in ("graph", "persistent"):
    r = json.load(open(sys.argv[1] % p))["result"]
    print("bicgstab+jacobi cage10 %-10s ran %-10s %4d iterations  %s ms/it  floor %s ms  %s the floor  (%s)" % (
        p, r["path"], r["iterations"], f(r["iter_s"], 1e3, "%.4f"), f(r["floor_s"], 1e3, "%.4f"),
        f(r["iter_over_floor"], 1, "%.2fx"), r["path_reason"]))' \
    "$out/solve-persist-bicgstab-%s.json" 2>&1 | tee -a "$out/summary.txt"
  echo "solvepersist stage: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
fi

# Whether spx bench's JSON $1 has an auto and a cuSPARSE (baseline) row for every matrix of suite $2.
covers() {
  python3 -c 'import json, sys
sys.path.insert(0, "bench/overhead")
from suites import suite
rows = json.load(open(sys.argv[1]))["results"]
have = {(r["matrix"], r.get("requested_format") == "auto") for r in rows if r.get("status") == "SPX_OK"
        and (r.get("requested_format") == "auto" or r["format"] + "/" + r["algo"] == r.get("baseline"))}
sys.exit(not all((s, a) in have for s in suite(sys.argv[2]) for a in (True, False)))' "$1" "$2" 2>/dev/null
}

# c_json NAME SUITE PRECISION: "--c-json FILE" for vs_cupy.py, FILE spx bench's JSON of SUITE with
# auto and cuSPARSE rows: the default or large stage's (bench-NAME.json) when it covers the
# suite, else a run of just those two formats made here; nothing when that run failed.
c_json() {
  local json=$out/bench-$1.json suite=()
  [ "$2" = default ] || suite=(--suite "$2")
  if [ "$3" != fp64 ] || ! covers "$json" "$2"; then
    json=$out/python-c-$1-$3.json
    $spx bench --backend cuda --precision "$3" --formats auto,cusparse "${suite[@]}" --json "$json" \
      >"$out/python-c-$1-$3.txt" 2>&1 || echo "spx bench $1 $3 failed (see python-c-$1-$3.txt)" >&2
  fi
  if [ -f "$json" ]; then echo "--c-json $json"; fi
}

# vs_cupy LARGE_SUITE: bench/overhead/vs_cupy.py on the default and large suites in fp64, then
# the default suite in fp32, each beside spx bench's ratios; 0, 77 (CuPy or a GPU missing) or
# a failure.
vs_cupy() {
  local c64 c32 rc=0
  read -r -a c64 <<<"$(c_json default default fp64) $(c_json large "$1" fp64)"
  read -r -a c32 <<<"$(c_json default default fp32)"
  python3 bench/overhead/vs_cupy.py build-gpu/python --suite default --suite "$1" --precision fp64 "${c64[@]}" \
    --json "$out/python-vs-cupy.json" --md "$out/python-vs-cupy.md" >"$out/python-vs-cupy.txt" \
    2>"$out/python-vs-cupy.err" || rc=$?
  [ $rc = 0 ] || return $rc
  python3 bench/overhead/vs_cupy.py build-gpu/python --suite default --precision fp32 "${c32[@]}" \
    --json "$out/python-vs-cupy-fp32.json" --md "$out/python-vs-cupy-fp32.md" \
    >"$out/python-vs-cupy-fp32.txt" 2>"$out/python-vs-cupy-fp32.err"
}

if has python; then
  log "python: per-call overhead against C, plan.spmv against cupyx (default and large suites)"
  t0=$SECONDS
  if ! compgen -G "build-gpu/python/spx/_spx*.so" >/dev/null; then
    echo "no Python module in build-gpu/python (configure found no Python headers: python3-dev)" \
      | tee -a "$out/summary.txt"
    status=1
  else
    bash bench/overhead/run.sh --backend all build-gpu >"$out/python-overhead.txt" 2>&1 || status=1
    tee -a "$out/summary.txt" <"$out/python-overhead.txt"
    if ! python3 -c 'import cupy, cupyx.scipy.sparse' 2>/dev/null; then
      echo "vs_cupy.py skipped: CuPy not available to python3" | tee -a "$out/summary.txt"
    else
      rc=0
      vs_cupy "${SPX_LARGE_SUITE:-bench/suites/large.txt}" || rc=$?
      case $rc in
        0) cat "$out/python-vs-cupy.txt" "$out/python-vs-cupy-fp32.txt"
           grep -h -E "matrices; " "$out/python-vs-cupy.txt" "$out/python-vs-cupy-fp32.txt" >>"$out/summary.txt" ;;
        77) tee -a "$out/summary.txt" <"$out/python-vs-cupy.txt" ;;
        *) cat "$out"/python-vs-cupy*.txt
           tail -n 20 "$out"/python-vs-cupy*.err
           echo "vs_cupy.py failed (status $rc)" | tee -a "$out/summary.txt"
           status=1 ;;
      esac
    fi
  fi
  echo "python stage: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
fi

if has gate; then
  log "gate: auto against cuSPARSE ALG1 on bench/suites/gate.txt, ${SPX_GATE_RUNS:-5} runs"
  t0=$SECONDS
  python3 scripts/perf_gate.py run --spx "$spx" --out "$out/gate" --runs "${SPX_GATE_RUNS:-5}" >"$out/gate.txt" 2>&1 \
    || status=1
  cat "$out/gate.txt"
  grep -E '^gate: (PASS|FAIL|NO BASELINE|DEMONSTRATION|no baseline)' "$out/gate.txt" >>"$out/summary.txt"
  echo "gate stage: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
fi

# merged_suite OUT FILE...: the sources of the suite files, each once, in order, into OUT.
merged_suite() {
  local o=$1
  shift
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$@" | awk '!seen[$0]++' >"$o"
}

if has peers; then
  log "peers: DASP, spECK, OpSparse, nsparse beside spx, every result verified"
  t0=$SECONDS
  pdir=build-peers
  pbin=${SPX_PEERS_BIN:-.device/peers-bin}
  if [ -f "$pbin/BUILD_INFO.json" ]; then
    rm -rf "$pdir" && cp -r "$pbin" "$pdir"
    SPX_PEERS_ONLY="" bash bench/peers/build.sh "${SPX_PEERS_SRC:-.device/peers-src}" "$pdir" build-gpu \
      >"$out/peers-build.txt" 2>&1 || status=1
    echo "peers: binaries from $pbin" | tee -a "$out/summary.txt"
  else
    bash bench/peers/build.sh "${SPX_PEERS_SRC:-.device/peers-src}" "$pdir" build-gpu >"$out/peers-build.txt" 2>&1 \
      || status=1
  fi
  cp "$pdir/BUILD_INFO.json" "$out/peers-build-info.json" 2>/dev/null
  tee -a "$out/summary.txt" <"$out/peers-build.txt"
  if [ "${SPX_PEERS_QUICK:-0}" = 1 ]; then
    spmv_suites=(bench/peers/suites/quick-spmv.txt) spgemm_suites=(bench/peers/suites/quick-spgemm.txt)
    deadline=60 timeout=30
  else
    spmv_suites=(bench/suites/shared.txt bench/peers/suites/peers-spmv.txt)
    spgemm_suites=(bench/peers/suites/peers-spgemm.txt bench/suites/spgemm.txt)
    deadline=150 timeout=45
  fi
  if [ "${SPX_PEERS_LARGE:-0}" = 1 ]; then
    spmv_suites+=(bench/suites/large.txt) spgemm_suites+=(bench/suites/spgemm-large.txt)
    deadline=$((deadline + 300))
  fi
  # SPX_PEERS_SPMV_SUITES, SPX_PEERS_SPGEMM_SUITES (space lists of suite files) replace the sets
  [ -n "${SPX_PEERS_SPMV_SUITES:-}" ] && read -r -a spmv_suites <<<"$SPX_PEERS_SPMV_SUITES"
  [ -n "${SPX_PEERS_SPGEMM_SUITES:-}" ] && read -r -a spgemm_suites <<<"$SPX_PEERS_SPGEMM_SUITES"
  merged_suite "$out/peers-spmv-suite.txt" "${spmv_suites[@]}"
  merged_suite "$out/peers-spgemm-suite.txt" "${spgemm_suites[@]}"
  # spx's figures on the same matrices in the same session: auto (batch and per-call times) and
  # cuSPARSE ALG1/ALG2 beside DASP; spx's SpGEMM and cuSPARSE ALG1 beside the SpGEMM peers
  $spx bench --backend cuda --formats auto,cusparse/alg1,cusparse/alg2 --reps 20 --plan-reps 1 \
    --suite "$out/peers-spmv-suite.txt" --json "$out/peers-spx-spmv.json" >"$out/peers-spx-spmv.txt" 2>&1 || status=1
  python3 bench/peers/run.py --bin "$pdir" --op spmv --suite "$out/peers-spmv-suite.txt" \
    --spx-json "$out/peers-spx-spmv.json" --timeout $timeout --deadline $deadline \
    --json "$out/peers-spmv.json" --md "$out/peers-spmv.md" >"$out/peers-spmv.txt" 2>&1 || status=1
  $spx bench --op spgemm --backend cuda --methods spx,cusparse/alg1 --reps 3 \
    --suite "$out/peers-spgemm-suite.txt" --json "$out/peers-spx-spgemm.json" >"$out/peers-spx-spgemm.txt" 2>&1 || status=1
  python3 bench/peers/run.py --bin "$pdir" --op spgemm --suite "$out/peers-spgemm-suite.txt" \
    --spx-json "$out/peers-spx-spgemm.json" --timeout $timeout --deadline $deadline \
    --json "$out/peers-spgemm.json" --md "$out/peers-spgemm.md" >"$out/peers-spgemm.txt" 2>&1 || status=1
  for f in peers-spmv peers-spgemm; do
    if [ -f "$out/$f.md" ]; then cat "$out/$f.md"; grep -E "^(spx ÷|- spx ÷)" "$out/$f.md" >>"$out/summary.txt"
    else tail -n 20 "$out/$f.txt"; echo "$f: no table (see $f.txt)" | tee -a "$out/summary.txt"; fi
  done
  echo "peers stage: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
fi

# The results page as it would read with this run's JSON committed (CPU only, a second or two):
# OUTDIR/RESULTS-preview.md (its pictures are left out).
if python3 scripts/results_page.py --add "$out" --out "$out/results-page" >"$out/results-page.log" 2>&1; then
  mv "$out/results-page/bench/RESULTS.md" "$out/RESULTS-preview.md" && rm -rf "$out/results-page"
else
  echo "results_page.py failed (see results-page.log)" | tee -a "$out/summary.txt"
fi

log "gpu-check done: status $status"
exit $status
