#!/usr/bin/env bash
# scripts/build.sh: configures and builds spx into build/ (Release, warnings as errors; the
# CUDA backend too when nvcc is found). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON "$@" >/dev/null
cmake --build build -j"$(nproc)"
