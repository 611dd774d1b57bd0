#!/usr/bin/env bash
# session 2026-11-27 (eighth) run 7: as run 6, rows whose products in all of B are under the bar not walked (working tree on 4a1ab24) against
# 4a1ab24 (old): test_spgemm_gpu, memcheck (quick), test_spgemm_ooc_gpu, A/B bench interleaved.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
cfg(){ cmake -S $1 -B $2 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cfg-$(basename $2).log 2>&1; }
{ [ -f build-new/CMakeCache.txt ] || cfg . build-new; } && cmake --build build-new -j16 --target spx_cli test_spgemm_gpu test_spgemm_ooc_gpu > $out/build-new.log 2>&1 || { tail -30 $out/build-new.log; exit 1; }
el built new
{ [ -x /tmp/old/b/spx ] || { rm -rf /tmp/old && mkdir -p /tmp/old && tar xzf .device/old.tgz -C /tmp/old && cfg /tmp/old /tmp/old/b; }; } && cmake --build /tmp/old/b -j16 --target spx_cli > $out/build-old.log 2>&1 || { tail -30 $out/build-old.log; exit 1; }
el built old
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 280 $cs --tool memcheck --error-exitcode 99 build-new/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 280 build-new/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL|fail" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
grep -B2 -A12 "Invalid\|ERROR" $out/san-memcheck.log | head -30
M="gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:powerlaw:m=1000000,k=8 gen:rmat:scale=16,ef=16 gen:powerlaw:m=50000,k=8,alpha=1.5"
for k in 1 2 3; do
  for v in new old; do
    bin=build-new/spx; [ $v = old ] && bin=/tmp/old/b/spx
    meth=spx,spx/dense
    timeout 200 $bin bench --op spgemm --backend cuda --reps 5 --methods $meth $M --json $out/ab-$v-$k.json > $out/ab-$v-$k.txt 2>&1; el "bench $v $k rc=$?"
  done
done
build-new/spx spgemm gen:rmat:scale=16,ef=8 --backend cuda --method spx --algo dense --json > $out/rmat16ef8-dense.json 2>&1; python3 -c "import json;r=json.load(open('$out/rmat16ef8-dense.json'))['result'];print('rmat16ef8 dense:',r['kernel'],r['verified'],r['rel_error'])"
python3 - $out <<'PY'
import json,glob,sys,collections,statistics as st
out=sys.argv[1]; R=collections.defaultdict(list)
for f in sorted(glob.glob(out+'/ab-*.json')):
    v=f.split('ab-')[1].split('-')[0]
    for r in json.load(open(f))['results']:
        if r.get('status','ok')!='ok' and 'numeric_s' not in r: continue
        ph=r.get('phases') or {}
        R[(r['matrix'],r['method']+'/'+str(r['algo']),v)].append((ph.get('numeric'),ph.get('reorder'),r.get('kernel'),r.get('plan_s'),r.get('verified')))
med=lambda a: 1e3*st.median(a) if a else float('nan')
for key in sorted(R):
    xs=R[key]; print(key, 'numeric(dev) med %.3f ms'%med([x[0] for x in xs if x[0]]), 'reorder med %.3f ms'%med([x[1] for x in xs if x[1]]), 'plan med %.3f'%med([x[3] for x in xs if x[3]]), xs[0][2], xs[0][4], [round(1e3*x[0],3) for x in xs if x[0]])
PY
cd $OUT && tar czf r.tgz r && rm -rf r
