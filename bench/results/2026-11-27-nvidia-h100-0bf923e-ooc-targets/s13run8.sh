#!/usr/bin/env bash
# session 2026-11-27f run 8: issue 11's targets re-measured at HEAD on the H100: the
# out-of-core suite (bench/suites/spgemm-ooc.txt) under 512 MiB, hetero / GPU-only / CPU-only,
# `spx spgemm SRC --device-mem-limit 512MiB --panels P --no-verify --json`, twice each.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
r(){ local name=$1 src=$2; shift 2; timeout 60 build-gpu/spx spgemm $src "$@" --no-verify --json > $out/$name.json 2> $out/$name.err; python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['result']
print('$name', {k:(round(r[k],4) if isinstance(r.get(k),float) else r.get(k)) for k in ('nnz_c','panels','numeric_s','plan_s','k_ratio','gpu_share','gpu_share_run','gpu_transfer_s','gpu_compute_s','gpu_idle_s','device_peak_bytes')})" $out/$name.json 2>&1 | tail -1; }
for k in 1 2; do
  for M in gen:rmat:scale=16,ef=16 gen:rmat:scale=18,ef=8 gen:poisson3d:n=150 gen:stencil27:n=100; do
    n=${M#gen:}; n=${n//[:=,]/_}
    for p in hetero gpu cpu; do r $n-$p-$k $M --device-mem-limit 512MiB --panels $p; done
  done
done | tee $out/ooc-targets.txt
el done
cd $OUT && tar czf r.tgz r && rm -rf r
