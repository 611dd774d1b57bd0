#!/usr/bin/env bash
# session 2026-11-26e run 1: span tables for spx GPU SpGEMM: builds (new, old 06209f6, variants), tests, sanitizers, a first A/B
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old; rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j4 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) &
for v in num0:-DSPX_GPU_SPAN_NUM_PCT=0 num1600:-DSPX_GPU_SPAN_NUM_PCT=1600 sym0:-DSPX_GPU_SPAN_SYM_PCT=0; do
  n=${v%%:*}; f=${v#*:}
  ( cmake -S . -B /tmp/b-$n -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=$f" > $out/b-$n.log 2>&1 && cmake --build /tmp/b-$n -j3 --target spx_cli >> $out/b-$n.log 2>&1; echo "$n build rc=$?" ) &
done
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el "new build"
wait; el "all builds"
timeout 300 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL|span" $out/test-spgemm-gpu.log | head -20
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 400 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 200 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-spgemm-ooc-gpu.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-spgemm-ooc-gpu.log)"
wait; for tool in memcheck racecheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
# first A/B: spx alone, phases, on a few matrices (A*A^T as the aat suite)
M=../shared/matrices
for mtx in $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz gen:stencil27:n=40 gen:banded:m=100000,bw=8 gen:blockdiag:m=20000,b=32 $M/landmark.mtx.gz gen:rmat:scale=14,ef=16 $M/vibrobox_pattern.mtx.gz; do
  for v in old new num0 num1600 sym0; do
    B=build-gpu/spx; [ $v = old ] && B=$old/b/spx; [ -d /tmp/b-$v ] && B=/tmp/b-$v/spx
    timeout 60 $B spgemm $mtx --transpose-b --backend cuda --json > $out/ab-$v-$(basename $mtx | tr ':=,' '___').json 2>&1
  done
done
el "ab done"
python3 - $out <<'PY'
import json,sys,glob,os
out=sys.argv[1]
rows={}
for f in sorted(glob.glob(out+"/ab-*.json")):
    v,m=os.path.basename(f)[3:-5].split("-",1)
    try: r=json.load(open(f))
    except Exception as e: print(f,"bad json",open(f).read()[:200]); continue
    r=r.get("result",r)
    ph=r.get("phases",{})
    rows.setdefault(m,{})[v]="%s an%.2f re%.2f sy%.2f nu%.2f %s"%(r.get("verified","?")[:3],*(ph.get(k,0)*1e3 for k in("analyse","reorder","symbolic","numeric")),r.get("kernel","")[-5:])
for m,d in rows.items():
    print(m); [print("   ",v.ljust(8),d.get(v,"-")) for v in ("old","new","num0","num1600","sym0")]
PY
el "done"
cd $OUT && tar czf r.tgz r && rm -rf r
