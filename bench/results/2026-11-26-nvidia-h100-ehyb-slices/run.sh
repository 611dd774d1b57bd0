#!/usr/bin/env bash
# session 2026-11-26d run 3: ehyb slices v3 (no ER prefetch: 32 registers) vs NZ_PER_LANE=4 and 60bac69, FEM twice
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
old=/tmp/old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j5 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) &
( cmake -S . -B /tmp/nz4 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_C_FLAGS=-DSPX_EHYB_NZ_PER_LANE=4 > $out/nz4-build.log 2>&1 && cmake --build /tmp/nz4 -j5 --target spx_cli >> $out/nz4-build.log 2>&1; echo "nz4 build rc=$?" ) &
bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait
echo "builds $(( $(date +%s)-t0 )) s"
SPX_GPU_TEST_FORMATS=ehyb timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
cs=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 200 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-$tool.log 2>&1 &
done
wait
for tool in memcheck racecheck; do echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/san-$tool.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz gen:poisson3d:n=100 gen:stencil27:n=60"
for rep in 1 2; do for v in new nz4 old; do
  B=build-gpu/spx; [ $v = old ] && B=$old/b/spx; [ $v = nz4 ] && B=/tmp/nz4/spx
  timeout 150 $B bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem-$v-$rep.json > $out/fem-$v-$rep.txt 2>&1; echo "fem $v $rep rc=$? $(( $(date +%s)-t0 )) s"
done; done
for v in new old; do
  B=build-gpu/spx; [ $v = old ] && B=$old/b/spx
  timeout 120 $B bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/grow gen:poisson3d:n=300 gen:stencil27:n=160 --json $out/large-$v.json > $out/large-$v.txt 2>&1; echo "large $v rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 60 build-gpu/spx bench --backend cuda --precision fp32 --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem32-new.json > $out/fem32-new.txt 2>&1; echo "fem32 rc=$? $(( $(date +%s)-t0 )) s"
timeout 60 /tmp/old/b/spx bench --backend cuda --precision fp32 --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem32-old.json > $out/fem32-old.txt 2>&1; echo "fem32 old rc=$?"
cd $OUT && tar czf r.tgz r && rm -rf r
