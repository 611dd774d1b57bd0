#!/usr/bin/env bash
# session 2026-11-27b run 6: final code 7438aed: test_spgemm_gpu; powerlaw 50k A*A^T's first-measured spx plan
# (the quick suite's 0.59x): the same matrix twice in one process, lazy against eager module loading
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
M="gen:poisson3d:n=60 gen:powerlaw:m=50000,k=8 gen:powerlaw:m=50000,k=8"
for mode in LAZY EAGER; do
  CUDA_MODULE_LOADING=$mode build-gpu/spx bench --op spgemm --backend cuda --transpose-b --methods spx,cusparse/alg1 --json $out/pl-$mode.json $M > $out/pl-$mode.txt 2>&1; el "$mode rc=$?"
done
python3 - "$out" <<'PY'
import json,sys
for mode in ('LAZY','EAGER'):
    for r in json.load(open(sys.argv[1]+'/pl-%s.json'%mode))['results']:
        ph=r['phases']; print(mode, r['matrix'][:26], r['name'], ' '.join('%s %.3f'%(k,1e3*ph.get(k,0)) for k in ('analyse','reorder','symbolic','numeric')))
PY
timeout 280 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
