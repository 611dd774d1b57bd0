#!/usr/bin/env bash
# session 2026-11-26e run 4: (a) where the analyse phase's extra time goes on fe_body / finan512 (ncu kernel times, old vs new; lazy vs eager loading); (b) issue 11: R-MAT 20 ef 14 A*A (C 97 GB > the GPU's memory), panels auto and CPU only
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
if [ ! -x $old/b/spx ]; then rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
  ( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j6 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) & fi
[ -x build-gpu/spx ] || SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1
wait; el builds
M=../shared/matrices
for v in old new; do
  B=build-gpu/spx; [ $v = old ] && B=$old/b/spx
  for mtx in $M/fe_body.mtx.gz $M/finan512_pattern.mtx.gz; do
    timeout 60 ncu --kernel-name regex:"products|range|bin_stats|dense_cols|scatter" --metrics gpu__time_duration.sum $B spgemm $mtx --backend cuda --method spx --no-verify > $out/ncu-$v-$(basename $mtx).txt 2>&1
    echo "$v $(basename $mtx): $(grep -E '^  [a-z_]+.*\(|gpu__time_duration' $out/ncu-$v-$(basename $mtx).txt | paste - - | awk '{print $1, $(NF)}' | tr '\n' ' ')"
  done
  for load in LAZY EAGER; do
    CUDA_MODULE_LOADING=$load timeout 60 $B bench --op spgemm --backend cuda --methods spx --reps 3 $M/bcsstk29.mtx.gz $M/fe_body.mtx.gz $M/finan512_pattern.mtx.gz $M/cage10.mtx.gz --json $out/load-$v-$load.json > /dev/null 2>&1
    python3 -c "
import json,sys
for r in json.load(open('$out/load-$v-$load.json'))['results']:
  ph=r['phases']; print('$v $load', r['matrix'][-22:].ljust(22), ' '.join('%s=%.3f'%(k[:4],ph.get(k,0)*1e3) for k in ('analyse','reorder','symbolic','numeric')))"
  done
done
el "part a"
free -g | head -2; nvidia-smi --query-gpu=memory.total --format=csv
for p in auto cpu; do
  /usr/bin/time -v timeout 280 build-gpu/spx spgemm gen:rmat:scale=20,ef=14 --panels $p --no-verify --json > $out/big-$p.json 2> $out/big-$p.err; el "big $p rc=$?"
  grep -E "Maximum resident|Elapsed" $out/big-$p.err
  python3 -c "
import json
d=json.load(open('$out/big-$p.json'))['result']
print({k:d.get(k) for k in ('nnz_c','panel_mode','panel_split','panels','device_peak_bytes','plan_s','numeric_s','total_s','k_ratio','gpu_share_run','gpu_transfer_s','gpu_compute_s','gpu_idle_s','cpu_compute_s','panels_gpu','panels_cpu','host_peak_bytes','phases')})" 2>&1 | tail -3
done
el done
cd $OUT && tar czf r.tgz r && rm -rf r
