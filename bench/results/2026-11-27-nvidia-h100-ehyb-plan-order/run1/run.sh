#!/usr/bin/env bash
# session 2026-11-27 ninth, run 1: ehyb in plan order (vectors kept renumbered) vs the caller's order, same build
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_ehyb >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
grep -i metis build-gpu/CMakeCache.txt | head -3 > $out/metis.txt
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
SPX_GPU_TEST_FORMATS=ehyb timeout 240 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
cs=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 240 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-$tool.log 2>&1 &
done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz gen:poisson3d:n=100 gen:stencil27:n=60"
S=build-gpu/spx
wait
for tool in memcheck racecheck; do echo "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/san-$tool.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
for rep in 1 2; do
  timeout 150 $S bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis --order caller $FEM --json $out/fem-caller-$rep.json > $out/fem-caller-$rep.txt 2>&1; echo "fem caller $rep rc=$? $(( $(date +%s)-t0 )) s"
  timeout 150 $S bench --backend cuda --formats cusparse/alg1,ehyb/metis --order plan $FEM --json $out/fem-plan-$rep.json > $out/fem-plan-$rep.txt 2>&1; echo "fem plan $rep rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 100 $S bench --backend cuda --precision fp32 --formats cusparse/alg1,csr/auto,ehyb/metis --order caller $FEM --json $out/fem32-caller.json > $out/fem32-caller.txt 2>&1; echo "fem32 caller rc=$?"
timeout 100 $S bench --backend cuda --precision fp32 --formats cusparse/alg1,ehyb/metis --order plan $FEM --json $out/fem32-plan.json > $out/fem32-plan.txt 2>&1; echo "fem32 plan rc=$? $(( $(date +%s)-t0 )) s"
L="gen:poisson3d:n=300 gen:stencil27:n=160"
for p in fp64 fp32; do
  timeout 150 $S bench --backend cuda --precision $p --plan-reps 1 --formats cusparse/alg1,csr/auto,ehyb/grow --order caller $L --json $out/large-caller-$p.json > $out/large-caller-$p.txt 2>&1; echo "large caller $p rc=$? $(( $(date +%s)-t0 )) s"
  timeout 150 $S bench --backend cuda --precision $p --plan-reps 1 --formats cusparse/alg1,ehyb/grow --order plan $L --json $out/large-plan-$p.json > $out/large-plan-$p.txt 2>&1; echo "large plan $p rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 120 $S bench --backend cuda --plan-reps 1 --formats cusparse/alg1,ehyb/metis --order plan gen:stencil27:n=160 --json $out/s27-metis-plan.json > $out/s27-metis-plan.txt 2>&1; echo "s27 metis plan rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
