#!/usr/bin/env bash
# session 2026-11-26f run 9: the CPU SpGEMM at the final code: the spgemm-cpu stage (the large
# suite, 16 threads against 1, and scipy on four matrices), then scipy on eight more of the suite
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
timeout 300 bash scripts/gpu-check.sh $out spgemm-cpu > $out/spgemm-cpu-stage.txt 2>&1; el "spgemm-cpu stage rc=$?"
grep "^|" $out/spgemm-scipy.txt
timeout 200 python3 scripts/spgemm_scipy_check.py --spx build-gpu/spx --time --reps 1 --json $out/spgemm-scipy-more.json \
  gen:powerlaw:m=1000000,k=8 ../shared/matrices/finan512_pattern.mtx.gz ../shared/matrices/bcsstk33.mtx.gz \
  ../shared/matrices/vibrobox_pattern.mtx.gz ../shared/matrices/fe_body.mtx.gz ../shared/matrices/cage10.mtx.gz \
  ../shared/matrices/astro-ph_pattern.mtx.gz gen:uniform:m=2000000,k=8 > $out/spgemm-scipy-more.txt 2>&1; el "scipy more rc=$?"
grep "^|" $out/spgemm-scipy-more.txt
cd $OUT && tar czf r.tgz r && rm -rf r
