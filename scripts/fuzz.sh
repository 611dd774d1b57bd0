#!/usr/bin/env bash
# scripts/fuzz.sh [--random SECONDS]: builds the Matrix Market reader's libFuzzer target with
# clang (ASan + UBSan) and fuzzes it from the test files and the regression corpus; skips
# without libFuzzer. Default: deterministic (fixed seed and run count: the verdict depends
# only on the code, as CI needs). --random SECONDS: a random seed for SECONDS, for exploring;
# a finding is saved to build-fuzz/findings/ for tests/data/fuzz/. Exit 1 on any finding.
# SPX_FUZZ_BUILD names another build folder than build-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."

# The deterministic run: 300000 executions took 66 s and 86 s (libFuzzer's "Done ... in";
# 67 s and 87 s for the whole script, build up to date) on the 2-core CI machine (Debug +
# ASan + UBSan, clang 14) with other work sharing it (load ~1.5-2); the two runs were
# identical line for line (cov 617, ft 1613, corpus 334 inputs, peak RSS 489 MB). Since each
# input is also read as a dense vector (spx_vec_read_mtx, checked against the matrix read) and
# tests/data/bad_vec seeds it: 41 s, cov 764, ft 2184, corpus 374, peak RSS 483 MB (one run).
FUZZ_SEED=20240601
FUZZ_RUNS=300000
# Memory: each read's context has a 1 MiB host budget (FUZZ_HOST_BUDGET in
# tests/fuzz/fuzz_mtx.c), so no library allocation reaches 16 MiB unless the budget is
# bypassed, a bug libFuzzer then reports as out-of-memory (a file declaring 2e9 rows asks
# for 16 GB). The RSS is ASan's: its quarantine (256 MiB) and shadow; peak RSS measured
# 459-511 MB (489 MB in the runs above), so 1024 leaves room and still stops a runaway.
FUZZ_MALLOC_LIMIT_MB=16
FUZZ_RSS_LIMIT_MB=1024
FUZZ_MAX_LEN=4096 # the fuzz_mtx.c budget assumes inputs this small
FUZZ_TIMEOUT_S=10

usage() { echo "usage: scripts/fuzz.sh [--random SECONDS]" >&2; exit 2; }
mode=deterministic secs=
case $# in
  0) ;;
  2) [[ $1 == --random && $2 =~ ^[1-9][0-9]*$ ]] || usage; mode=random secs=$2 ;;
  *) usage ;;
esac

if ! command -v clang >/dev/null || ! echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){return 0;}' \
     | clang -x c -fsanitize=fuzzer - -o /tmp/spx-fuzz-probe 2>/dev/null; then
  echo "== fuzz: skipped (clang with libFuzzer not available) =="
  exit 0
fi
build=${SPX_FUZZ_BUILD:-build-fuzz}
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DSPX_FUZZ=ON -DSPX_ENABLE_CUDA=OFF \
  -DSPX_SANITIZE=ON >/dev/null
cmake --build "$build" --target fuzz_mtx -j"$(nproc)" >/dev/null

# Seeds in byte order, through -seed_inputs: a directory's listing order varies between
# file systems and would change the run. New inputs go to an empty scratch corpus.
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
find tests/data/good tests/data/bad tests/data/bad_vec tests/data/fuzz -maxdepth 1 -type f ! -name README.md \
  ! -name '.*' | LC_ALL=C sort | paste -sd, - >"$scratch/seeds"
mkdir "$scratch/corpus"
if [[ $mode == deterministic ]]; then
  # Off, because they made two runs of one seed differ: comparison-guided mutations (they
  # take operand values from the run: stack addresses, the random temporary file name) and
  # the periodic corpus reload (wall-clock driven).
  seed=$FUZZ_SEED out=$build/artifacts
  args=(-runs="$FUZZ_RUNS" -use_cmp=0 -use_memmem=0 -reload=0)
  rm -rf "$out"
  echo "== fuzz: reader, deterministic: seed $seed, $FUZZ_RUNS runs =="
else
  seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') args=(-max_total_time="$secs")
  out=$build/findings
  echo "== fuzz: reader, random: seed $seed, ${secs}s =="
fi
mkdir -p "$out"
log=$build/fuzz-$mode.log
set +e
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$build/tests/fuzz_mtx" -seed="$seed" \
  "${args[@]}" -max_len=$FUZZ_MAX_LEN -timeout=$FUZZ_TIMEOUT_S -rss_limit_mb=$FUZZ_RSS_LIMIT_MB \
  -malloc_limit_mb=$FUZZ_MALLOC_LIMIT_MB -artifact_prefix="$out/" -print_final_stats=1 \
  -seed_inputs=@"$scratch/seeds" "$scratch/corpus" >"$log" 2>&1
rc=$?
set -e
if [[ $rc -eq 0 ]]; then
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
  grep -E '#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true
  echo "== fuzz: no finding (log: $log) =="
  exit 0
fi
tail -n 60 "$log"
found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")
echo "== fuzz: FAILED (libFuzzer exit $rc; log: $log) =="
if [[ -n $found ]]; then
  for f in $found; do
    echo "input saved as $f; reproduce with: $build/tests/fuzz_mtx $f"
  done
  echo "fix the reader, then add the input to tests/data/fuzz/ (see its README.md)"
fi
exit 1
