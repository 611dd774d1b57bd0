#!/usr/bin/env bash
# session 2026-11-29 (second), run 2: device-built plans in plan order keep their permutation
# (run 1's verification failure), and the slice kernel's blocks sized per part (a part over
# SPX_EHYB_CUDA_BLOCK_SLACK x the even share of slices is shared by several blocks).
# Builds: s125 (default 1.25), s100 (1.0), s200 (2.0). Tests and memcheck on s125; then per
# build: stencil27 n=160 fp64 and fp32, poisson3d n=300 fp32 in plan order (ALG1, csr auto,
# ehyb/voronoi, ehyb/grow) and FEM16 (ALG1, ehyb/metis, ehyb/voronoi); poisson3d fp64 on s125.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [s125]="" [s100]="-DSPX_EHYB_CUDA_BLOCK_SLACK=1.0" [s200]="-DSPX_EHYB_CUDA_BLOCK_SLACK=2.0" )
for v in s125 s100 s200; do
  T="--target spx_cli"; [ $v = s125 ] && T="--target spx_cli --target test_gpu --target test_ehyb_gpu"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j6 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 timeout 150 $cs --tool memcheck --error-exitcode 99 build-s125/tests/test_ehyb_gpu > $out/san-memcheck-ehyb_gpu.log 2>&1; echo "memcheck test_ehyb_gpu quick rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-ehyb_gpu.log | tr '\n' ' ')" ) &
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 200 $cs --tool memcheck --error-exitcode 99 build-s125/tests/test_gpu > $out/san-memcheck-gpu.log 2>&1; echo "memcheck test_gpu quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-gpu.log | tr '\n' ' ')" ) &
timeout 120 build-s125/tests/test_ehyb_gpu > $out/test_ehyb_gpu.log 2>&1; echo "test_ehyb_gpu rc=$? $(tail -1 $out/test_ehyb_gpu.log)"
grep -m5 FAIL $out/test_ehyb_gpu.log
SPX_GPU_TEST_FORMATS=ehyb timeout 200 build-s125/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
grep -m5 FAIL $out/test_gpu.log
wait
echo "tests $(el) s"; pack
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in s125 s100 s200; do
  for pm in fp64:stencil27:n=160 fp32:stencil27:n=160 fp32:poisson3d:n=300; do
    p=${pm%%:*}; m=${pm#*:}
    F=cusparse/alg1,csr/auto,ehyb/voronoi; [ $v = s125 ] && F=$F,ehyb/grow
    timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --order plan --precision $p --formats $F gen:$m --json $out/$v-$m-$p.json > $out/$v-$m-$p.txt 2>&1; echo "$v $m $p rc=$? $(el) s"
  done
  timeout 60 build-$v/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis,ehyb/voronoi $FEM --json $out/$v-fem.json > $out/$v-fem.txt 2>&1; echo "$v fem rc=$? $(el) s"
  pack
done
timeout 60 build-s125/spx bench --backend cuda --plan-reps 1 --order plan --precision fp64 --formats cusparse/alg1,csr/auto,ehyb/voronoi gen:poisson3d:n=300 --json $out/s125-poisson3d:n=300-fp64.json > $out/s125-poisson3d:n=300-fp64.txt 2>&1; echo "s125 p300 fp64 rc=$? $(el) s"
echo "done $(el) s"
pack; rm -rf $OUT/r
