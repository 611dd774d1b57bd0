#!/usr/bin/env bash
# session 2026-11-27c run 2: racecheck on one hash plan (place kernel); then the large suite,
# one process a matrix: new tree hbp/hash,hbp/sort; A/B tree (radix hash) hbp/hash
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 120 $cs --tool racecheck --error-exitcode 99 build-gpu/spx spmv gen:powerlaw:m=20000,k=8 --format hbp --algo hash --backend cuda --reps 1 --no-baseline > $out/san-racecheck-place.log 2>&1; el "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $out/san-racecheck-place.log)"
build-gpu/spx info gen:powerlaw:m=20000,k=8 --format hbp --algo hash --backend cuda > $out/info-pl20k.txt 2>&1
i=0
grep -v '^#' bench/suites/large.txt | sed 's/#.*//' | while read -r M; do
  [ -z "$M" ] && continue
  i=$((i+1))
  [ $(( $(date +%s)-t0 )) -gt 470 ] && { el "skip $M"; continue; }
  timeout 150 build-gpu/spx bench --backend cuda --reps 3 --formats hbp/hash,hbp/sort $M --json $out/new-$i.json > $out/new-$i.txt 2>&1; el "new $i rc=$? $M"
  timeout 100 build-b0/spx bench --backend cuda --reps 3 --formats hbp/hash $M --json $out/old-$i.json > $out/old-$i.txt 2>&1; el "old $i rc=$?"
done
python3 - $out <<'PY'
import json,sys,glob,os
out=sys.argv[1]
for f in sorted(glob.glob(out+'/new-*.json'), key=lambda p:int(p.split('-')[-1].split('.')[0])):
    i=f.split('-')[-1].split('.')[0]
    rows=json.load(open(f))['results']
    old=out+'/old-%s.json'%i
    orow=json.load(open(old))['results'] if os.path.exists(old) else []
    def ph(rs,algo):
        for r in rs:
            if r.get('format')=='hbp' and r.get('algo')==algo: return r.get('plan_phases_s',{}), r
        return {},{}
    h,hr=ph(rows,'hash'); s,sr=ph(rows,'sort'); o,orr=ph(orow,'hash')
    b=lambda d:sum(d.get(k,0) for k in ('count','hash','sort','convert'))*1e3
    print('%-40s slots %10s  hash %7.2f  sort %7.2f  old-hash %7.2f ms | build %7.2f %7.2f %7.2f | hash/sort %.2fx old/new %.2fx' % (
        hr.get('matrix','?')[:40], hr.get('layout',{}).get('slots'), h.get('hash',0)*1e3, s.get('sort',0)*1e3, o.get('hash',0)*1e3,
        b(h), b(s), b(o), (s.get('sort',0)/h['hash']) if h.get('hash') else 0, (o.get('hash',0)/h['hash']) if h.get('hash') else 0))
PY
cd $OUT && tar czf r.tgz r && rm -rf r
