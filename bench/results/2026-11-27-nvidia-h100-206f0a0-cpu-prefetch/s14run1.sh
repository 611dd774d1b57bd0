#!/usr/bin/env bash
# session 2026-11-27g run 1: the CPU Gustavson after prefetching / tree merge / SSE2 read-out
# (new = HEAD) against 8e3c2df (old), CPU-only builds, on the H100 machine's 16-core host.
# new: the large SpGEMM suite, 16 threads against 1 (--cpu-scaling); old: the same suite at
# 16 threads without rmat 18 (time); then both again on three matrices, interleaved.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices; }
rm -rf /tmp/old && mkdir -p /tmp/old && tar xzf .device/old.tgz -C /tmp/old
b(){ cmake -S $1 -B $1/bc -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF > /dev/null && cmake --build $1/bc -j8 --target spx_cli > $out/build-$2.txt 2>&1; }
b . new & b /tmp/old old & wait; el built
ls bc/spx /tmp/old/bc/spx || { tail -20 $out/build-*.txt; exit 1; }
grep -v "rmat:scale=18" bench/suites/spgemm-large.txt > /tmp/suite-no18.txt
bc/spx bench --op spgemm --backend cpu --cpu-scaling --reps 3 --suite bench/suites/spgemm-large.txt --json $out/new-cpu.json > $out/new-cpu.txt 2>&1; el "new rc=$?"
/tmp/old/bc/spx bench --op spgemm --backend cpu --reps 3 --suite /tmp/suite-no18.txt --json $out/old-cpu16.json > $out/old-cpu16.txt 2>&1; el "old rc=$?"
for i in 1 2; do for v in old new; do bin=bc/spx; [ $v = old ] && bin=/tmp/old/bc/spx
  $bin bench --op spgemm gen:poisson3d:n=100 gen:uniform:m=2000000,k=8 gen:powerlaw:m=1000000,k=8 --backend cpu --reps 5 2>&1 | grep "^gen" | sed "s/^/$v$i /"
done; done | tee $out/ab.txt; el ab
cat $out/new-cpu.txt | grep -v "^spgemm\|^plan\|^x_"
cd $OUT && tar czf r.tgz r && rm -rf r
