#!/usr/bin/env bash
# tests/test_cli_spmm.sh: `spx spmm SRC --k K`: verified on the CPU in both layouts, fp64 and
# fp32, with csr's own kernel and a format's fallback named in the text and the JSON (GFLOPS =
# 2 nnz k / t); bad input (no --k, k = 0, a bad layout, an unknown format, a CUDA backend
# without a device) refused with one error line and exit 2. `spx bench --op spmm --k LIST`:
# every (matrix, k, format) a verified row with its SpMV comparison, the JSON; bad --k lists.
# Usage: test_cli_spmm.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1; data=$2; shared=$3
. "$(dirname "$0")/cli_lib.sh"
src=gen:poisson2d:n=30
fast=(--backend cpu --threads 1 --reps 3 --warmup 1)

expect 0 "$spx" spmm "$src" --k 8 "${fast[@]}"
grep -q '^verified: yes' "$tmp/out" && ok || bad "spmm did not verify: $(cat "$tmp/out")"
grep -q 'k 8, row-major blocks  kernel cpu_omp_nnz_balanced_spmm_row' "$tmp/out" && ok || bad "csr's kernel not named: $(cat "$tmp/out")"
grep -q '^fallback' "$tmp/out" && bad "csr reported as the fallback" || ok

for layout in row col; do
  for prec in fp64 fp32; do
    expect 0 "$spx" spmm "$src" --k 3 --layout "$layout" --precision "$prec" --json "${fast[@]}"
    json_ok "$tmp/out"
    json_eq "$tmp/out" "d['op']=='spmm' and d['result']['layout']=='$layout' and d['result']['precision']=='$prec' \
and d['result']['k']==3 and d['result']['verified']==1 and d['result']['fallback']==0"
    json_eq "$tmp/out" "abs(d['result']['gflops'] - 2*d['result']['nnz']*3/d['result']['t_median_s']/1e9) \
<= 1e-6*d['result']['gflops']"
  done
done

# a format without a CPU SpMM kernel runs k SpMVs and says so (hbp: every CPU algorithm)
expect 0 "$spx" spmm "$src" --k 4 --format hbp --json "${fast[@]}"
json_eq "$tmp/out" "d['result']['fallback']==1 and d['result']['kernel']==d['result']['spmv_kernel']+'_spmv_x4' \
and d['result']['verified']==1"
expect 0 "$spx" spmm "$src" --k 4 --format hbp --layout col "${fast[@]}"
grep -q '^fallback    hbp has no SpMM kernel on cpu: 4 SpMVs, one a column' "$tmp/out" && ok || bad "fallback not said: $(cat "$tmp/out")"

# spx bench --op spmm: a row per (matrix, k, format), verified, GFLOPS = 2 nnz k / t, the same
# plan options' SpMV timed beside it (x_spmv), the fallback flagged; no cuSPARSE on the CPU
expect 0 "$spx" bench --op spmm --k 1,3 --layout col --formats csr,hbp --json "$tmp/b.json" "$src" "${fast[@]}"
json_eq "$tmp/b.json" "d['op']=='spmm' and len(d['results'])==4 and all(r['status']=='SPX_OK' and r['verified']==1 \
and r['layout']=='col' and r['x_spmv']>0 and r['t_spmv_s']>0 and r['x_best_cusparse'] is None for r in d['results'])"
json_eq "$tmp/b.json" "all(abs(r['gflops'] - 2*r['nnz']*r['k']/r['t_median_s']/1e9) <= 1e-6*r['gflops'] for r in d['results'])"
json_eq "$tmp/b.json" "[(r['k'], r['fallback']) for r in d['results'] if r['format']=='hbp']==[(1, 1), (3, 1)] \
and [r['kernel'] for r in d['results'] if r['format']=='csr']==['cpu_omp_nnz_balanced_spmm_col']*2"
grep -q '^gen:poisson2d:n=30 *3 csr/auto *cpu_omp_nnz_balanced_spmm_col .* yes$' "$tmp/out" && ok || bad "bench row: $(cat "$tmp/out")"
expect 2 "$spx" bench --op spmm "$src" "${fast[@]}"
one_error_line; grep -q 'needs --k' "$tmp/err" && ok || bad "bench without --k: $(cat "$tmp/err")"
expect 2 "$spx" bench --op spmm --k 2,0 "$src" "${fast[@]}"
one_error_line
expect 2 "$spx" bench --op spmm --k 2,2 "$src" "${fast[@]}"
one_error_line; grep -q 'lists 2 twice' "$tmp/err" && ok || bad "repeated k: $(cat "$tmp/err")"
expect 2 "$spx" bench --op spmm --k 2 --formats nosuch "$src" "${fast[@]}"
one_error_line

# --format F/A: the format and its algorithm at once (and not with --algo as well)
expect 0 "$spx" spmm "$src" --k 2 --format csr/vector --json "${fast[@]}"
json_eq "$tmp/out" "d['result']['format']=='csr' and d['result']['algo']=='vector' and d['result']['verified']==1"
expect 2 "$spx" spmm "$src" --k 2 --format csr/vector --algo scalar "${fast[@]}"
one_error_line

# bad input: one error line, exit 2
expect 2 "$spx" spmm "$src" "${fast[@]}"
one_error_line; grep -q 'needs --k' "$tmp/err" && ok || bad "no --k: $(cat "$tmp/err")"
expect 2 "$spx" spmm "$src" --k 0 "${fast[@]}"
one_error_line; grep -q -- '--k needs a count' "$tmp/err" && ok || bad "k = 0: $(cat "$tmp/err")"
expect 2 "$spx" spmm "$src" --k 3x "${fast[@]}"
one_error_line
expect 2 "$spx" spmm "$src" --k 70000 "${fast[@]}"
one_error_line
expect 2 "$spx" spmm "$src" --k 2 --layout diagonal "${fast[@]}"
one_error_line; grep -q -- '--layout must be row or col' "$tmp/err" && ok || bad "bad layout: $(cat "$tmp/err")"
expect 2 "$spx" spmm "$src" --k 2 --format nosuch "${fast[@]}"
one_error_line; grep -q "unknown format 'nosuch'" "$tmp/err" && ok || bad "unknown format: $(cat "$tmp/err")"
expect 2 "$spx" spmm "$src" "$src" --k 2 "${fast[@]}"
one_error_line
expect 2 "$spx" spmm "$src" --k 2 --x foo "${fast[@]}"
one_error_line
if [ "$("$spx" --version | grep -c 'CUDA backend built')" = 0 ] || ! command -v nvidia-smi >/dev/null; then
  expect 2 "$spx" spmm "$src" --k 2 --backend cuda --reps 3
  one_error_line
fi

report
