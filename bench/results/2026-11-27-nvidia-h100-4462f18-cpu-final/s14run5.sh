#!/usr/bin/env bash
# session 2026-11-27g run 5: scipy's single-threaded A @ A against spx at HEAD from nothing
# (scripts/spgemm_scipy_check.py --time: medians of --reps runs on both sides).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices; }
[ -x bc/spx ] || { cmake -S . -B bc -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF > /dev/null && cmake --build bc -j16 --target spx_cli > $out/build.txt 2>&1; }; el built
python3 scripts/spgemm_scipy_check.py --spx bc/spx --time --reps 3 --json $out/scipy-a.json \
  gen:poisson3d:n=100 gen:stencil27:n=60 ../shared/matrices/bcsstk29.mtx.gz ../shared/matrices/finan512_pattern.mtx.gz \
  ../shared/matrices/bcsstk33.mtx.gz ../shared/matrices/vibrobox_pattern.mtx.gz ../shared/matrices/fe_body.mtx.gz \
  ../shared/matrices/cage10.mtx.gz ../shared/matrices/astro-ph_pattern.mtx.gz > $out/scipy-a.txt 2>&1; el "scipy a rc=$?"
timeout 330 python3 scripts/spgemm_scipy_check.py --spx bc/spx --time --reps 3 --json $out/scipy-b.json \
  gen:rmat:scale=16,ef=16 gen:powerlaw:m=1000000,k=8 gen:uniform:m=2000000,k=8 > $out/scipy-b.txt 2>&1; el "scipy b rc=$?"
grep "^|" $out/scipy-a.txt $out/scipy-b.txt
cd $OUT && tar czf r.tgz r && rm -rf r
