#!/usr/bin/env bash
# session 2026-11-26e run 6: host timers (synchronising) around the spx GPU SpGEMM plan's steps (a patched copy, not the project's code)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices; }
rm -rf /tmp/trt && mkdir /tmp/trt && cp -r CMakeLists.txt cmake src include tools tests python scripts bench pyproject.toml /tmp/trt/ 2>/dev/null; ln -sfn $PWD/.device /tmp/trt/.device
python3 .device/trace_patch.py /tmp/trt
( cmake -S /tmp/trt -B /tmp/trt/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/tr-build.log 2>&1 && cmake --build /tmp/trt/b -j16 --target spx_cli >> $out/tr-build.log 2>&1 ) || { tail -20 $out/tr-build.log; exit 1; }
el build
M=../shared/matrices
SPX_TRACE=1 /tmp/trt/b/spx bench --op spgemm --backend cuda --methods spx --reps 1 $M/cage10.mtx.gz $M/bcsstk29.mtx.gz $M/fe_body.mtx.gz $M/finan512_pattern.mtx.gz $M/fe_body.mtx.gz > $out/trace.txt 2>&1
grep -vE "^\s*$" $out/trace.txt | grep -E "us$|fe_body|finan|bcsstk|cage" | tail -120
el done
cd $OUT && tar czf r.tgz r && rm -rf r
