#!/usr/bin/env bash
# session 2026-11-27 ninth, run 3: ncu of ehyb's slice kernel in plan order (fp64, grow) on the large stencils
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
if [ ! -x build-gpu/spx ]; then
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
    && cmake --build build-gpu -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
fi
echo "build $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for m in gen:poisson3d:n=300 gen:stencil27:n=160; do
  tag=$(echo $m | tr -dc 'a-z0-9')
  timeout 200 $NCU --kernel-name regex:ehyb_slice --launch-skip 2 --launch-count 1 --set full \
    $S bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats ehyb/grow --order plan $m > $out/ncu-$tag.txt 2>&1
  echo "ncu $m rc=$? $(( $(date +%s)-t0 )) s"
done
$S info gen:poisson3d:n=300 --backend cuda --format ehyb --algo grow --order plan > $out/info-p300.txt 2>&1
$S info gen:stencil27:n=160 --backend cuda --format ehyb --algo grow --order plan > $out/info-s27.txt 2>&1
echo "info $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
