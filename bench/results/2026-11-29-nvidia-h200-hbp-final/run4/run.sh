#!/usr/bin/env bash
# session 2026-11-29 (third), hbp final run 4 (22aced5): R-MAT 23 in plan order, where ehyb's
# device-built voronoi partition renumbers rows and columns together: does a locality order
# help the graph where hbp's caller-order tricks stop (1.16-1.17x)?
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
timeout 150 $B/spx bench --backend cuda --order plan --plan-reps 1 --formats cusparse/alg1,csr/auto,hbp/auto,ehyb/auto \
  gen:rmat:scale=23,ef=8,sym=1 --json $out/rmat-plan-fp64.json > $out/rmat-plan-fp64.txt 2>&1
echo "rc=$? $(el) s"; awk 'NR>3{print $4, $5, $6, $12}' $out/rmat-plan-fp64.txt
cd $OUT && tar czf r.tgz r && rm -rf r
