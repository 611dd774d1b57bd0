#!/usr/bin/env bash
# session 2026-11-27g run 9: the review fixes (new = HEAD, 0375bcd) against 9a25548 (old:
# rows whole), CPU-only builds, 16 threads, interleaved three rounds over the large
# suite without rmat 18.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices; }
rm -rf /tmp/old && mkdir -p /tmp/old && tar xzf .device/old.tgz -C /tmp/old
b(){ cmake -S $1 -B $1/bc -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF > /dev/null && cmake --build $1/bc -j8 --target spx_cli > $out/build-$2.txt 2>&1; }
b . new & b /tmp/old old & wait; el built
grep -v "rmat:scale=18\|landmark" bench/suites/spgemm-large.txt > /tmp/suite.txt
for i in 1 2 3; do for v in old new; do bin=bc/spx; [ $v = old ] && bin=/tmp/old/bc/spx
  $bin bench --op spgemm --suite /tmp/suite.txt --backend cpu --reps 5 --json $out/ab-$v$i.json > /dev/null 2>&1
done; done; el ab
cd $OUT && tar czf r.tgz r && rm -rf r
