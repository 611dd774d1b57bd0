#!/usr/bin/env bash
# session 2026-11-27 run 7 (final code): one warp a row in warp bins, A/B against -DSPX_GPU_WARP_ONE=0 (same tree); the quick A*A^T suite; test_spgemm_gpu + memcheck quick
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cmake -S . -B /tmp/w0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_GPU_WARP_ONE=0 > $out/w0-build.log 2>&1 && cmake --build /tmp/w0 -j16 --target spx_cli >> $out/w0-build.log 2>&1 || tail -20 $out/w0-build.log
el "w0 build"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
M="gen:uniform:m=2000000,k=8 gen:uniform:m=100000,k=8 gen:poisson3d:n=60 ../shared/matrices/finan512_pattern.mtx.gz ../shared/matrices/fe_body.mtx.gz"
for rep in 1 2; do
  /tmp/w0/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M --json $out/w0T$rep.json > $out/w0T$rep.txt 2>&1; el "w0T $rep rc=$?"
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M --json $out/w1T$rep.json > $out/w1T$rep.txt 2>&1; el "w1T $rep rc=$?"
done
/tmp/w0/spx bench --op spgemm --backend cuda --reps 5 --methods spx gen:uniform:m=2000000,k=8 gen:poisson3d:n=60 --json $out/w0.json > $out/w0.txt 2>&1; el "w0 AA rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx gen:uniform:m=2000000,k=8 gen:poisson3d:n=60 --json $out/w1.json > $out/w1.txt 2>&1; el "w1 AA rc=$?"
python3 - "$out" <<'PY'
import json,sys,glob,os
o=sys.argv[1]
for f in sorted(glob.glob(o+'/w*.json')):
    for r in json.load(open(f))['results']:
        ph=r.get('phases',{})
        print(os.path.basename(f), r.get('matrix','?')[:34], 'numeric %.3f ms'%(1e3*ph.get('numeric',0)), r.get('verified'))
PY
build-gpu/spx bench --op spgemm --backend cuda --transpose-b --suite bench/suites/spgemm.txt --json $out/spgemm-aat.json > $out/spgemm-aat.txt 2>&1; el "aat suite rc=$?"
python3 scripts/spgemm_tables.py $out/spgemm-aat.json --method spx > $out/tables-aat.md 2>&1; grep geomean $out/tables-aat.md
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 250 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 250 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
