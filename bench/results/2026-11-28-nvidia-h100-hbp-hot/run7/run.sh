#!/usr/bin/env bash
# session 2026-11-28 (second), run 7: b659ecf (the tidy: hbp_table.cuh shared by the tiled and wide GPU halves):
# test_hbp_wide_gpu, test_hbp_gpu, test_gpu (quick) over hbp
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cp .device/commit $out/commit.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target test_gpu test_hbp_wide_gpu test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
timeout 60 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log) $(( $(date +%s)-t0 )) s"
timeout 90 build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(( $(date +%s)-t0 )) s"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp timeout 90 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu quick hbp rc=$? $(tail -1 $out/test_gpu.log) $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
