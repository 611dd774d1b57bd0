#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS]: builds the Matrix Market reader's libFuzzer target with clang and
# runs it for SECONDS (default 60) from the test files as seeds; skips without libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
if ! command -v clang >/dev/null || ! echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){return 0;}' \
     | clang -x c -fsanitize=fuzzer - -o /tmp/spx-fuzz-probe 2>/dev/null; then
  echo "== fuzz: skipped (clang with libFuzzer not available) =="
  exit 0
fi
echo "== fuzz: reader, ${secs}s =="
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSPX_FUZZ=ON -DSPX_ENABLE_CUDA=OFF \
  -DSPX_SANITIZE=ON >/dev/null
cmake --build build-fuzz --target fuzz_mtx -j"$(nproc)"
corpus=$(mktemp -d); trap 'rm -rf "$corpus"' EXIT
cp tests/data/good/*.mtx tests/data/bad/*.mtx "$corpus"/ 2>/dev/null || true
build-fuzz/tests/fuzz_mtx -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$corpus" 2>&1 | tail -n 15
