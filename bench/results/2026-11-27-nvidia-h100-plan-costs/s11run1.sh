#!/usr/bin/env bash
# session 2026-11-27d run 1: where plan time goes (the new check/finish phases) on the large
# suite, every GPU format but teb, fp64/fp32; the device features' steps (a traced build of
# features.cu); single CUDA runtime calls' costs
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
( mkdir -p /tmp/tr && tar cf - --exclude=./build-gpu --exclude=./.device . | tar xf - -C /tmp/tr && cp .device/features_trace.cu /tmp/tr/src/cuda/features.cu && cmake -S /tmp/tr -B /tmp/tr/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/tr-build.log 2>&1 && cmake --build /tmp/tr/b -j6 --target spx_cli >> $out/tr-build.log 2>&1 || tail -20 $out/tr-build.log ) &
bpid=$!
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
wait $bpid; el "trace build"
nvcc -O2 -o /tmp/apicost .device/apicost.cu && /tmp/apicost > $out/apicost.txt 2>&1; cat $out/apicost.txt
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
for prec in fp64 fp32; do
  SPX_FEAT_TRACE=1 timeout 100 /tmp/tr/b/spx bench --backend cuda --reps 3 --formats auto --precision $prec --suite bench/suites/select.txt > $out/trace-select-$prec.txt 2>&1; el "trace select $prec rc=$?"
  grep FEATTRACE $out/trace-select-$prec.txt | head -40
done
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,auto
for prec in fp64 fp32; do
  [ $(( $(date +%s)-t0 )) -gt 480 ] && { el "skip large $prec"; continue; }
  timeout 200 build-gpu/spx bench --backend cuda --reps 5 --formats $F --precision $prec --suite bench/suites/large.txt --json $out/large-$prec.json > $out/large-$prec.txt 2>&1; el "large $prec rc=$?"
done
cd $OUT && tar czf r.tgz r && rm -rf r
