#!/usr/bin/env bash
# session 2026-11-29 (third), hot L1 bands run 1: R-MAT 23's hot band split so that its first
# band holds only the hottest columns, as many as SPX_EXP_HOT_SPLIT_BYTES of x (sized to an
# SM's L1: every SM gathers from the same small segment, with no cold sector in between), the
# last band the rest (SPX_EXP_HOT_BANDS bands, the last taking what is left). Experimental
# host-build hack (--build host); 0 = the one hot band of c53c102.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
M=gen:rmat:scale=23,ef=8,sym=1
run() { # split_bytes bands precision
  SPX_EXP_HOT_SPLIT_BYTES=$1 SPX_EXP_HOT_BANDS=$2 timeout 100 $B/spx bench --backend cuda --build host --plan-reps 1 \
    --precision $3 --formats cusparse/alg1,hbp/auto $M > $out/b-$1-$2-$3.txt 2>&1
  echo "$1 $2 $3 rc=$? $(grep -E 'hbp/auto' $out/b-$1-$2-$3.txt | awk '{print $5, $6, $7, $12}') alg1 $(grep alg1 $out/b-$1-$2-$3.txt | awk '{print $6}') $(el) s"
}
for p in fp64 fp32; do
  run 0 0 $p
  run 131072 2 $p
  run 65536 2 $p
  run 196608 2 $p
  run 131072 3 $p
  run 0 0 $p
done
cd $OUT && tar czf r.tgz r && rm -rf r
