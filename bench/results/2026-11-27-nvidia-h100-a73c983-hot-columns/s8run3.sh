#!/usr/bin/env bash
# session 2026-11-27 run 3: why uniform 2M A*A^T is 4x slower than A*A in spx numeric: ncu per kernel, both
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -x build-gpu/spx ] || { SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || exit 1; }
el build
for t in "" "--transpose-b"; do
  ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__block_size --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx --reps 1 $t gen:uniform:m=2000000,k=8 > $out/ncu-uni$t.txt 2>&1; el "ncu $t rc=$?"
done
SPX_TRACE=1 build-gpu/spx spgemm gen:uniform:m=2000000,k=8 --transpose-b --backend cuda > $out/cli-aat.txt 2>&1; el "cli rc=$?"
cd $OUT && tar czf r.tgz r && rm -rf r
