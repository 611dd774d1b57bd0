#!/usr/bin/env bash
# session 2026-11-29 (third), hot cold-order run 1: the hot numbering keeps its top 1/16 of the
# non-empty columns by count and the others in source order, so the per-SpMV gather of x into
# hot order reads the cold part ascending (it was 62.8 us of R-MAT 23 fp64's 1.09 ms, random
# reads). Tests (test_hbp_gpu: device build == host build, hot included; test_gpu quick over
# hbp/hot and hbp/auto), R-MAT 23 fp64 and fp32 in two processes each, ncu of gather_hot.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli test_hbp_gpu test_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
timeout 120 $B/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(el) s"
SPX_GPU_TEST_FORMATS=hbp/hot,hbp/auto SPX_GPU_TEST_QUICK=1 timeout 120 $B/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu rc=$? $(tail -1 $out/test_gpu.log) $(el) s"
M=gen:rmat:scale=23,ef=8,sym=1
for p in fp64 fp32 fp64 fp32; do
  i=$((${i:-0}+1))
  timeout 100 $B/spx bench --backend cuda --plan-reps 1 --precision $p --formats cusparse/alg1,hbp/auto $M \
    --json $out/b-$i-$p.json > $out/b-$i-$p.txt 2>&1
  echo "$i $p rc=$? $(grep -E 'hbp/auto' $out/b-$i-$p.txt | awk '{print $5, $6, $12}') alg1 $(grep alg1 $out/b-$i-$p.txt | awk '{print $6}') $(el) s"
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
timeout 90 $NCU --kernel-name regex:'gather_hot|csr_stream' --launch-skip 4 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  $B/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats hbp/auto $M > $out/ncu-fp64.txt 2>&1
echo "ncu rc=$? $(grep -E 'Duration' $out/ncu-fp64.txt | tr -s ' ' | tr '\n' ';') $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
