#!/usr/bin/env bash
# session 2026-11-29 (second), run 3: why voronoi's layout runs slower than grow's on the
# stencils though it moves fewer bytes: ncu metrics of the slice kernel (stencil27 n=160 fp64,
# plan order) for both; and voronoi with smaller cells (SPX_EHYB_VORONOI_FILL_PCT=50, 30).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [d]="" [f50]="-DSPX_EHYB_VORONOI_FILL_PCT=50" [f30]="-DSPX_EHYB_VORONOI_FILL_PCT=30" )
for v in d f50 f30; do
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=${FL[$v]}" "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j6 --target spx_cli >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for a in voronoi grow; do
  timeout 120 $NCU --kernel-name regex:ehyb_slice --launch-skip 2 --launch-count 1 --metrics $MET \
    build-d/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats ehyb/$a --order plan gen:stencil27:n=160 > $out/ncu-s27-$a.txt 2>&1
  echo "ncu $a rc=$? $(el) s"
done
pack
for v in f50 f30; do
  for pm in fp64:stencil27:n=160 fp32:stencil27:n=160 fp32:poisson3d:n=300 fp64:poisson3d:n=300; do
    p=${pm%%:*}; m=${pm#*:}
    timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --order plan --precision $p --formats cusparse/alg1,ehyb/voronoi gen:$m --json $out/$v-$m-$p.json > $out/$v-$m-$p.txt 2>&1; echo "$v $m $p rc=$? $(el) s"
  done
  pack
done
echo "done $(el) s"
pack; rm -rf $OUT/r
