#!/usr/bin/env bash
# session 2026-11-26f run 2: CPU SpGEMM on the 16 cores: topology and write bandwidth; A/B of
# old (8bcca38) / new without streamed C / new, 1-4-16 threads; then the spgemm-cpu stage at new
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
cpuflags="-DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF"
( mkdir -p /tmp/old && tar xf .device/base.tar -C /tmp/old && cmake -S /tmp/old -B /tmp/old/b $cpuflags >/dev/null && cmake --build /tmp/old/b -j8 --target spx_cli >/dev/null 2>&1; echo old $? ) &
( cmake -S . -B /tmp/nost $cpuflags -DCMAKE_C_FLAGS="-DSPX_GUS_STREAM_MIN_BYTES=0x4000000000000000ll" >/dev/null && cmake --build /tmp/nost -j8 --target spx_cli >/dev/null 2>&1; echo nost $? ) &
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el build
{ lscpu; lscpu -e; grep -m1 "model name\|cache size" /proc/cpuinfo; cat /sys/kernel/mm/transparent_hugepage/enabled; } > $out/topology.txt 2>&1
gcc -O2 -fopenmp .device/bw.c -o /tmp/bw && /tmp/bw 25000000 | tee $out/bw.txt
el bw
for m in gen:poisson3d:n=100 gen:stencil27:n=60 gen:rmat:scale=16,ef=16; do
  for t in 1 4 16; do
    [ $t = 1 ] && [ $m = gen:rmat:scale=16,ef=16 ] && continue
    for v in old:/tmp/old/b/spx nost:/tmp/nost/spx new:build-gpu/spx; do
      ${v#*:} bench --op spgemm --backend cpu --threads $t --reps 5 --no-verify $m --json $out/ab-${v%%:*}-$t-$(echo $m | tr -c 'a-z0-9\n' _).json > /dev/null 2>&1 || echo "fail $v $m $t"
    done
  done
done
el ab
python3 .device/abt.py $out | tee $out/ab.txt
timeout 300 bash scripts/gpu-check.sh $out spgemm-cpu > $out/spgemm-cpu-stage.txt 2>&1; el "spgemm-cpu stage rc=$?"
grep "^|" $out/spgemm-scipy.txt
el done
cd $OUT && tar czf r.tgz r && rm -rf r
