import json,sys,math
d=sys.argv[1]
def load(f):
    try: return json.load(open(f"{d}/{f}.json"))["results"]
    except Exception as e: return []
PLAN=("analyse","reorder","symbolic")
def scratch(r):
    ph=r.get("phases",{}); p=sum(ph.get(k,0) for k in PLAN)
    return p if r["method"]=="cusparse" else p+ph.get("numeric",0)
for suite,main in (("large","spgemm-large"),("aat","spgemm-aat")):
    cus={}; spx={}
    for r in load(main):
        if r.get("status")!="SPX_OK": continue
        if r["method"]=="cusparse": cus[r["matrix"]]=min(cus.get(r["matrix"],9e9),scratch(r))
        else: spx.setdefault(r["matrix"],{})["new"]=r
    for v in ("old",):
        for r in load(f"{suite}-{v}"):
            if r.get("status")=="SPX_OK": spx.setdefault(r["matrix"],{})[v]=r
    print("##",suite,"scratch x (cuSPARSE best scratch / spx), numeric ms")
    g={v:[] for v in ("old","new","s1")}
    for m,vs in spx.items():
        line=m[-24:].rjust(24)
        for v in ("old","new","s1"):
            if v in vs and m in cus:
                x=cus[m]/scratch(vs[v]); g[v].append(math.log(x)); line+=f"  {v}: {x:5.2f}x num {vs[v]['phases']['numeric']*1e3:6.2f}"
        print(line)
    print("geomean", {v:round(math.exp(sum(a)/len(a)),3) for v,a in g.items() if a})
