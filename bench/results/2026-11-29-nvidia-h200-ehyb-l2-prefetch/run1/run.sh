#!/usr/bin/env bash
# session 2026-11-29, run 1: ehyb's slices prefetched into L2 (SPX_EHYB_CUDA_L2_PREFETCH):
# pf0 = none (the code of 01451b9, restructured), pf1 = a warp's own slice as it starts it,
# pf2 = the next slice, claimed one ahead. test_gpu (quick) over ehyb and memcheck on pf1 and pf2;
# ehyb/grow in plan order on stencil27 n=160 and poisson3d n=300, fp64 and fp32, two rounds; then
# ehyb/metis with csr auto on stencil27 n=160 fp64.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
for v in 0 1 2; do
  T="--target spx_cli"; [ $v != 0 ] && T="--target spx_cli --target test_gpu"
  F="-DSPX_EHYB_CUDA_L2_PREFETCH=$v"
  ( cmake -S . -B build-pf$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=$F" > $out/build-pf$v.log 2>&1 \
    && cmake --build build-pf$v -j6 $T >> $out/build-pf$v.log 2>&1 || tail -20 $out/build-pf$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
for v in 1 2; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 60 build-pf$v/tests/test_gpu > $out/test_gpu-pf$v.log 2>&1; echo "test_gpu quick ehyb pf$v rc=$? $(tail -1 $out/test_gpu-pf$v.log)"
done
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 90 $cs --tool memcheck --error-exitcode 99 build-pf2/tests/test_gpu > $out/san-memcheck-pf2.log 2>&1; echo "memcheck quick ehyb pf2 rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-pf2.log | tr '\n' ' ')"
echo "tests $(el) s"; pack
for round in 1 2; do for p in fp64 fp32; do for v in 0 1 2; do
  [ $(el) -lt 480 ] || break
  timeout 60 build-pf$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,ehyb/grow gen:stencil27:n=160 gen:poisson3d:n=300 --json $out/b-pf$v-$p-r$round.json > $out/b-pf$v-$p-r$round.txt 2>&1; echo "pf$v $p r$round rc=$? $(el) s"
  pack
done; done; done
for v in 0 1 2; do
  [ $(el) -lt 440 ] || break
  timeout 60 build-pf$v/spx bench --backend cuda --plan-reps 1 --precision fp64 --order plan --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/m-pf$v-fp64.json > $out/m-pf$v-fp64.txt 2>&1; echo "metis pf$v fp64 rc=$? $(el) s"
  pack
done
echo "done $(el) s"
pack; rm -rf $OUT/r
