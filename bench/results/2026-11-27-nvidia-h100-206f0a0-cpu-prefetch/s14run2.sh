#!/usr/bin/env bash
# session 2026-11-27g run 2: new (HEAD) against old (8e3c2df) at 16 threads, interleaved three
# rounds, on the matrices where run 1's suite-order figures disagreed; then scipy's
# single-threaded A @ A against new (scripts/spgemm_scipy_check.py --time).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices; }
rm -rf /tmp/old && mkdir -p /tmp/old && tar xzf .device/old.tgz -C /tmp/old
b(){ cmake -S $1 -B $1/bc -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF > /dev/null && cmake --build $1/bc -j8 --target spx_cli > $out/build-$2.txt 2>&1; }
b . new & b /tmp/old old & wait; el built
M="gen:stencil27:n=60 gen:rmat:scale=16,ef=16 gen:powerlaw:m=1000000,k=8,alpha=1.5 ../shared/matrices/bcsstk33.mtx.gz ../shared/matrices/vibrobox_pattern.mtx.gz ../shared/matrices/astro-ph_pattern.mtx.gz gen:poisson3d:n=100 gen:uniform:m=2000000,k=8"
for i in 1 2 3; do for v in old new; do bin=bc/spx; [ $v = old ] && bin=/tmp/old/bc/spx
  $bin bench --op spgemm $M --backend cpu --reps 7 --json $out/ab-$v$i.json 2>&1 | grep "^gen\|mtx" | sed "s/^/$v$i /"
done; done > $out/ab.txt; el ab
python3 scripts/spgemm_scipy_check.py --spx bc/spx --time --reps 3 --json $out/scipy-a.json \
  gen:poisson3d:n=100 gen:stencil27:n=60 ../shared/matrices/bcsstk29.mtx.gz ../shared/matrices/finan512_pattern.mtx.gz \
  ../shared/matrices/bcsstk33.mtx.gz ../shared/matrices/vibrobox_pattern.mtx.gz ../shared/matrices/fe_body.mtx.gz \
  ../shared/matrices/cage10.mtx.gz ../shared/matrices/astro-ph_pattern.mtx.gz > $out/scipy-a.txt 2>&1; el "scipy a rc=$?"
grep "^|" $out/scipy-a.txt
timeout 240 python3 scripts/spgemm_scipy_check.py --spx bc/spx --time --reps 1 --json $out/scipy-b.json \
  gen:rmat:scale=16,ef=16 gen:powerlaw:m=1000000,k=8 gen:uniform:m=2000000,k=8 > $out/scipy-b.txt 2>&1; el "scipy b rc=$?"
grep "^|" $out/scipy-b.txt
cd $OUT && tar czf r.tgz r && rm -rf r
