#!/usr/bin/env bash
# bench/overhead/run.sh [--backend cpu|cuda|all] [BUILD]: installs BUILD (default build/) into a
# scratch prefix, builds overhead.c (for cuda, its -DOVERHEAD_CUDA variant) against it and
# prints the C and the Python median per-call times and their difference (issue 16's overhead
# target: Python at most 5 us above C, host and device). cpu (the default): a CPU plan on host arrays; cuda: a
# CUDA plan on device arrays (CuPy in Python), each call followed by a stream synchronize in
# both; all: both. The CUDA variant says it is skipped (and does not fail) where BUILD has no
# CUDA backend, no GPU is usable or Python has no CuPy. Needs the Python module built in
# BUILD/python.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
backend=cpu
if [ "${1:-}" = --backend ]; then
  backend=${2:?usage: run.sh [--backend cpu|cuda|all] [BUILD]}
  shift 2
fi
case $backend in cpu | cuda | all) ;; *) echo "run.sh: --backend must be cpu, cuda or all, not '$backend'" >&2; exit 2 ;; esac
build=$(cd "${1:-$here/../../build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
read -r -a flags <<<"$(pkg-config --cflags --libs spx)"
py=python3
python3 -c 'import numpy' 2>/dev/null || py=/usr/bin/python3

# The microseconds after "$2" on line $1 (the programs' result lines: "median X us", "bare sync X us").
us_after() { sed -n "s/.* $2 \\([0-9.]*\\) us.*/\\1/p" <<<"$1"; }

# Prints the difference of the Python line $2 over the C line $1 against the 5 us target (and,
# where both lines give the median of a bare stream synchronize, the difference less theirs).
difference() {
  local c p cs ps
  c=$(us_after "$1" median)
  p=$(us_after "$2" median)
  [ -n "$c" ] && [ -n "$p" ] || return 0
  cs=$(us_after "$1" "bare sync")
  ps=$(us_after "$2" "bare sync")
  awk -v c="$c" -v p="$p" -v cs="${cs:-0}" -v ps="${ps:-0}" -v what="$3" 'BEGIN {
    d = p - c; printf "%s: Python - C = %+.2f us (target <= 5 us: %s)", what, d, d <= 5 ? "met" : "NOT met"
    if (cs + ps > 0) printf "; less the bare syncs: %+.2f us", (p - ps) - (c - cs)
    printf "\n" }'
}

if [ "$backend" != cuda ]; then
  cc -O2 -o "$tmp/overhead" "$here/overhead.c" "${flags[@]}" -Wl,-rpath,"$tmp/prefix/lib"
  c_line=$("$tmp/overhead")
  echo "$c_line"
  py_line=$("$py" "$here/overhead.py" "$build/python")
  echo "$py_line"
  difference "$c_line" "$py_line" "host (CPU plan, 1 thread)"
fi

if [ "$backend" != cpu ]; then
  if "$tmp/prefix/bin/spx" --version | grep -q "CUDA backend not built"; then
    echo "CUDA variant skipped: $build was built without the CUDA backend"
    exit 0
  fi
  # the CUDA runtime's library and headers: the toolkit's the build found (CUDAToolkit's cache),
  # else nvcc's, else /usr/local/cuda's
  cudart=$(sed -n 's/^CUDA_cudart_LIBRARY:[A-Z]*=//p' "$build/CMakeCache.txt")
  if [ -n "$cudart" ] && [ -e "$cudart" ]; then
    cudalib=$(cd "$(dirname "$cudart")" && pwd)
    cuda=$(dirname "$cudalib")
  else
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
    cudalib=$cuda/lib64
  fi
  [ -e "$cuda/include/cuda_runtime.h" ] || cuda=/usr/local/cuda
  cc -O2 -DOVERHEAD_CUDA -o "$tmp/overhead_cuda" "$here/overhead.c" -I"$cuda/include" "${flags[@]}" -L"$cudalib" -lcudart \
    -Wl,-rpath,"$tmp/prefix/lib" -Wl,-rpath,"$cudalib"
  rc=0
  c_line=$("$tmp/overhead_cuda") || rc=$?
  echo "$c_line"
  if [ $rc = 77 ]; then exit 0; fi
  [ $rc = 0 ] || exit $rc
  rc=0
  py_line=$("$py" "$here/overhead.py" "$build/python" --backend cuda) || rc=$?
  echo "$py_line"
  if [ $rc = 77 ]; then exit 0; fi
  [ $rc = 0 ] || exit $rc
  difference "$c_line" "$py_line" "device (CUDA plan, + stream synchronize)"
fi
