#!/usr/bin/env bash
# session 2026-11-29 (third), run 1: R-MAT 23's hot band with x's hottest columns kept in L1
# (ld.global.nc.L1::evict_last) and the cold tail's gathers passing by (L1::no_allocate, mode 1;
# L1::evict_first, mode 2; hot plain __ldg + cold no_allocate, mode 3). The budget (bytes of x
# kept, SPX_EXP_HOT_L1_BYTES; 0 = plain __ldg for every gather, the code before) in one build;
# modes 2 and 3 at 128 KB. Then ncu of the hot band's kernels at 0 and 128 KB (fp64).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
for mode in 1 2 3; do
  B=build-m$mode
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS="-DSPX_CUDA_X_SPLIT_MODE=$mode" > $out/build-m$mode.log 2>&1 \
    && cmake --build $B -j16 --target spx_cli >> $out/build-m$mode.log 2>&1 || { tail -30 $out/build-m$mode.log; exit 1; }
  echo "build m$mode $(el) s"
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
M=gen:rmat:scale=23,ef=8,sym=1
F=cusparse/alg1,hbp/auto
run() { # mode budget precision
  SPX_EXP_HOT_L1_BYTES=$2 timeout 100 build-m$1/spx bench --backend cuda --plan-reps 1 --precision $3 --formats $F $M \
    > $out/b-m$1-$2-$3.txt 2>&1
  echo "m$1 $2 $3 rc=$? $(grep -E 'hbp/auto' $out/b-m$1-$2-$3.txt | awk '{print $6, $7, $12}') alg1 $(grep alg1 $out/b-m$1-$2-$3.txt | awk '{print $6}') $(el) s"
}
for p in fp64 fp32; do
  for b in 0 131072 65536 196608 32768; do run 1 $b $p; done
  run 2 131072 $p
  run 3 131072 $p
  run 1 0 $p
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for b in 0 131072; do
  SPX_EXP_HOT_L1_BYTES=$b timeout 120 $NCU --kernel-name regex:'csr_stream|gather_hot' --launch-skip 6 --launch-count 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
    build-m1/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats hbp/auto $M > $out/ncu-$b.txt 2>&1
  echo "ncu $b rc=$? $(el) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
