#!/usr/bin/env bash
# session 2026-11-29, run 2: bounded L2 prefetch of ehyb's slices (run 1: a whole slice at
# its start won on poisson3d, lost on stencil27 fp64, whose slices are 4x longer).
# pf0 none, pf1 own slice whole, pf3 rolling lead 128 / 256 entries, pf4 rolling 256 plus the
# next slice's head. test_gpu (quick) over ehyb on pf3-128 and pf4, memcheck on pf3-256;
# ehyb/grow in plan order on stencil27 n=160 and poisson3d n=300, fp64 and fp32, two rounds.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [pf0]="-DSPX_EHYB_CUDA_L2_PREFETCH=0" [pf1]="-DSPX_EHYB_CUDA_L2_PREFETCH=1"
  [pf3l128]="-DSPX_EHYB_CUDA_L2_PREFETCH=3 -DSPX_EHYB_CUDA_PREFETCH_LEAD=128"
  [pf3l256]="-DSPX_EHYB_CUDA_L2_PREFETCH=3 -DSPX_EHYB_CUDA_PREFETCH_LEAD=256"
  [pf4l256]="-DSPX_EHYB_CUDA_L2_PREFETCH=4 -DSPX_EHYB_CUDA_PREFETCH_LEAD=256" )
VS="pf0 pf1 pf3l128 pf3l256 pf4l256"
for v in $VS; do
  T="--target spx_cli"; case $v in pf3*|pf4*) T="--target spx_cli --target test_gpu";; esac
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j4 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
for v in pf3l128 pf4l256; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 60 build-$v/tests/test_gpu > $out/test_gpu-$v.log 2>&1; echo "test_gpu quick ehyb $v rc=$? $(tail -1 $out/test_gpu-$v.log)"
done
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 90 $cs --tool memcheck --error-exitcode 99 build-pf3l256/tests/test_gpu > $out/san-memcheck-pf3l256.log 2>&1; echo "memcheck quick ehyb pf3l256 rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-pf3l256.log | tr '\n' ' ')"
echo "tests $(el) s"; pack
for round in 1 2; do for p in fp64 fp32; do for v in $VS; do
  [ $(el) -lt 540 ] || break
  timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,ehyb/grow gen:stencil27:n=160 gen:poisson3d:n=300 --json $out/b-$v-$p-r$round.json > $out/b-$v-$p-r$round.txt 2>&1; echo "$v $p r$round rc=$? $(el) s"
  pack
done; done; done
echo "done $(el) s"
pack; rm -rf $OUT/r
