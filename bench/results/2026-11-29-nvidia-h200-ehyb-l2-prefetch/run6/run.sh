#!/usr/bin/env bash
# session 2026-11-29, run 6: after the tidy (the prefetch threshold counts spx_ehyb_fmt_bytes):
# test_gpu (quick) over ehyb; the kernel chosen on stencil27 n=160 (grow, fp64, plan order) and
# on two FEM matrices (METIS): _pf expected on the stencil only.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli --target test_gpu >> $out/build.log 2>&1 || tail -20 $out/build.log
echo "build $(el) s"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 60 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu quick ehyb rc=$? $(tail -1 $out/test_gpu.log)"
timeout 40 build-gpu/spx bench --backend cuda --plan-reps 1 --order plan --formats cusparse/alg1,csr/auto,ehyb/grow gen:stencil27:n=160 --json $out/s27.json > $out/s27.txt 2>&1; echo "s27 rc=$?"
timeout 30 build-gpu/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis ../shared/matrices/finan512_pattern.mtx.gz ../shared/matrices/bcsstk29.mtx.gz --json $out/fem.json > $out/fem.txt 2>&1; echo "fem rc=$?"
grep -h -o '"kernel":"ehyb[^"]*"' $out/s27.json $out/fem.json
echo "done $(el) s"
rm -f $out/build.log; (cd $OUT && tar czf r.tgz r && rm -rf r)
