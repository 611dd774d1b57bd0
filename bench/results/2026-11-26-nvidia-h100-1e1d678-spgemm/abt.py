import json, glob, os, sys
d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(d, 'ab-*.json'))):
    v, t = os.path.basename(f).split('-')[1:3]
    for r in json.load(open(f))['results']:
        if 'phases' not in r: continue
        p = r['phases']
        rows.setdefault((r['matrix'], int(t)), {})[v] = (r['plan_s']*1e3, p.get('symbolic', 0)*1e3, r['first_run_s']*1e3, r['numeric_s']*1e3)
print('matrix threads | plan old/nost/new | symbolic | first | numeric (ms, median of 5)')
for (m, t), vs in sorted(rows.items()):
    cells = []
    for i in range(4):
        cells.append('/'.join('%.1f' % vs[v][i] if v in vs else '-' for v in ('old', 'nost', 'new')))
    print('%s %d | %s' % (m, t, ' | '.join(cells)))
