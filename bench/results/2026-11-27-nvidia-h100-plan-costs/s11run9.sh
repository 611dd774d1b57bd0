#!/usr/bin/env bash
# session 2026-11-27d run 9: why csr/stream trails cuSPARSE ALG2 on the wide matrix (64 rows of
# 217k entries, fp64: 97 us against 80): ncu on both kernels
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gen:wide:m=64,n=2000000,k=200000
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats"
timeout 150 $ncu --kernel-name regex:csr_stream --launch-skip 3 --launch-count 1 $S build-gpu/spx spmv $M --format csr --backend cuda --reps 5 --no-baseline > $out/ncu-csr.txt 2>&1; el "ncu csr rc=$?"
timeout 150 $ncu --launch-count 14 $S build-gpu/spx spmv $M --format cusparse --algo alg2 --backend cuda --reps 5 --no-baseline > $out/ncu-alg2.txt 2>&1; el "ncu alg2 rc=$?"
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp" $out/ncu-csr.txt $out/ncu-alg2.txt | head -60
cd $OUT && tar czf r.tgz r && rm -rf r
