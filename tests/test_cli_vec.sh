#!/usr/bin/env bash
# tests/test_cli_vec.sh: `spx spmv SRC --x FILE --y-out FILE`: y = A*x written exactly where it
# is exact, with --json and fp32 too; x's length checked against the columns; bad x files,
# unwritable outputs (checked before any work) and failed verifications refused with no y
# file left; no progress line when stderr is not a terminal; spx info's load time by stage.
# Usage: test_cli_vec.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1; data=$2; shared=$3
. "$(dirname "$0")/cli_lib.sh"

# A 3 x 4 matrix and an x with small integers: y = A*x is exact, so its text is known.
cat >"$tmp/a.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
3 4 5
1 1 2
1 3 -1
2 2 4
3 1 1
3 4 0.5
EOF
vec() { # vec FILE VALUES...: writes an array real general vector
  local f=$1; shift
  { echo '%%MatrixMarket matrix array real general'; echo "$# 1"; printf '%s\n' "$@"; } >"$f"
}
vec "$tmp/x.mtx" 1 2 3 4
want=$'%%MatrixMarket matrix array real general\n3 1\n-1\n8\n3'
expect 0 "$spx" spmv "$tmp/a.mtx" --backend cpu --x "$tmp/x.mtx" --y-out "$tmp/y.mtx"
[ "$(cat "$tmp/y.mtx")" = "$want" ] && ok || bad "y.mtx is not A*x: $(cat "$tmp/y.mtx")"
grep -q '^verified: yes' "$tmp/out" && ok || bad "spmv --x did not verify"
grep -q "^wrote $tmp/y.mtx: y = A\*x, 3 entries" "$tmp/out" && ok || bad "no 'wrote' line: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] && ok || bad "stderr not empty: $(cat "$tmp/err")"
[ -z "$(ls "$tmp" | grep 'tmp\.')" ] && ok || bad "temporary file left behind"

# fp32 (y widened exactly), --json (the paths in the record), gzip x, y over an existing file
rm -f "$tmp/y.mtx"
expect 0 "$spx" spmv "$tmp/a.mtx" --backend cpu --precision fp32 --x "$tmp/x.mtx" --y-out "$tmp/y.mtx"
[ "$(cat "$tmp/y.mtx")" = "$want" ] && ok || bad "fp32 y.mtx is not A*x: $(cat "$tmp/y.mtx")"
gzip -c "$tmp/x.mtx" >"$tmp/x.mtx.gz"
expect 0 "$spx" spmv "$tmp/a.mtx" --backend cpu --json --x "$tmp/x.mtx.gz" --y-out "$tmp/y.mtx"
json_ok "$tmp/out"
json_eq "$tmp/out" "d['x']=='$tmp/x.mtx.gz' and d['y_out']=='$tmp/y.mtx' and d['result']['verified']"
[ "$(cat "$tmp/y.mtx")" = "$want" ] && ok || bad "y.mtx is not A*x after gzip x: $(cat "$tmp/y.mtx")"
expect 0 "$spx" spmv "$tmp/a.mtx" --backend cpu --json
json_eq "$tmp/out" "d['x'] is None and d['y_out'] is None"

# without --x, y = A*x for the random x, m entries; a gzip y when the name ends in .gz
expect 0 "$spx" spmv gen:poisson2d:n=20 --backend cpu --y-out "$tmp/yr.mtx.gz"
[ "$(gzip -dc "$tmp/yr.mtx.gz" | sed -n 2p)" = "400 1" ] && ok || bad "random-x y has no 400 x 1 size line"
[ "$(gzip -dc "$tmp/yr.mtx.gz" | wc -l)" = 402 ] && ok || bad "random-x y does not hold 400 values"

# x of the wrong length: both lengths named, one error line, no y
rm -f "$tmp/y.mtx"
vec "$tmp/x3.mtx" 1 2 3
expect 2 "$spx" spmv "$tmp/a.mtx" --backend cpu --x "$tmp/x3.mtx" --y-out "$tmp/y.mtx"; one_error_line
grep -q 'x3.mtx: x has 3 entries, but the matrix has 4 columns' "$tmp/err" && ok || bad "length message: $(cat "$tmp/err")"
[ ! -e "$tmp/y.mtx" ] && ok || bad "a y file was written for a bad x"

# every bad vector file: one error line naming the file (and the line), no y
for f in "$data"/bad_vec/*.mtx*; do
  expect 2 "$spx" spmv "$tmp/a.mtx" --backend cpu --x "$f" --y-out "$tmp/y.mtx"; one_error_line
  grep -q "$(basename "$f"):" "$tmp/err" && ok || bad "message for $f lacks the file: $(cat "$tmp/err")"
  [ ! -e "$tmp/y.mtx" ] && ok || bad "a y file was written for $f"
done
expect 2 "$spx" spmv "$tmp/a.mtx" --x "$tmp/none.mtx"; one_error_line
grep -q 'none.mtx: cannot open' "$tmp/err" && ok || bad "missing x: $(cat "$tmp/err")"
expect 2 "$spx" spmv "$tmp/a.mtx" --x; one_error_line

# --y-out is checked before any work: a bad path is refused even when the matrix is missing
expect 2 "$spx" spmv "$tmp/no-such-matrix.mtx" --y-out "$tmp/no/such/dir/y.mtx"; one_error_line
grep -q 'no/such/dir/y.mtx: cannot create' "$tmp/err" && ok || bad "y-out not checked first: $(cat "$tmp/err")"
mkdir "$tmp/ydir"
expect 2 "$spx" spmv "$tmp/a.mtx" --x "$tmp/x.mtx" --y-out "$tmp/ydir"; one_error_line
grep -q 'not a regular file' "$tmp/err" && ok || bad "a folder as --y-out: $(cat "$tmp/err")"
expect 2 "$spx" spmv "$tmp/a.mtx" --y-out ""; one_error_line

# a y that does not verify (the matrix holds a NaN) is not written: exit 1 and a note
cat >"$tmp/nan.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
2 2 2
1 1 nan
2 2 1
EOF
vec "$tmp/x2.mtx" 1 1
expect 1 "$spx" spmv "$tmp/nan.mtx" --backend cpu --x "$tmp/x2.mtx" --y-out "$tmp/y.mtx"
grep -q '^verified: no' "$tmp/out" && ok || bad "NaN matrix verified"
grep -q 'y.mtx not written: y did not verify' "$tmp/err" && ok || bad "no note: $(cat "$tmp/err")"
[ ! -e "$tmp/y.mtx" ] && ok || bad "an unverified y was written"

# reads and generations that last are silent when stderr is not a terminal (no progress line);
# info gives the load's time by the stages the library reported
expect 0 "$spx" gen gen:rmat:scale=16,ef=16 -o "$tmp/r.mtx"
[ ! -s "$tmp/err" ] && ok || bad "gen wrote to a non-terminal stderr: $(cat "$tmp/err")"
expect 0 "$spx" info "$tmp/r.mtx" --json
[ ! -s "$tmp/err" ] && ok || bad "info wrote to a non-terminal stderr: $(cat "$tmp/err")"
stages_ok='all(v >= 0 for v in L.values()) and sum(v for k, v in L.items() if k != "total") <= L["total"] * 1.001 + 1e-6'
json_eq "$tmp/out" "(lambda L: set(L) == {'total', 'read', 'parse', 'convert'} and $stages_ok)(d['load_s']) and d['threads'] >= 1"
expect 0 "$spx" info gen:rmat:scale=12,ef=8 --json
json_eq "$tmp/out" "(lambda L: set(L) == {'total', 'generate', 'convert'} and $stages_ok)(d['load_s'])"
expect 0 "$spx" info gen:poisson2d:n=50 --threads 3
grep -q '^load  *[0-9.]* s (generate [0-9.]* s), 3 threads$' "$tmp/out" && ok || bad "info load line: $(grep '^load' "$tmp/out")"

report
