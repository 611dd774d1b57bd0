#!/usr/bin/env bash
# session 2026-11-28 (third), run 1: cache hints on csr's matrix loads (values, column indices),
# SPX_CUDA_STREAM_LOAD 0 (__ldg), 1 (L1 no_allocate), 2 (ld.cs), 3 (L1 no_allocate + L2
# evict_first policy). One build; variants 1-3 recompile csr_cuda.cu alone into a copy of
# libspx.a and relink spx. Bench: R-MAT 23 and powerlaw 4M, fp64 and fp32, variants interleaved.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cp -r $B/spx $B/spx_v0
NV=$(grep -o '/[^ ]*nvcc' $B/CMakeFiles/spx.dir/build.make | head -1)
f=$B/CMakeFiles/spx.dir/flags.make
FL="$(sed -n 's/^CUDA_DEFINES = //p' $f) $(sed -n 's/^CUDA_INCLUDES = //p' $f) $(sed -n 's/^CUDA_FLAGS = //p' $f)"
echo "nvcc $NV flags $FL" >> $out/build.log
for v in 1 2 3; do
  ( cd $B && mkdir -p v$v && $NV -forward-unknown-to-host-compiler -DSPX_CUDA_STREAM_LOAD=$v $FL -x cu -c ../src/formats/csr/csr_cuda.cu -o v$v/csr_cuda.cu.o \
    && cp libspx.a libspx_v$v.a && ar r libspx_v$v.a v$v/csr_cuda.cu.o \
    && sed "s/libspx\.a/libspx_v$v.a/g" CMakeFiles/spx_cli.dir/linkLibs.rsp > v$v/link.rsp \
    && g++ @CMakeFiles/spx_cli.dir/objects1 -o spx_v$v @v$v/link.rsp -L/usr/local/cuda/targets/x86_64-linux/lib/stubs -L/usr/local/cuda/targets/x86_64-linux/lib ) >> $out/build.log 2>&1 &
done
wait
ls -la $B/spx_v* >> $out/build.log
echo "variants $(( $(date +%s)-t0 )) s"
F=cusparse/alg1,csr/auto,hbp/band,hbp/hot
R=gen:rmat:scale=23,ef=8,sym=1
P=gen:powerlaw:m=4000000,k=8
for p in fp64 fp32; do
  for v in 0 3 1 2; do
    [ -x $B/spx_v$v ] || { echo "no spx_v$v"; continue; }
    timeout 100 $B/spx_v$v bench --backend cuda --plan-reps 1 --precision $p --formats $F $R $P --json $out/v$v-$p.json > $out/v$v-$p.txt 2>&1; echo "bench v$v $p rc=$? $(( $(date +%s)-t0 )) s"
  done
done
for v in 0 3; do
  timeout 60 $B/spx_v$v bench --backend cuda --plan-reps 1 --precision fp64 --formats cusparse/alg1,csr/auto gen:poisson3d:n=200 gen:uniform:m=4000000,k=8 > $out/s$v-fp64.txt 2>&1; echo "bench s$v rc=$? $(( $(date +%s)-t0 )) s"
done
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
