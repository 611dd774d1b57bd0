#!/usr/bin/env bash
# tests/test_cli_nonfinite.sh: a Matrix Market file holding NaN and inf values is read (the
# format allows them) and said so: a warning at load naming the count, `spx info` counting NaN
# and inf apart (text and JSON), and `spx spmv` saying why y does not verify (exit 1, not a
# crash and not a silent "verified: no"); a finite file gets no warning.
# Usage: test_cli_nonfinite.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1
. "$(dirname "$0")/cli_lib.sh"
m=$tmp/nonfinite.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1.0\n2 2 nan\n3 3 -inf\n1 3 2\n3 1 inf\n' >"$m"
fast=(--backend cpu --threads 1 --reps 2 --warmup 1)

expect 0 "$spx" info "$m"
grep -q '^non-finite       1 NaN, 2 inf' "$tmp/out" && ok || bad "info does not count them: $(cat "$tmp/out")"
grep -q '^warning: .*holds 3 non-finite values' "$tmp/err" && ok || bad "no warning at load: $(cat "$tmp/err")"
expect 0 "$spx" info "$m" --json
json_ok "$tmp/out"
json_eq "$tmp/out" "d['nan_values']==1 and d['inf_values']==2"

expect 1 "$spx" spmv "$m" "${fast[@]}"
grep -q '^verified: no' "$tmp/out" && ok || bad "spmv verified a non-finite product: $(cat "$tmp/out")"
grep -q '^why         the matrix holds 3 non-finite values' "$tmp/out" && ok || bad "spmv does not say why: $(cat "$tmp/out")"
expect 1 "$spx" spmv "$m" --json "${fast[@]}"
json_eq "$tmp/out" "d['matrix_nonfinite']==3 and d['result']['verified']==0"

# a finite file: no warning, zero counts
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 2.0\n' >"$tmp/finite.mtx"
expect 0 "$spx" info "$tmp/finite.mtx"
grep -q '^non-finite       0 NaN, 0 inf$' "$tmp/out" && ok || bad "finite counts wrong: $(cat "$tmp/out")"
[ -s "$tmp/err" ] && bad "a finite file warned: $(cat "$tmp/err")" || ok
report
