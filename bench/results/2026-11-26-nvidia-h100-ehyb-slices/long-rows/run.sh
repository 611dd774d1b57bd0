#!/usr/bin/env bash
# session 2026-11-26d run 5: ehyb long rows in the same launch (working tree) vs b8a9056: tests, sanitizers, shared suite, FEM x2
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
old=/tmp/old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j6 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) &
bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait
echo "build $(( $(date +%s)-t0 )) s"
timeout 200 build-gpu/tests/test_gpu_memory > $out/test_gpu_memory.log 2>&1; echo "test_gpu_memory rc=$? $(tail -1 $out/test_gpu_memory.log)"
SPX_GPU_TEST_FORMATS=ehyb timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
cs=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 200 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-$tool.log 2>&1 &
done
wait
for tool in memcheck racecheck; do echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/san-$tool.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
for rep in 1 2; do for v in new old; do
  B=build-gpu/spx; [ $v = old ] && B=$old/b/spx
  timeout 200 $B bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis --suite bench/suites/shared.txt --json $out/shared-fp64-$v-$rep.json > $out/shared-fp64-$v-$rep.txt 2>&1; echo "shared $v $rep rc=$? $(( $(date +%s)-t0 )) s"
done; done
timeout 150 build-gpu/spx bench --backend cuda --precision fp32 --formats cusparse/alg1,csr/auto,ehyb/metis --suite bench/suites/shared.txt --json $out/shared-fp32-new.json > $out/shared-fp32-new.txt 2>&1; echo "shared fp32 rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
