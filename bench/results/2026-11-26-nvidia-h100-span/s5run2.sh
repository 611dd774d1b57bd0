#!/usr/bin/env bash
# session 2026-11-26e run 2: SpGEMM suites: gpu-check's spgemm stage (span tables, NUM_PCT 400, with cuSPARSE), spx alone for old (06209f6) and NUM_PCT 1600
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
if [ ! -x $old/b/spx ]; then rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
  ( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j5 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) & fi
[ -x /tmp/b-num1600/spx ] || ( cmake -S . -B /tmp/b-num1600 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=-DSPX_GPU_SPAN_NUM_PCT=1600" > $out/b-num1600.log 2>&1 && cmake --build /tmp/b-num1600 -j5 --target spx_cli >> $out/b-num1600.log 2>&1; echo "num1600 build rc=$?" ) &
[ -x build-gpu/spx ] || SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1
wait; el builds
timeout 330 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
for v in old num1600; do
  B=$old/b/spx; [ $v = num1600 ] && B=/tmp/b-num1600/spx
  timeout 100 $B bench --op spgemm --backend cuda --methods spx --reps 3 --suite bench/suites/spgemm-large.txt --json $out/large-$v.json > $out/large-$v.txt 2>&1; el "large $v rc=$?"
  timeout 60 $B bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b --suite bench/suites/spgemm.txt --json $out/aat-$v.json > $out/aat-$v.txt 2>&1; el "aat $v rc=$?"
done
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
python3 - $out <<'PY'
import json,sys
out=sys.argv[1]
for suite,main in (("large","spgemm-large"),("aat","spgemm-aat")):
    rows={}
    for v,f in (("old",f"{suite}-old"),("new400",main),("new1600",f"{suite}-num1600")):
        try: R=json.load(open(f"{out}/{f}.json"))["results"]
        except Exception as e: print(suite,v,"no json",e); continue
        for r in R:
            if r.get("status")!="SPX_OK" or r.get("method")!="spx": continue
            ph=r.get("phases") or {}
            rows.setdefault(r["matrix"],{})[v]="%5.2f %5.2f %6.2f %6.2f %s"%tuple([ph.get(k,0)*1e3 for k in ("analyse","reorder","symbolic","numeric")]+[r["verified"][:3]])
    print(f"## {suite}: analyse reorder symbolic numeric ms")
    for m,d in rows.items():
        print(m[-26:].rjust(26), " | ".join(f"{v}: {d.get(v,'-')}" for v in ("old","new400","new1600")))
PY
el done
cd $OUT && tar czf r.tgz r && rm -rf r
