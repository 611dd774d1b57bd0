#!/usr/bin/env bash
# session 2026-11-27c run 4: device features in one coalesced launch: test_gpu (csr: the
# features check on every matrix, device == host), memcheck; features phase A/B against the
# committed features.cu (second build), auto plans on the select and large suites, fp64/fp32
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
( mkdir -p /tmp/old && tar cf - --exclude=./build-gpu --exclude=./build-b0 --exclude=./.device . | tar xf - -C /tmp/old && cp .device/features_old.cu /tmp/old/src/cuda/features.cu && cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build /tmp/old/b -j6 --target spx_cli >> $out/old-build.log 2>&1 || tail -20 $out/old-build.log ) &
bpid=$!
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr timeout 300 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-gpu-csr.log 2>&1 &
mpid=$!
SPX_GPU_TEST_FORMATS=csr timeout 300 build-gpu/tests/test_gpu > $out/test-gpu-csr.log 2>&1; el "test_gpu csr rc=$? $(tail -1 $out/test-gpu-csr.log)"
grep -E "FAIL" $out/test-gpu-csr.log | head -10
wait $bpid; el "old build"
wait $mpid; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-gpu-csr.log | tail -2 | tr '\n' ' ')"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
for suite in select large; do for prec in fp64 fp32; do
  [ $(( $(date +%s)-t0 )) -gt 520 ] && { el "skip $suite $prec"; continue; }
  timeout 150 build-gpu/spx bench --backend cuda --reps 5 --formats cusparse/alg1,auto --precision $prec --suite bench/suites/$suite.txt --json $out/new-$suite-$prec.json > $out/new-$suite-$prec.txt 2>&1; el "new $suite $prec rc=$?"
  timeout 150 /tmp/old/b/spx bench --backend cuda --reps 5 --formats cusparse/alg1,auto --precision $prec --suite bench/suites/$suite.txt --json $out/old-$suite-$prec.json > $out/old-$suite-$prec.txt 2>&1; el "old $suite $prec rc=$?"
done; done
python3 - $out <<'PY'
import json,sys,os
out=sys.argv[1]
for suite in ['select','large']:
  for prec in ['fp64','fp32']:
    f={k:out+'/%s-%s-%s.json'%(k,suite,prec) for k in ('new','old')}
    if not all(os.path.exists(v) for v in f.values()): continue
    d={k:json.load(open(v))['results'] for k,v in f.items()}
    for r in d['new']:
        if r.get('requested_format')!='auto' or r['nnz']<1e7: continue
        o=[x for x in d['old'] if x['matrix']==r['matrix'] and x.get('requested_format')=='auto']
        b=lambda rs:[x['t_batch_s'] for x in rs if x['matrix']==r['matrix'] and x.get('format')=='cusparse']
        bn,bo=b(d['new']),b(d['old'])
        fn=r['plan_phases_s'].get('features',0); fo=o[0]['plan_phases_s'].get('features',0) if o else 0
        print('%-34s %s nnz %6.1fM feat new %.3f old %.3f ms (%.1fx) | SpMV-eq new %.2f old %.2f | pick %s/%s' % (
            r['matrix'][:34], prec, r['nnz']/1e6, fn*1e3, fo*1e3, fo/fn if fn else 0, fn/bn[0] if bn else -1, fo/bo[0] if bo else -1, r['format'], r['algo']))
PY
cd $OUT && tar czf r.tgz r && rm -rf r
