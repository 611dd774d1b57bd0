#!/usr/bin/env bash
# session 2026-11-29 (second), run 4: the slice kernel's blocks as tasks {part, share}: unequal
# parts (voronoi) split over SPX_EHYB_CUDA_BALANCE_WAVES waves and launched longest first.
# Builds: d (default: waves 2, voronoi cells at 80 % of the segment), w4 (waves 4), f60 (cells
# at 60 %). Tests on d: test_ehyb_gpu (and memcheck, full), test_gpu over ehyb (and memcheck,
# racecheck, quick). Benches per build: the large stencils fp64/fp32 in plan order (ALG1, csr
# auto, ehyb/voronoi; grow and metis on stencil27 with d), FEM16 (ALG1, ehyb/metis, voronoi).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [d]="" [w4]="-DSPX_EHYB_CUDA_BALANCE_WAVES=4" [f60]="-DSPX_EHYB_VORONOI_FILL_PCT=60" )
for v in d w4 f60; do
  T="--target spx_cli"; [ $v = d ] && T="--target spx_cli --target test_gpu --target test_ehyb_gpu"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=${FL[$v]}" "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j6 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( s=$(date +%s); timeout 300 $cs --tool memcheck --error-exitcode 99 build-d/tests/test_ehyb_gpu > $out/san-memcheck-ehyb_gpu.log 2>&1; echo "memcheck test_ehyb_gpu full rc=$? $(( $(date +%s)-s )) s $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-ehyb_gpu.log | tr '\n' ' ')" ) &
for tool in memcheck racecheck; do
  ( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 300 $cs --tool $tool --error-exitcode 99 build-d/tests/test_gpu > $out/san-$tool-gpu.log 2>&1; echo "$tool test_gpu quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/san-$tool-gpu.log | tr '\n' ' ')" ) &
done
timeout 120 build-d/tests/test_ehyb_gpu > $out/test_ehyb_gpu.log 2>&1; echo "test_ehyb_gpu rc=$? $(tail -1 $out/test_ehyb_gpu.log)"
grep -m5 FAIL $out/test_ehyb_gpu.log
SPX_GPU_TEST_FORMATS=ehyb timeout 200 build-d/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
grep -m5 FAIL $out/test_gpu.log
wait
echo "tests $(el) s"; pack
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in d w4 f60; do
  for pm in fp64:stencil27:n=160 fp32:stencil27:n=160 fp32:poisson3d:n=300 fp64:poisson3d:n=300; do
    p=${pm%%:*}; m=${pm#*:}
    F=cusparse/alg1,csr/auto,ehyb/voronoi; [ $v = d ] && [ ${m%%:*} = stencil27 ] && F=$F,ehyb/grow,ehyb/metis
    timeout 90 build-$v/spx bench --backend cuda --plan-reps 1 --order plan --precision $p --formats $F gen:$m --json $out/$v-$m-$p.json > $out/$v-$m-$p.txt 2>&1; echo "$v $m $p rc=$? $(el) s"
  done
  timeout 60 build-$v/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis,ehyb/voronoi $FEM --json $out/$v-fem.json > $out/$v-fem.txt 2>&1; echo "$v fem rc=$? $(el) s"
  pack
done
echo "done $(el) s"
pack; rm -rf $OUT/r
