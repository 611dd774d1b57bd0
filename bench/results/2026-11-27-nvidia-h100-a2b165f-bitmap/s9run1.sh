#!/usr/bin/env bash
# session 2026-11-27b run 1: verify d5a1ac5 (test_spgemm_gpu, memcheck quick); the PEERS.md SpGEMM
# matrices (spx vs cuSPARSE, same run); ncu of stencil27 n=60 A*A; the host's compute scaling
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
gcc -O2 -fopenmp .device/cpuprobe.c -o /tmp/cpuprobe && /tmp/cpuprobe > $out/cpuprobe.txt 2>&1; el "cpuprobe"; cat $out/cpuprobe.txt
lscpu > $out/lscpu.txt 2>&1; grep -i "model name\|mhz\|thread\|core" $out/lscpu.txt | head
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 250 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 250 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
P="gen:poisson3d:n=100 gen:stencil27:n=60 gen:uniform:m=1048576,k=8 ../shared/matrices/bcsstk29.mtx.gz gen:rmat:scale=16,ef=16 gen:rmat:scale=18,ef=8"
build-gpu/spx bench --op spgemm --backend cuda --methods spx,cusparse $P --json $out/peers.json > $out/peers.txt 2>&1; el "peers rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --methods spx,cusparse --transpose-b .device/landmarkT.mtx.gz --json $out/peers-lmt.json > $out/peers-lmt.txt 2>&1; el "peers lmT rc=$?"
{ python3 scripts/spgemm_tables.py $out/peers.json --method spx; python3 scripts/spgemm_tables.py $out/peers-lmt.json --method spx; } > $out/tables-peers.md 2>&1; cat $out/tables-peers.md
ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx --reps 1 gen:stencil27:n=60 > $out/ncu-st27.txt 2>&1; el "ncu sum rc=$?"
python3 bench/results/2026-11-27-nvidia-h100-a73c983-hot-columns/ncu/instances.py $out/ncu-st27.txt
timeout 150 ncu --set full --kernel-name-base demangled --kernel-name regex:"spx_spgemm_(rows|span)_kernel<true" --launch-count 3 build-gpu/spx spgemm gen:stencil27:n=60 --method spx --no-verify > $out/ncu-st27-full.txt 2>&1; el "ncu full rc=$?"
grep -E "spx_spgemm|Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Block Size|Shared Memory Configuration|Dynamic Shared|Memory Throughput|Compute \(SM\)|Issue Slots Busy|Bank" $out/ncu-st27-full.txt | head -60
cd $OUT && tar czf r.tgz r && rm -rf r
