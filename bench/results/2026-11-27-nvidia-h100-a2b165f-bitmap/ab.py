import json,sys,glob,os
o=sys.argv[1]; rows={}
for f in sorted(glob.glob(o+'/b[01]-*.json')):
    tag=os.path.basename(f)[:2]
    for r in json.load(open(f))['results']:
        ph=r.get('phases',{}); key=(r.get('matrix','?').split('/')[-1][:30], r.get('transpose_b'))
        rows.setdefault(key,{}).setdefault(tag,[]).append((1e3*ph.get('numeric',0), 1e3*sum(ph.get(p,0) for p in ('analyse','reorder','symbolic','numeric')), r.get('kernel'), r.get('verified')))
print('%-32s %-5s %22s %22s  %s'%('matrix','T','numeric b0 / b1 ms','scratch b0 / b1 ms','kernel b1, verified'))
for k,v in rows.items():
    a=v.get('b0',[]); b=v.get('b1',[])
    if not a or not b: continue
    na=min(x[0] for x in a); nb=min(x[0] for x in b); sa=min(x[1] for x in a); sb=min(x[1] for x in b)
    print('%-32s %-5s %9.3f / %-9.3f %9.3f / %-9.3f %s %s %s'%(k[0],k[1],na,nb,sa,sb,b[-1][2],all(x[3] for x in a),all(x[3] for x in b)))
