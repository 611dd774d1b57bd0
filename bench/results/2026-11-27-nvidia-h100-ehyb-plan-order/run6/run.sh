#!/usr/bin/env bash
# session 2026-11-27 ninth, run 6: final checks at HEAD: test_gpu (every format, both orders where a format has one), test_solve, python (GPU), memcheck quick
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_solve spx_python >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 400 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck quick rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')" ) &
timeout 400 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu rc=$? $(tail -1 $out/test_gpu.log) $(( $(date +%s)-t0 )) s"
timeout 200 build-gpu/tests/test_solve > $out/test_solve.log 2>&1; echo "test_solve rc=$? $(tail -1 $out/test_solve.log)"
SPX_SHARED_MATRICES=../shared/matrices timeout 200 python3 python/tests/run.py build-gpu/python -kplan > $out/python.log 2>&1; echo "python -k plan rc=$? $(tail -1 $out/python.log)"
wait
echo "all $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
