#!/usr/bin/env bash
# session 2026-11-28 (third), hot prefix run 1: hbp's hot band 0 through csr stream with x's
# hottest columns in shared memory (csr_stream_prefix_kernel). Builds: SPX_HBP_HOT_PREFIX_BYTES
# 0 (the plain stream kernel), 96K, and the default 192K (with the tests). Tests on the default:
# test_csr_prefix_gpu, test_hbp_gpu, test_gpu quick on hbp; memcheck and racecheck of
# test_csr_prefix_gpu (quick). Then R-MAT 23 fp64 and fp32, variants interleaved, twice.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
for v in 192 0 96; do
  B=build-p$v
  tg="spx_cli"; [ $v = 192 ] && tg="spx_cli test_csr_prefix_gpu test_hbp_gpu test_gpu"
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_HBP_HOT_PREFIX_BYTES=$((v*1024)) > $out/build-p$v.log 2>&1 \
    && cmake --build $B -j16 --target $tg >> $out/build-p$v.log 2>&1 || tail -30 $out/build-p$v.log
  echo "build p$v $(el) s"
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
T=build-p192/tests
timeout 120 $T/test_csr_prefix_gpu > $out/test_csr_prefix_gpu.log 2>&1; echo "test_csr_prefix_gpu rc=$? $(tail -1 $out/test_csr_prefix_gpu.log) $(el) s"
timeout 120 $T/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(el) s"
SPX_GPU_TEST_FORMATS=hbp/hot,hbp/auto timeout 150 $T/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp hot,auto rc=$? $(tail -1 $out/test_gpu.log) $(el) s"
cs=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 timeout 150 $cs --tool $tool --error-exitcode 99 $T/test_csr_prefix_gpu > $out/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/san-$tool.log | tr '\n' ' ') $(el) s"
done
R=gen:rmat:scale=23,ef=8,sym=1
for k in 1 2; do
  for p in fp64 fp32; do
    for v in 192 0 96; do
      [ $(el) -lt 540 ] || break
      timeout 60 build-p$v/spx bench --backend cuda --plan-reps 1 --precision $p --formats cusparse/alg1,csr/auto,hbp/hot $R --json $out/p$v-$p-$k.json > $out/p$v-$p-$k.txt 2>&1; echo "bench p$v $p $k rc=$? $(el) s"
    done
  done
done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
