#!/usr/bin/env bash
# session 2026-11-29 (second), run 1: ehyb's voronoi partitioner and layout built on the device.
# test_ehyb_gpu (device build == host build, array by array), test_gpu over ehyb/voronoi (host-
# and device-built plans), memcheck on both (quick); then the large stencils in plan order,
# fp64 and fp32: ALG1, csr auto, ehyb/voronoi built on the device, on the host (--build host),
# and ehyb/grow; FEM16 (caller order) ALG1, ehyb/metis, ehyb/voronoi.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build -j16 --target spx_cli --target test_gpu --target test_ehyb_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; pack; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 timeout 150 $cs --tool memcheck --error-exitcode 99 build/tests/test_ehyb_gpu > $out/san-memcheck-ehyb_gpu.log 2>&1; echo "memcheck test_ehyb_gpu quick rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-ehyb_gpu.log | tr '\n' ' ')" ) &
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb/voronoi timeout 150 $cs --tool memcheck --error-exitcode 99 build/tests/test_gpu > $out/san-memcheck-gpu.log 2>&1; echo "memcheck test_gpu quick voronoi rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-gpu.log | tr '\n' ' ')" ) &
timeout 120 build/tests/test_ehyb_gpu > $out/test_ehyb_gpu.log 2>&1; echo "test_ehyb_gpu rc=$? $(tail -1 $out/test_ehyb_gpu.log)"
grep -m5 FAIL $out/test_ehyb_gpu.log
SPX_GPU_TEST_FORMATS=ehyb/voronoi timeout 150 build/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu voronoi rc=$? $(tail -1 $out/test_gpu.log)"
grep -m5 FAIL $out/test_gpu.log
wait
echo "tests $(el) s"; pack
for p in fp64 fp32; do
  B="--backend cuda --plan-reps 1 --order plan --precision $p"
  for m in poisson3d:n=300 stencil27:n=160; do
    timeout 80 build/spx bench $B --formats cusparse/alg1,csr/auto,ehyb/voronoi,ehyb/grow gen:$m --json $out/$m-$p.json > $out/$m-$p.txt 2>&1; echo "$m $p rc=$? $(el) s"
    timeout 40 build/spx bench $B --build host --formats ehyb/voronoi gen:$m --json $out/$m-$p-host.json > $out/$m-$p-host.txt 2>&1; echo "$m $p host rc=$? $(el) s"
    pack
  done
done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
timeout 60 build/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis,ehyb/voronoi $FEM --json $out/fem.json > $out/fem.txt 2>&1; echo "fem rc=$? $(el) s"
echo "done $(el) s"
pack; rm -rf $OUT/r
