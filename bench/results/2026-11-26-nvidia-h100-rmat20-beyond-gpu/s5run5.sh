#!/usr/bin/env bash
# session 2026-11-26e run 5: API costs (streams, events, mallocs); issue 11: R-MAT 20 ef 14 A*A (C 97 GB > the GPU's 85.5 GB), panels auto and CPU only, host budget raised
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
nvcc -O2 -o /tmp/api_cost .device/api_cost.cu && /tmp/api_cost | tee $out/api_cost.txt
[ -x build-gpu/spx ] || SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1
el build
for p in auto cpu; do
  /usr/bin/time -v timeout 270 build-gpu/spx spgemm gen:rmat:scale=20,ef=14 --panels $p --mem-limit 112GiB --no-verify --json --timeline $out/big-$p.svg > $out/big-$p.json 2> $out/big-$p.err; el "big $p rc=$?"
  grep -E "rror|Maximum resident|Elapsed" $out/big-$p.err | head -3
  python3 -c "
import json
d=json.load(open('$out/big-$p.json'))['result']
print({k:d.get(k) for k in ('nnz_c','panel_mode','panel_split','panels','device_peak_bytes','plan_s','numeric_s','total_s','k_ratio','gpu_share_run','gpu_transfer_s','gpu_compute_s','gpu_idle_s','cpu_compute_s','panels_gpu','panels_cpu','host_peak_bytes','phases')})" 2>&1 | tail -3
done
el done
cd $OUT && tar czf r.tgz r && rm -rf r
