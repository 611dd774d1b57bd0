#!/usr/bin/env bash
# session 2026-11-26f run 6: where the spx GPU SpGEMM plan's time goes (a7cdc56 with synchronising
# host timers, .device/trace2.py), and ncu kernel times of the power-law product
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
t=/tmp/trc; rm -rf $t; mkdir -p $t && tar -xf .device/head.tar -C $t && ln -sfn $PWD/.device $t/.device && python3 .device/trace2.py $t
cmake -S $t -B $t/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 && cmake --build $t/b -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -20 $out/build.log; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
M="../shared/matrices/cage10.mtx.gz ../shared/matrices/fe_body.mtx.gz gen:stencil27:n=40 gen:poisson3d:n=60 ../shared/matrices/finan512_pattern.mtx.gz gen:uniform:m=2000000,k=8"
SPX_TRACE=1 $t/b/spx bench --op spgemm --backend cuda --methods spx --reps 2 $M > $out/trace.txt 2>&1; el "trace rc=$?"
ncu --metrics gpu__time_duration.sum --print-summary per-kernel $t/b/spx bench --op spgemm --backend cuda --methods spx --reps 1 gen:powerlaw:m=1000000,k=8 > $out/ncu-powerlaw.txt 2>&1; el "ncu rc=$?"
grep -E "^  |spx " $out/trace.txt | head -150
grep -E "spx_spgemm|Kernel|gpu__time|\(" $out/ncu-powerlaw.txt | head -80
cd $OUT && tar czf r.tgz r && rm -rf r
