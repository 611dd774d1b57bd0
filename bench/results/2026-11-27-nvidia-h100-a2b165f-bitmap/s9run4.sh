#!/usr/bin/env bash
# session 2026-11-27b run 4: + SPX_GPU_BITMAP_MIN_SLOTS 128; suites: tests, memcheck,
# racecheck on one bitmap product; A/B against -DSPX_GPU_BITMAP_COLS_PER_SLOT=0 (same tree); ncu sections
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
( cmake -S . -B /tmp/b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_GPU_BITMAP_COLS_PER_SLOT=0 > $out/b0-build.log 2>&1 && cmake --build /tmp/b0 -j8 --target spx_cli >> $out/b0-build.log 2>&1 || tail -20 $out/b0-build.log ) &
bpid=$!
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 280 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
mpid=$!
timeout 150 $cs --tool racecheck --error-exitcode 99 build-gpu/spx spgemm gen:stencil27:n=40 --method spx --no-verify > $out/san-racecheck.log 2>&1; el "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|kernel' $out/san-racecheck.log | tr '\n' ' ' | cut -c1-200)"
timeout 280 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait $bpid; el "b0 build"
wait $mpid; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
S=../shared/matrices
M="gen:stencil27:n=60 gen:stencil27:n=40 gen:poisson3d:n=100 $S/bcsstk29.mtx.gz $S/bcsstk33.mtx.gz $S/finan512_pattern.mtx.gz $S/vibrobox_pattern.mtx.gz $S/fe_body.mtx.gz $S/cage10.mtx.gz $S/astro-ph_pattern.mtx.gz gen:rmat:scale=16,ef=16 gen:uniform:m=2000000,k=8 gen:powerlaw:m=1000000,k=8"
for rep in 1 2; do
  /tmp/b0/spx bench --op spgemm --backend cuda --reps 5 --methods spx $M --json $out/b0-$rep.json > $out/b0-$rep.txt 2>&1; el "b0 $rep rc=$?"
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx $M --json $out/b1-$rep.json > $out/b1-$rep.txt 2>&1; el "b1 $rep rc=$?"
done
/tmp/b0/spx bench --op spgemm --backend cuda --reps 5 --methods spx --transpose-b .device/landmarkT.mtx.gz --json $out/b0-T.json > $out/b0-T.txt 2>&1; el "b0 T rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx --transpose-b .device/landmarkT.mtx.gz --json $out/b1-T.json > $out/b1-T.txt 2>&1; el "b1 T rc=$?"
python3 .device/ab.py $out
ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --kernel-name-base demangled --kernel-name regex:"double, \(int\)0, \(bool\)1" --launch-count 4 build-gpu/spx spgemm gen:stencil27:n=60 --method spx --no-verify > $out/ncu-st27-sections.txt 2>&1; el "ncu rc=$?"
grep -E "rows_kernel|Duration|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Th|Memory Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued" $out/ncu-st27-sections.txt | cut -c1-150 | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
