#!/usr/bin/env bash
# session 2026-11-26g run 3: same-run A/B of 9fa0093 (old) against the dense-panel tree (new), ABAB; ncu per-kernel times
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
o=/tmp/old; rm -rf $o; mkdir -p $o && tar -xf .device/base.tar -C $o && ln -sfn $PWD/.device $o/.device
( cmake -S $o -B $o/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build-old.log 2>&1 && cmake --build $o/b -j8 --target spx_cli >> $out/build-old.log 2>&1 ) &
SPX_COMMIT=$(cat .device/commit)-dense bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el build; [ -x $o/b/spx ] || { tail -20 $out/build-old.log; exit 1; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
M="gen:powerlaw:m=1000000,k=8 gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:rmat:scale=16,ef=16"
for rep in 1 2; do
  $o/b/spx bench --op spgemm --backend cuda --reps 5 --methods spx,cusparse/alg1 $M > $out/old$rep.txt 2>&1; el "old $rep rc=$?"
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx,spx/sparse,spx/dense,cusparse/alg1 $M > $out/new$rep.txt 2>&1; el "new $rep rc=$?"
done
for f in old1 new1 old2 new2; do echo "== $f"; grep -E "^gen" $out/$f.txt | cut -c1-31,32-58,90-130 ; done
for a in sparse dense; do
ncu --metrics gpu__time_duration.sum --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx/$a --reps 1 gen:powerlaw:m=1000000,k=8,alpha=1.5 > $out/ncu-$a.txt 2>&1; el "ncu $a rc=$?"
done
cd $OUT && tar czf r.tgz r && rm -rf r
