import re,sys,collections
for f in sys.argv[1:]:
    tot=collections.Counter(); cur=None; inv=0
    for line in open(f):
        m=re.match(r"\s+(?:void )?([\w:<>, ]+?)(?:<[^()]*>)?\(.*\)\s+\((\d+), 1, 1\)x\((\d+), 1, 1\).*Invocations (\d+)", line)
        if m: cur=m.group(1).split('<')[0].strip(); inv=int(m.group(4)); blocks=m.group(2); continue
        m=re.match(r"\s+gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)\s+([\d.,]+)\s+([\d.,]+)", line)
        if m and cur:
            unit=m.group(1); avg=float(m.group(3).replace(',',''))
            scale={'ns':1e-6,'us':1e-3,'usecond':1e-3,'msecond':1,'ms':1,'nsecond':1e-6}.get(unit,1)
            tot[cur]+=avg*inv*scale; cur=None
    print("==",f, "total ms %.2f"%sum(tot.values()))
    for k,v in tot.most_common(14): print("  %-45s %8.2f ms"%(k,v))
