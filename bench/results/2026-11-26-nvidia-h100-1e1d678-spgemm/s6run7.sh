#!/usr/bin/env bash
# session 2026-11-26f run 7: the dense fallback marking columns with 32-bit atomicOr (new) against
# 64-bit (-DSPX_GPU_DENSE_MARK32=0, same tree); test_spgemm_gpu + memcheck/racecheck quick
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
( cmake -S . -B /tmp/m64 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS="-DSPX_GPU_DENSE_MARK32=0" > $out/m64-build.log 2>&1 && cmake --build /tmp/m64 -j6 --target spx_cli >> $out/m64-build.log 2>&1; echo "m64 build rc=$?" ) &
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el builds
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 200 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 200 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
wait; for tool in memcheck racecheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
M="gen:powerlaw:m=1000000,k=8 gen:rmat:scale=16,ef=16 gen:rmat:scale=18,ef=8"
for rep in 1 2; do for v in m64:/tmp/m64/spx new:build-gpu/spx; do
  ${v#*:} bench --op spgemm --backend cuda --methods spx --reps 3 $M --json $out/ab-${v%%:*}-$rep.json > $out/ab-${v%%:*}-$rep.txt 2>&1
  ${v#*:} bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b gen:powerlaw:m=50000,k=8 ../shared/matrices/landmark.mtx.gz --json $out/abt-${v%%:*}-$rep.json > $out/abt-${v%%:*}-$rep.txt 2>&1
done; done
el ab
python3 - $out <<'PY'
import json,glob,os,sys
d=sys.argv[1]
for f in sorted(glob.glob(d+'/ab*-*.json')):
    for r in json.load(open(f))['results']:
        if r.get('status')!='SPX_OK': continue
        p=r['phases']; print('%-16s %-28s sym %8.3f num %8.3f' % (os.path.basename(f)[:-5], r['matrix'][-28:], p.get('symbolic',0)*1e3, p.get('numeric',0)*1e3))
PY
cd $OUT && tar czf r.tgz r && rm -rf r
