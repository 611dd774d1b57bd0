#!/usr/bin/env bash
# session 2026-11-27d run 6: csr stream tuning A/B (builds of 5036598 with -D overrides):
# STREAM_NNZ 1024 (small matrices: more blocks), STREAM_CHUNK 2048 / 4096 (long rows split
# finer; the wide matrix runs 19 % behind ALG2), csr/auto + teb/auto + ALG1/ALG2 on the large
# and shared suites, fp64 (large also fp32)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -x build-gpu/spx ] || SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
mk(){ cmake -S . -B /tmp/b-$1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=$2" > $out/b-$1.log 2>&1 && cmake --build /tmp/b-$1 -j5 --target spx_cli >> $out/b-$1.log 2>&1 || tail -5 $out/b-$1.log; }
mk nnz1024 -DSPX_CSR_CUDA_STREAM_NNZ=1024 & mk chunk2048 -DSPX_CSR_CUDA_STREAM_CHUNK=2048 & mk chunk4096 -DSPX_CSR_CUDA_STREAM_CHUNK=4096 & wait
el builds
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
for v in base nnz1024 chunk2048 chunk4096 base2; do
  bin=/tmp/b-$v/spx; [ ${v%2} = base ] && bin=build-gpu/spx
  timeout 60 $bin bench --backend cuda --plan-reps 1 --formats cusparse/alg2,csr/stream --suite bench/suites/shared.txt --json $out/shared-$v.json > $out/shared-$v.txt 2>&1; el "shared $v rc=$?"
  for prec in fp64 fp32; do
    timeout 100 $bin bench --backend cuda --plan-reps 1 --formats cusparse/alg2,csr/stream --precision $prec --suite bench/suites/large.txt --json $out/large-$v-$prec.json > $out/large-$v-$prec.txt 2>&1; el "large $v $prec rc=$?"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
