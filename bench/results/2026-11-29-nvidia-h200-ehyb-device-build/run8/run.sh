#!/usr/bin/env bash
# session 2026-11-29 (second), run 8: after the tidy (CUB scratch, scan and sort shared by hbp's
# and ehyb's builds in src/cuda/cub_scratch.cuh; ehyb's small build kernels in one header):
# test_ehyb_gpu, test_hbp_gpu, test_gpu quick over ehyb and hbp.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build -j16 --target test_gpu --target test_ehyb_gpu --target test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
timeout 120 build/tests/test_ehyb_gpu > $out/test_ehyb_gpu.log 2>&1; echo "test_ehyb_gpu rc=$? $(tail -1 $out/test_ehyb_gpu.log)"
timeout 120 build/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log)"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb,hbp timeout 150 build/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu quick ehyb,hbp rc=$? $(tail -1 $out/test_gpu.log)"
echo "done $(el) s"
rm -f $out/build.log; (cd $OUT && tar czf r.tgz r && rm -rf r)
