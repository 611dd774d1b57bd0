#!/usr/bin/env python3
"""Per kernel instance (template arguments and launch shape) totals of an
`ncu --print-summary per-kernel` log with gpu__time_duration.sum and launch__* metrics:
ncu/instances.py LOG [more logs]."""
import re
import sys

for path in sys.argv[1:]:
    rows = []
    for b in re.split(r'\n  (?=void |spx_|cub)', open(path).read()):
        m = re.match(r'(?:void )?(\S+?)(<[^>]*>)?\(.*?\) \((\d+), 1, 1\)x\((\d+), 1, 1\).*?Invocations (\d+)', b)
        d = re.search(r'gpu__time_duration.sum\s+(\S+)\s+\S+\s+\S+\s+(\S+)', b)
        if not m or not d:
            continue
        scale = {'us': 1e-3, 'ms': 1.0, 'ns': 1e-6}.get(d.group(1), 1.0)
        ms = float(d.group(2).replace(',', '')) * int(m.group(5)) * scale
        sm = re.search(r'launch__shared_mem_per_block_dynamic\s+(\S+)\s+\S+\s+\S+\s+(\S+)', b)
        w = re.search(r'sm__warps_active.avg.pct_of_peak_sustained_active\s+\S+\s+\S+\s+\S+\s+(\S+)', b)
        rows.append((ms, m.group(1) + (m.group(2) or ''), m.group(3), m.group(4), int(m.group(5)),
                     sm.group(2) + ' ' + sm.group(1) if sm else '?', w.group(1) if w else '-'))
    print('==', path)
    for r in sorted(rows, reverse=True)[:8]:
        print('  %8.2f ms  %s  grid %s x %s  x%d  smem %s  warps active %% %s' % r)
