#!/usr/bin/env bash
# session 2026-11-27 ninth, run 2: ehyb plan order vs caller order: FEM16 twice, fp32, the shared suite, poisson3d n=300 with METIS
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
if [ ! -x build-gpu/spx ]; then
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
    && cmake --build build-gpu -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
fi
echo "build $(( $(date +%s)-t0 )) s"
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz gen:poisson3d:n=100 gen:stencil27:n=60"
S=build-gpu/spx
for rep in 1 2; do
  timeout 150 $S bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis --order caller $FEM --json $out/fem-caller-$rep.json > $out/fem-caller-$rep.txt 2>&1; echo "fem caller $rep rc=$? $(( $(date +%s)-t0 )) s"
  timeout 150 $S bench --backend cuda --formats cusparse/alg1,ehyb/metis --order plan $FEM --json $out/fem-plan-$rep.json > $out/fem-plan-$rep.txt 2>&1; echo "fem plan $rep rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 100 $S bench --backend cuda --precision fp32 --formats cusparse/alg1,csr/auto,ehyb/metis --order caller $FEM --json $out/fem32-caller.json > $out/fem32-caller.txt 2>&1; echo "fem32 caller rc=$?"
timeout 100 $S bench --backend cuda --precision fp32 --formats cusparse/alg1,ehyb/metis --order plan $FEM --json $out/fem32-plan.json > $out/fem32-plan.txt 2>&1; echo "fem32 plan rc=$? $(( $(date +%s)-t0 )) s"
timeout 200 $S bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis --order plan --suite bench/suites/shared.txt --json $out/shared-plan.json > $out/shared-plan.txt 2>&1; echo "shared plan rc=$? $(( $(date +%s)-t0 )) s"
timeout 240 $S bench --backend cuda --plan-reps 1 --formats cusparse/alg1,ehyb/metis --order plan gen:poisson3d:n=300 --json $out/p300-metis-plan.json > $out/p300-metis-plan.txt 2>&1; echo "p300 metis plan rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
