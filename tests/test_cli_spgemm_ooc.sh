#!/usr/bin/env bash
# tests/test_cli_spgemm_ooc.sh: `spx spgemm` and `spx bench --op spgemm` out of core, on the
# CPU side (CI has no GPU): --device-mem-limit sizes (64MB, 2GiB, none) and their errors,
# --panels cpu under a few MB giving >= 8 panels and the in-core C byte for byte (-o), the JSON's
# panel fields, --timeline as JSON and SVG, --b-col-blocks (the same C, the blocks reported), a
# budget too small for B's smallest block or B resident as one error line with the hint, --no-verify, bad --panels and --gpu-share values, hetero panels refused without a GPU, the bench's
# rows named by their panels, and the SpMV bench refusing the SpGEMM-only options.
# Usage: test_cli_spgemm_ooc.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1
. "$(dirname "$0")/cli_lib.sh"

m=gen:poisson2d:n=100
# panels under 3 MB: >= 8 of them, verified, C identical to the in-core one
expect 0 "$spx" spgemm $m --backend cpu -o "$tmp/in.mtx"
expect 0 "$spx" spgemm $m --panels cpu --device-mem-limit 3MB -o "$tmp/ooc.mtx" --timeline "$tmp/t.json"
grep -q '^panels  *[0-9][0-9]* of at most' "$tmp/out" && grep -q '^verified: yes' "$tmp/out" && ok || bad "panel text: $(cat "$tmp/out")"
cmp -s "$tmp/in.mtx" "$tmp/ooc.mtx" && ok || bad "C in panels differs from the in-core C"
json_eq "$tmp/t.json" 'd["op"]=="spgemm-timeline" and d["panels"]>=8 and len(d["events"])==d["panels"] and all(e["side"]=="cpu" and e["compute"][0]<=e["compute"][1] for e in d["events"]) and sorted((e["row0"],e["row1"]) for e in d["events"])[0][0]==0'
expect 0 "$spx" spgemm $m --panels cpu --device-mem-limit 3M --json
json_eq "$tmp/out" '(lambda r: r["panel_mode"]=="panels" and r["panel_split"]=="cpu" and r["panels"]>=8 and r["panels_cpu"]==r["panels"] and r["device_mem_limit"]==3*1024*1024 and r["verified"]=="yes" and "panels" in r["phases"])(d["result"])'
expect 0 "$spx" spgemm $m --panels cpu --device-mem-limit 3M --timeline "$tmp/t.svg"
grep -q '<svg' "$tmp/t.svg" && grep -q 'class="span"' "$tmp/t.svg" && grep -q 'CPU compute' "$tmp/t.svg" && ok || bad "timeline SVG"
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || bad "temporary file left behind"

# B in column blocks when asked: the same C, the blocks in the text and the JSON
expect 0 "$spx" spgemm $m --panels cpu --device-mem-limit 3M --b-col-blocks 4 -o "$tmp/blk.mtx" --json
json_eq "$tmp/out" '(lambda r: r["b_col_blocks"]>=4 and r["panels"]>=8 and r["verified"]=="yes")(d["result"])'
cmp -s "$tmp/in.mtx" "$tmp/blk.mtx" && ok || bad "C with B in column blocks differs from the in-core C"
expect 0 "$spx" spgemm $m --panels cpu --device-mem-limit 3M --b-col-blocks 4
grep -q '^panels .*B in [0-9]* column blocks' "$tmp/out" && ok || bad "blocks in the panel text: $(grep '^panels' "$tmp/out")"

# --no-verify: no oracle, exit 0, said so
expect 0 "$spx" spgemm $m --panels cpu --device-mem-limit 3M --no-verify
grep -q '^verified: not checked' "$tmp/out" && ! grep -q '^rel error' "$tmp/out" && ok || bad "--no-verify: $(tail -2 "$tmp/out")"

# sizes: accepted forms; in-core under auto on the CPU whatever the limit
for size in 64MB 2GiB 1G none; do
  expect 0 "$spx" spgemm gen:poisson2d:n=20 --device-mem-limit $size --json
  json_eq "$tmp/out" 'd["result"]["panel_mode"]=="in-core"'
done

# errors: one line each, exit 2, nothing written
expect 2 "$spx" spgemm $m --panels cpu --device-mem-limit 100k -o "$tmp/x.mtx"; one_error_line
grep -q 'device budget 102.4 kB too small' "$tmp/err" && grep -q "a block of B's columns (B 10000 x 10000" "$tmp/err" && grep -q 'raise it with --device-mem-limit' "$tmp/err" && ok || bad "B's smallest block over the budget: $(cat "$tmp/err")"
[ ! -e "$tmp/x.mtx" ] && ok || bad "a failed product left a file"
expect 2 "$spx" spgemm $m --panels cpu --device-mem-limit 100k --b-col-blocks 1; one_error_line
grep -q 'device budget 102.4 kB too small' "$tmp/err" && grep -q 'B (10000 x 10000' "$tmp/err" && ok || bad "B resident over the budget: $(cat "$tmp/err")"
expect 2 "$spx" spgemm $m --b-col-blocks 0; one_error_line
expect 2 "$spx" spgemm $m --b-col-blocks some; one_error_line
expect 2 "$spx" spgemm $m --device-mem-limit lots; one_error_line
expect 2 "$spx" spgemm $m --device-mem-limit 0; one_error_line
expect 2 "$spx" spgemm $m --panels sideways; one_error_line
grep -q 'auto, off, hetero, gpu or cpu' "$tmp/err" && ok || bad "--panels message: $(cat "$tmp/err")"
expect 2 "$spx" spgemm $m --gpu-share 1.5; one_error_line
expect 2 "$spx" spgemm $m --panels cpu --method cusparse; one_error_line
expect 2 "$spx" spgemm $m --timeline "$tmp/same" -o "$tmp/same"; one_error_line
if ! "$spx" spgemm gen:poisson2d:n=5 --backend cuda >/dev/null 2>&1; then
  expect 2 "$spx" spgemm $m --panels hetero --device-mem-limit 3M; one_error_line
fi

# the bench: rows named by their panels, verified; the SpMV bench refuses the options
expect 0 "$spx" bench --op spgemm --backend cpu --methods gustavson --panels cpu --device-mem-limit 3M $m --json "$tmp/b.json"
json_eq "$tmp/b.json" '(lambda r: "[panels cpu]" in r["name"] and r["panels"]>=8 and r["verified"])(d["results"][0])'
expect 2 "$spx" bench --op spgemm --panels sideways $m; one_error_line
expect 2 "$spx" bench $m --panels cpu; one_error_line
report
