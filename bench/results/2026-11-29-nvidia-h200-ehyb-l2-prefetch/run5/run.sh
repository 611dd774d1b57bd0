#!/usr/bin/env bash
# session 2026-11-29, run 5: the committed tree (5819e1a) as built by default and with
# SPX_EHYB_CUDA_PREFETCH_ABOVE_L2=0 (every layout prefetched): test_gpu (quick) over ehyb on
# both, memcheck on the second; stencil27 n=160 METIS fp64 in plan order with ALG1 and csr auto.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [new]="" [all]="-DSPX_EHYB_CUDA_PREFETCH_ABOVE_L2=0" )
for v in new all; do
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j8 --target spx_cli --target test_gpu >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 90 $cs --tool memcheck --error-exitcode 99 build-all/tests/test_gpu > $out/san-memcheck-all.log 2>&1; echo "memcheck quick ehyb all rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-all.log | tr '\n' ' ')" ) &
for v in new all; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 60 build-$v/tests/test_gpu > $out/test_gpu-$v.log 2>&1; echo "test_gpu quick ehyb $v rc=$? $(tail -1 $out/test_gpu-$v.log)"
done
wait
echo "tests $(el) s"; pack
timeout 60 build-new/spx bench --backend cuda --plan-reps 1 --order plan --precision fp64 --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/s27-new-fp64.json > $out/s27-new-fp64.txt 2>&1; echo "s27 new fp64 rc=$? $(el) s"
echo "done $(el) s"
pack; rm -rf $OUT/r
