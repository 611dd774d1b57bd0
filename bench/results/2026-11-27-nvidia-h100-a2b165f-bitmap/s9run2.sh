#!/usr/bin/env bash
# session 2026-11-27b run 2: bitmap read-out of numeric hash tables: test_spgemm_gpu + memcheck quick;
# A/B against -DSPX_GPU_BITMAP_COLS_PER_SLOT=0 (same tree, same run); ncu of stencil27 n=60
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
( cmake -S . -B /tmp/b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_GPU_BITMAP_COLS_PER_SLOT=0 > $out/b0-build.log 2>&1 && cmake --build /tmp/b0 -j8 --target spx_cli >> $out/b0-build.log 2>&1 || tail -20 $out/b0-build.log ) &
bpid=$!
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 280 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
mpid=$!
timeout 280 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait $bpid; el "b0 build"
wait $mpid; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
grep -B2 -A12 "Invalid\|Error" $out/san-memcheck.log | head -40
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
S=../shared/matrices
M="gen:stencil27:n=60 gen:stencil27:n=40 gen:poisson3d:n=100 $S/bcsstk29.mtx.gz $S/bcsstk33.mtx.gz $S/finan512_pattern.mtx.gz $S/vibrobox_pattern.mtx.gz $S/fe_body.mtx.gz $S/cage10.mtx.gz $S/astro-ph_pattern.mtx.gz gen:rmat:scale=16,ef=16 gen:banded:m=100000,bw=8"
for rep in 1 2; do
  /tmp/b0/spx bench --op spgemm --backend cuda --reps 5 --methods spx $M --json $out/b0-$rep.json > $out/b0-$rep.txt 2>&1; el "b0 $rep rc=$?"
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx $M --json $out/b1-$rep.json > $out/b1-$rep.txt 2>&1; el "b1 $rep rc=$?"
done
/tmp/b0/spx bench --op spgemm --backend cuda --reps 5 --methods spx --transpose-b .device/landmarkT.mtx.gz gen:stencil27:n=60 --json $out/b0-T.json > $out/b0-T.txt 2>&1; el "b0 T rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx --transpose-b .device/landmarkT.mtx.gz gen:stencil27:n=60 --json $out/b1-T.json > $out/b1-T.txt 2>&1; el "b1 T rc=$?"
python3 - "$out" <<'PY'
import json,sys,glob,os
o=sys.argv[1]; rows={}
for f in sorted(glob.glob(o+'/b[01]-*.json')):
    tag=os.path.basename(f)[:2]
    for r in json.load(open(f))['results']:
        ph=r.get('phases',{}); key=(r.get('matrix','?').split('/')[-1][:30], r.get('transpose_b'))
        rows.setdefault(key,{}).setdefault(tag,[]).append((1e3*ph.get('numeric',0), 1e3*sum(ph.get(p,0) for p in ('analyse','reorder','symbolic','numeric')), r.get('kernel'), r.get('verified')))
print('%-32s %-5s %22s %22s  %s'%('matrix','T','numeric b0 / b1 ms','scratch b0 / b1 ms','kernel b1, verified'))
for k,v in rows.items():
    a=v.get('b0',[]); b=v.get('b1',[])
    if not a or not b: continue
    na=min(x[0] for x in a); nb=min(x[0] for x in b); sa=min(x[1] for x in a); sb=min(x[1] for x in b)
    print('%-32s %-5s %9.3f / %-9.3f %9.3f / %-9.3f %s %s %s'%(k[0],k[1],na,nb,sa,sb,b[-1][2],all(x[3] for x in a),all(x[3] for x in b)))
PY
ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx --reps 1 gen:stencil27:n=60 > $out/ncu-st27.txt 2>&1; el "ncu rc=$?"
python3 bench/results/2026-11-27-nvidia-h100-a73c983-hot-columns/ncu/instances.py $out/ncu-st27.txt
grep -A3 "rows_kernel" $out/ncu-st27.txt | grep -i "registers" | head -5
cd $OUT && tar czf r.tgz r && rm -rf r
