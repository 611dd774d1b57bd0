#!/usr/bin/env bash
# session 2026-11-26d run 11: ehyb 4 entries a lane, at most 16 lanes (working tree) vs 9965e3e: tests, shared suite x2 interleaved
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
old=/tmp/old; rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j6 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) &
bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait
echo "build $(( $(date +%s)-t0 )) s"
SPX_GPU_TEST_FORMATS=ehyb timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck: $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')"
for rep in 1 2; do for v in new old; do
  B=build-gpu/spx; [ $v = old ] && B=$old/b/spx
  timeout 150 $B bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis --suite bench/suites/shared.txt --json $out/shared-$v-$rep.json > $out/shared-$v-$rep.txt 2>&1; echo "shared $v $rep rc=$? $(( $(date +%s)-t0 )) s"
done; done
timeout 100 build-gpu/spx bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis gen:poisson3d:n=100 gen:stencil27:n=60 --json $out/stencils-new.json > $out/stencils-new.txt 2>&1; echo "stencils rc=$?"
cd $OUT && tar czf r.tgz r && rm -rf r
