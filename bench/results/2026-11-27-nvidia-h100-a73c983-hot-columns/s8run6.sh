#!/usr/bin/env bash
# session 2026-11-27 run 6 (106d81c): uniform 2M A*A^T per kernel instance with the 4-product warp rows; the threaded transpose's time on this host
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx --reps 1 --transpose-b gen:uniform:m=2000000,k=8 > $out/ncu-uniT.txt 2>&1; el "ncu rc=$?"
for t in 1 16; do build-gpu/spx spgemm gen:uniform:m=2000000,k=8 --transpose-b --backend cuda --threads $t > $out/cli-aat-t$t.txt 2>&1; el "cli t$t rc=$? $(grep phases $out/cli-aat-t$t.txt | cut -c1-60)"; done
cd $OUT && tar czf r.tgz r && rm -rf r
