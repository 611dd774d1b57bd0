#!/usr/bin/env bash
# session 2026-11-28 (fourth), run 4: why is ehyb/metis slower than ehyb/grow on stencil27 n=160
# (plan order, fp64) though it moves 4 % fewer bytes? ncu --set full of the slice kernel, each.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for a in grow metis; do
  timeout 150 $NCU --kernel-name regex:ehyb_slice --launch-skip 3 --launch-count 1 --set full --import-source no \
    build-gpu/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --order plan --formats ehyb/$a gen:stencil27:n=160 > $out/ncu-$a.txt 2>&1
  echo "ncu $a rc=$? $(( $(date +%s)-t0 )) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
