#!/usr/bin/env bash
# scripts/test.sh: the whole test suite: the Release build (CUDA compiled when nvcc is
# present; GPU tests skip without a device), then a CPU build under ASan + UBSan, then the
# reader's fuzz target for a bounded time when clang's libFuzzer is available.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash scripts/build.sh
echo "== tests (Release, -Werror) =="
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== tests under ASan + UBSan (CPU build) =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSPX_WERROR=ON -DSPX_SANITIZE=ON -DSPX_ENABLE_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

bash scripts/fuzz.sh "${SPX_FUZZ_SECONDS:-60}"
