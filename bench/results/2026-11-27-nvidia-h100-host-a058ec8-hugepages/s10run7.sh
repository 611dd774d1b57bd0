#!/usr/bin/env bash
# session 2026-11-27c run 7 (CPU only, 16 cores): the CPU SpGEMM with large host blocks advised
# as huge pages (SPX_HUGE_PAGES=1, default) against 4 KB pages (=0), alternating, same binary
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag | tee $out/thp.txt
cmake -S . -B build-cpu -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF > $out/build.log 2>&1 && cmake --build build-cpu -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -20 $out/build.log; exit 1; }
el build
for M in gen:poisson3d:n=100 gen:stencil27:n=60 gen:uniform:m=1048576,k=8 gen:rmat:scale=16,ef=16; do
  for r in 1 2 3; do for e in 1 0; do
    SPX_HUGE_PAGES=$e build-cpu/spx spgemm $M --backend cpu --threads 16 --no-verify --json > $out/j.json 2>/dev/null
    python3 -c "import json; d=json.load(open('$out/j.json'))['result']; print('$M huge=$e', round(d['plan_s']*1e3,1), {k:round(v*1e3,1) for k,v in d['phases'].items()}, 'total', round(d['total_s']*1e3,1))" | tee -a $out/ab.txt
  done; done
done
el done
cd $OUT && tar czf r.tgz r && rm -rf r
