#!/usr/bin/env bash
# session 2026-11-28 (third), run 3: ld.cs on every format's matrix loads (csr, hbp tiled and
# wide, ehyb, teb) as the default (v1) against __ldg (v0, -DSPX_CUDA_STREAM_LOAD_CS=0), two
# builds of one tree. test_gpu (quick, every format) on v1; then benches interleaved v0/v1:
# the FEM16 set and the large suite's stencils with ehyb (METIS, plan order), hbp/auto on
# R-MAT 23 fp32 and uniform 16.8M, csr auto on the shared suite.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
for v in 0 1; do
  B=build-v$v
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_CUDA_STREAM_LOAD_CS=$v > $out/build-v$v.log 2>&1 \
    && cmake --build $B -j16 --target spx_cli $([ $v = 1 ] && echo test_gpu) >> $out/build-v$v.log 2>&1 || tail -30 $out/build-v$v.log
  echo "build v$v $(el) s"
done
grep -i "metis" build-v1/CMakeCache.txt | head -3 > $out/metis.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
SPX_GPU_TEST_QUICK=1 timeout 150 build-v1/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu quick rc=$? $(tail -1 $out/test_gpu.log) $(el) s"
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in 0 1; do
  timeout 90 build-v$v/spx bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem-v$v.json > $out/fem-v$v.txt 2>&1; echo "fem v$v rc=$? $(el) s"
done
for p in fp64 fp32; do
  for v in 0 1; do
    [ $(el) -lt 420 ] || break
    timeout 90 build-v$v/spx bench --backend cuda --precision $p --plan-reps 1 --order plan --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/s27-v$v-$p.json > $out/s27-v$v-$p.txt 2>&1; echo "s27 v$v $p rc=$? $(el) s"
  done
done
for v in 0 1; do
  [ $(el) -lt 480 ] || break
  timeout 60 build-v$v/spx bench --backend cuda --precision fp32 --plan-reps 1 --formats cusparse/alg1,hbp/auto gen:rmat:scale=23,ef=8,sym=1 > $out/rmat32-v$v.txt 2>&1; echo "rmat32 v$v rc=$? $(el) s"
  timeout 60 build-v$v/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/auto gen:uniform:m=16777216,k=8 > $out/uni-v$v.txt 2>&1; echo "uni v$v rc=$? $(el) s"
done
for v in 0 1; do
  [ $(el) -lt 540 ] || break
  timeout 40 build-v$v/spx bench --backend cuda --formats cusparse/alg1,csr/auto --suite bench/suites/shared.txt --json $out/shared-v$v.json > $out/shared-v$v.txt 2>&1; echo "shared v$v rc=$? $(el) s"
done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
