#!/usr/bin/env bash
# session 2026-11-27 run 5: the warp-rows A/B again, alone on the GPU (run 4's ran beside memcheck): SPX_GPU_WARP_MAX_SLOTS=128 (w2) vs 256 (w4), same tree
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -x build-gpu/spx ] || { SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || exit 1; }
[ -x /tmp/w2/spx ] || { cmake -S . -B /tmp/w2 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_GPU_WARP_MAX_SLOTS=128 > $out/w2-build.log 2>&1 && cmake --build /tmp/w2 -j16 --target spx_cli >> $out/w2-build.log 2>&1; }
el builds
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
M="gen:uniform:m=2000000,k=8 gen:uniform:m=100000,k=8 gen:poisson3d:n=60 ../shared/matrices/finan512_pattern.mtx.gz"
for rep in 1 2; do
  /tmp/w2/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M > $out/w2T$rep.txt 2>&1; el "w2T $rep rc=$?"
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M > $out/w4T$rep.txt 2>&1; el "w4T $rep rc=$?"
done
/tmp/w2/spx bench --op spgemm --backend cuda --reps 5 --methods spx gen:uniform:m=2000000,k=8 > $out/w2.txt 2>&1; el "w2 AA rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx,cusparse/alg1,cusparse/alg2,cusparse/alg3 gen:uniform:m=2000000,k=8 > $out/w4.txt 2>&1; el "w4 AA rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx,cusparse/alg1,cusparse/alg2,cusparse/alg3 gen:uniform:m=2000000,k=8 --json $out/uni2m-aat.json > $out/w4T-cus.txt 2>&1; el "w4T cusparse rc=$?"
for f in w2T1 w4T1 w2T2 w4T2 w2 w4 w4T-cus; do echo "== $f"; grep -E "^gen|^finan" $out/$f.txt | awk '{print $1, $2, "plan", $6, "num", $8, "verified", $NF}'; done
cd $OUT && tar czf r.tgz r && rm -rf r
