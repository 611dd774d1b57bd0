#!/usr/bin/env bash
# session 2026-11-27 ninth, run 4: solvers in plan order on the GPU (test_solve, memcheck), CG per iteration on poisson3d n=300
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_solve test_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
timeout 200 build-gpu/tests/test_solve > $out/test_solve.log 2>&1; echo "test_solve rc=$? $(tail -1 $out/test_solve.log)"
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 120 $cs --tool memcheck --error-exitcode 99 $S solve gen:poisson3d:n=20,laplace=1 --format ehyb --algo grow --order plan --precond jacobi --backend cuda > $out/san-solve.log 2>&1; echo "memcheck solve rc=$? $(grep 'ERROR SUMMARY' $out/san-solve.log)"
echo "tests $(( $(date +%s)-t0 )) s"
M=gen:poisson3d:n=300,laplace=1
for v in "ehyb grow plan" "ehyb grow caller" "csr auto caller"; do
  set -- $v
  timeout 150 $S solve $M --backend cuda --format $1 --algo $2 --order $3 --precond jacobi --maxit 300 --json $out/cg-$1-$3.json > $out/cg-$1-$3.txt 2>&1; echo "cg $v rc=$? $(( $(date +%s)-t0 )) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
