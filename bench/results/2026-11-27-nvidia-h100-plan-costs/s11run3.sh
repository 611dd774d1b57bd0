#!/usr/bin/env bash
# session 2026-11-27d run 3: csr stream blocks cut on the device by one warp a piece of 2^13
# rows (ballots over prefix sums): test_gpu csr (device walk == host walk, features == host
# mirror), memcheck; A/B against f5af871 (host walk in 2^18-row pieces) on the large suite
# (every format but teb), fp64/fp32, twice
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
( mkdir -p /tmp/old && tar xzf .device/old.tgz -C /tmp/old && cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build /tmp/old/b -j6 --target spx_cli >> $out/old-build.log 2>&1 || tail -20 $out/old-build.log ) &
bpid=$!
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
wait $bpid; el "old build"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr timeout 300 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-gpu-csr.log 2>&1 &
mpid=$!
SPX_GPU_TEST_FORMATS=csr timeout 300 build-gpu/tests/test_gpu > $out/test-gpu-csr.log 2>&1; el "test_gpu csr rc=$? $(tail -1 $out/test-gpu-csr.log)"
grep -E "FAIL|stream blocks" $out/test-gpu-csr.log | head -10
wait $mpid; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-gpu-csr.log | tail -2 | tr '\n' ' ')"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,auto
for prec in fp64 fp32 fp64b; do
  for v in new old; do
    bin=build-gpu/spx; [ $v = old ] && bin=/tmp/old/b/spx
    [ $(( $(date +%s)-t0 )) -gt 500 ] && { el "skip large $v $prec"; continue; }
    timeout 120 $bin bench --backend cuda --reps 5 --formats $F --precision ${prec%b} --suite bench/suites/large.txt --json $out/large-$v-$prec.json > $out/large-$v-$prec.txt 2>&1; el "large $v $prec rc=$?"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
