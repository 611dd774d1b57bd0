#!/usr/bin/env bash
# session 2026-11-27f run 1: what bounds the CPU Gustavson's numeric phase on 16 threads
# (issue 10: poisson3d scales 4.2x). V0 = HEAD, V1 = HEAD with C's writes sent to a per-thread
# scratch row (SPX_GUS_PROBE_NOWRITE); threads 1..16; the C-write probe; lscpu.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
lscpu > $out/lscpu.txt 2>&1; cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list | tr '\n' ' ' >> $out/lscpu.txt
gcc -O2 -fopenmp .device/wprobe.c -o /tmp/wprobe && /tmp/wprobe > $out/wprobe.txt 2>&1; el wprobe; cat $out/wprobe.txt
rm -rf /tmp/v1 && mkdir /tmp/v1 && git ls-files -z 2>/dev/null | head -c0; tar --exclude=./build --exclude=./build-gpu --exclude=./.device -cf - . | tar -xf - -C /tmp/v1
(cd /tmp/v1 && patch -p1 < $OLDPWD/.device/gus_nowrite.patch) > /dev/null
b(){ cmake -S $1 -B $1/b -DCMAKE_BUILD_TYPE=Release -DSPX_ENABLE_CUDA=OFF -DCMAKE_C_FLAGS="$2" > /dev/null && cmake --build $1/b -j16 --target spx_cli > $out/build-$3.txt 2>&1; }
b . "" v0 & b /tmp/v1 "-DSPX_GUS_PROBE_NOWRITE" v1 & wait; el built
ls b/spx /tmp/v1/b/spx || exit 1
for M in gen:poisson3d:n=100 gen:stencil27:n=60 gen:rmat:scale=16,ef=16; do
  for v in v0 v1; do
    bin=b/spx; [ $v = v1 ] && bin=/tmp/v1/b/spx
    for T in 1 2 4 8 16; do
      $bin bench --op spgemm $M --backend cpu --methods gustavson --threads $T --reps 5 --json $out/$v-$T-${M//[:=,]/_}.json > /dev/null 2>&1
      python3 -c "import json,sys;r=[x for x in json.load(open(sys.argv[1]))['results'] if x.get('numeric_s')][0];print('$M $v T=$T plan %.1f first %.1f num %.1f ms'%(r['plan_s']*1e3,r['first_run_s']*1e3,r['numeric_s']*1e3))" $out/$v-$T-${M//[:=,]/_}.json
    done
  done
done | tee $out/scaling.txt
el scaling
# two threads on chosen CPUs
for cpus in 0,1 0,8 0,15; do echo -n "taskset $cpus: "; OMP_PROC_BIND=true taskset -c $cpus b/spx bench --op spgemm gen:poisson3d:n=100 --backend cpu --methods gustavson --threads 2 --reps 5 2>&1 | grep "^gen" | awk '{print "num", $8, "ms"}'; done | tee -a $out/scaling.txt
el done
cd $OUT && tar czf r.tgz r && rm -rf r
