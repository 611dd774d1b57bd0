#!/usr/bin/env bash
# session 2026-11-27g run 4: the CPU Gustavson at HEAD (fc3313b + docs) on the 16-core host:
# the large suite, 16 threads against 1 (--cpu-scaling), twice.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices; }
cmake -S . -B bc -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF > /dev/null && cmake --build bc -j16 --target spx_cli > $out/build.txt 2>&1; el built
for i in 1 2; do
  bc/spx bench --op spgemm --backend cpu --cpu-scaling --reps 3 --suite bench/suites/spgemm-large.txt --json $out/cpu-$i.json > $out/cpu-$i.txt 2>&1; el "scaling $i rc=$?"
done
grep -v "^spgemm\|^plan\|^x_" $out/cpu-1.txt
cd $OUT && tar czf r.tgz r && rm -rf r
