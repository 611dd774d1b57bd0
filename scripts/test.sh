#!/usr/bin/env bash
# scripts/test.sh: the whole test suite: the Release build (CUDA compiled when nvcc is
# present; GPU tests skip without a device), then a CPU build under ASan + UBSan, then
# test_threads under ThreadSanitizer (clang, LLVM libomp + archer), then the reader's fuzz
# target, deterministically (fixed seed and run count), when clang's libFuzzer is available.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# ctest runs $jobs tests at once, each with OpenMP teams: idle OpenMP threads that spin
# (libgomp's default) take the cores the other tests need on a small machine; passive waits keep
# CI's time (2 cores) from growing with every OpenMP test. The tests assert no timing.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
bash scripts/build.sh
echo "== tests (Release, -Werror) =="
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== the distributed module against MPICH (CPU build) =="
# The issue asks that MPICH work as well as Open MPI: Debian's MPICH (scripts/deps.sh) builds the
# module and runs its tests on 1 and 2 ranks and the CLI test (3-4 ranks oversubscribe 2 cores,
# where MPICH's busy polling takes a minute a test). No -Werror here: GCC reads MPICH's
# MPI_STATUSES_IGNORE ((MPI_Status *)1) as a buffer of size 0 (-Wstringop-overflow).
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
  cmake -S . -B build-mpich -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF -DMPI_C_COMPILER="$(command -v mpicc.mpich)" \
    -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)" >/dev/null
  cmake --build build-mpich -j"$jobs" --target spx_cli test_dist >/dev/null
  grep -q 'MPI_C_LIB_NAMES:STRING=mpich' build-mpich/CMakeCache.txt || { echo "scripts/test.sh: build-mpich did not take MPICH" >&2; exit 1; }
  ctest --test-dir build-mpich --output-on-failure -R 'test_dist_np[12]$|test_dist_cli'
else
  echo "scripts/test.sh: no MPICH (mpicc.mpich, mpiexec.mpich): bash scripts/deps.sh installs it" >&2
  exit 1
fi

echo "== tests under ASan + UBSan (CPU build) =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSPX_WERROR=ON -DSPX_SANITIZE=ON -DSPX_ENABLE_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== test_threads under ThreadSanitizer (CPU build: clang, LLVM libomp + archer) =="
# GCC's libgomp is not instrumented, so TSan cannot see its synchronisation. clang links LLVM's
# libomp, and libomp loads archer (its OMPT tool), which tells TSan about fork, join, barriers
# and critical sections: the OpenMP regions are checked too. The suppressions cover only the
# runtime's internals: interceptors called from inside libomp (whose locks archer models) and
# mutex-misuse reports from archer's own bookkeeping locks (raised when two OpenMP roots enter
# one named critical section, even in a correct program). Archer advises
# ignore_noninstrumented_modules=1 instead; not taken: it also hides every race in which one
# side is a libc call from our code (memcpy, memset, snprintf). history_size=7: TSan drops a
# race whose earlier access has left the per-thread history; the largest history keeps them.
cmake -S . -B build-tsan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPX_WERROR=ON \
  -DSPX_TSAN=ON -DSPX_ENABLE_CUDA=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target test_threads
omp_lib=$(sed -n 's/^OpenMP_omp_LIBRARY:FILEPATH=//p' build-tsan/CMakeCache.txt)
archer="$(dirname "${omp_lib:-/none}")/libarcher.so"
if [ ! -f "$archer" ]; then
  echo "scripts/test.sh: no libarcher.so beside libomp ('$omp_lib'): install libomp-14-dev" >&2
  exit 1
fi
printf '%s\n' 'called_from_lib:libomp.so' 'mutex:libarcher.so' >build-tsan/tsan.supp
OMP_TOOL_LIBRARIES="$archer" ARCHER_OPTIONS=verbose=1 \
  TSAN_OPTIONS="halt_on_error=1:history_size=7:suppressions=$PWD/build-tsan/tsan.supp" \
  build-tsan/tests/test_threads 2>&1 | tee build-tsan/test_threads.log
echo "(archer's advice above, ignore_noninstrumented_modules=1, is declined on purpose: see scripts/test.sh)"
if ! grep -q '^Archer detected OpenMP application with TSan' build-tsan/test_threads.log; then
  echo "scripts/test.sh: archer did not load, so TSan did not check the OpenMP regions" >&2
  exit 1
fi

bash scripts/fuzz.sh # deterministic: fixed seed and run count (--random SECONDS explores)
