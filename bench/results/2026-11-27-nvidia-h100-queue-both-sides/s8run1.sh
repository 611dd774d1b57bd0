#!/usr/bin/env bash
# session 2026-11-27 (eighth) run 1: the queue's CPU-side cost check (working tree on 731b5c3)
# against 731b5c3, hetero panels on the out-of-core suite under 512 MiB; GPU-only and CPU-only
# of the new tree for the ratios; test_spgemm_ooc_gpu for correctness.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $out/gpu.txt; nproc >> $out/gpu.txt
cfg(){ cmake -S $1 -B $2 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cfg-$(basename $2).log 2>&1; }
cfg . build-new && cmake --build build-new -j16 --target spx_cli test_spgemm_ooc_gpu test_spgemm_ooc > $out/build-new.log 2>&1 || { tail -30 $out/build-new.log; exit 1; }
el built new
mkdir -p /tmp/old && tar xzf .device/old.tgz -C /tmp/old && cfg /tmp/old /tmp/old/b && cmake --build /tmp/old/b -j16 --target spx_cli > $out/build-old.log 2>&1 || { tail -30 $out/build-old.log; exit 1; }
el built old
(cd build-new && timeout 200 ./tests/test_spgemm_ooc_gpu > $out/test_spgemm_ooc_gpu.txt 2>&1; echo "rc $?" >> $out/test_spgemm_ooc_gpu.txt)
tail -3 $out/test_spgemm_ooc_gpu.txt; el gputest
build-new/tests/test_spgemm_ooc | tail -1
r(){ local name=$1 bin=$2 src=$3; shift 3; timeout 60 $bin spgemm $src "$@" --no-verify --json > $out/$name.json 2> $out/$name.err; python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['result']
print('$name', {k:(round(r[k],4) if isinstance(r.get(k),float) else r.get(k)) for k in ('numeric_s','plan_s','k_ratio','gpu_share','gpu_share_run','panels_gpu','panels_cpu','panels_stolen','gpu_transfer_s','gpu_compute_s','gpu_idle_s','cpu_compute_s','device_peak_bytes')})" $out/$name.json 2>&1 | tail -1; }
for k in 1 2 3; do
  for M in gen:rmat:scale=16,ef=16 gen:rmat:scale=18,ef=8 gen:poisson3d:n=150 gen:stencil27:n=100; do
    n=${M#gen:}; n=${n//[:=,]/_}
    r $n-hetero-new-$k build-new/spx $M --device-mem-limit 512MiB --panels hetero --timeline $out/$n-hetero-new-$k.svg
    r $n-hetero-old-$k /tmp/old/b/spx $M --device-mem-limit 512MiB --panels hetero
    if [ $k -le 2 ]; then r $n-gpu-$k build-new/spx $M --device-mem-limit 512MiB --panels gpu; r $n-cpu-$k build-new/spx $M --device-mem-limit 512MiB --panels cpu; fi
  done
  el round $k
done | tee $out/ooc.txt
el done
cd $OUT && tar czf r.tgz r && rm -rf r
