#!/usr/bin/env bash
# session 2026-11-27c run 3: place kernel with warp-reduced bin range + prefetch: test_hbp_gpu,
# hash/sort phases on the three large matrices where it lost, ncu of the place kernel on uniform
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
timeout 300 build-gpu/tests/test_hbp_gpu > $out/test-hbp-gpu.log 2>&1; el "test_hbp_gpu rc=$? $(tail -1 $out/test-hbp-gpu.log)"
for M in gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 gen:powerlaw:m=4000000,k=8 gen:poisson3d:n=300; do
  timeout 100 build-gpu/spx bench --backend cuda --reps 3 --formats hbp/hash,hbp/sort $M --json $out/n.json > /dev/null 2>&1
  python3 -c "
import json; r=[x for x in json.load(open('$out/n.json'))['results'] if x.get('format')=='hbp']
print('$M', ' '.join('%s %s'%(x['algo'], {k:round(v*1e3,2) for k,v in x['plan_phases_s'].items() if k in ('count','hash','sort','convert')}) for x in r))"
done
ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --kernel-name regex:"place_kernel|emit_kernel" --launch-count 2 build-gpu/spx info gen:uniform:m=16777216,k=8 --format hbp --algo hash --backend cuda > $out/ncu-place.txt 2>&1; el "ncu rc=$?"
grep -E "place_kernel|emit_kernel|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Th|Memory Throughput|Stall|Warp Cycles Per Issued|Issued Warp|Eligible" $out/ncu-place.txt | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
