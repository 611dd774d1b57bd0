#!/usr/bin/env bash
# scripts/deps.sh: installs the Debian packages spx needs to build and test (idempotent;
# installs nothing when everything is present). nvcc is optional and never installed here.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# libomp-14-dev: LLVM's OpenMP runtime and archer, libclang-rt-14-dev: clang's TSan runtime
# (scripts/test.sh runs test_threads under ThreadSanitizer with both); libmetis-dev: METIS 5.1,
# the ehyb format's partitioner; python3-scipy: the ctest spgemm_scipy_check (scipy's A @ B against
# `spx spgemm`; it re-runs under /usr/bin/python3 when another python3 comes first on PATH);
# pkgconf: pkg-config, with which tests/test_install.sh builds against the installed spx.pc;
# python3-dev, python3-pytest, python3-venv: the Python module (python/: its headers, its pytest
# suite, and the `pip install .` check in a venv); libopenmpi-dev, openmpi-bin: MPI for the
# optional distributed module (src/dist; its tests run under mpiexec; without them it is
# listed as not built and its tests skip); mpich, libmpich-dev: the same module checked against
# MPICH (scripts/test.sh; Open MPI stays the default mpicc and mpiexec)
for p in cmake make gcc zlib1g-dev python3 python3-scipy python3-dev python3-pytest python3-venv clang libomp-14-dev \
         libclang-rt-14-dev libmetis-dev pkgconf libopenmpi-dev openmpi-bin mpich libmpich-dev; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "scripts/deps.sh: missing packages: ${need[*]} (run as root to install them)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# libFuzzer ships with clang's runtime; it is optional (the fuzz step skips without it)
if have_pkg clang && ! have_pkg libclang-rt-14-dev && [ "$(id -u)" = 0 ] \
   && ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  apt-get install -y -qq --no-install-recommends libclang-rt-14-dev >/dev/null 2>&1 || true
fi
echo "deps: ok"
