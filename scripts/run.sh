#!/usr/bin/env bash
# scripts/run.sh: the main job: build, then `spx bench` on the built-in default suite
# (arguments are passed to spx bench, e.g. --backend cuda --json out.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2  # build output on stderr: stdout is the benchmark table
exec build/spx bench "$@"
