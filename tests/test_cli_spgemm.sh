#!/usr/bin/env bash
# tests/test_cli_spgemm.sh: `spx spgemm`: exit codes, one error line per failure, JSON that
# parses and holds the phases, GFLOPS, nnz(C) and compression, -o written through a
# temporary name (and read back equal to a hand-checked product), the GPU refused without
# one; and, when scipy can be imported, scipy's A @ B equal to `spx spgemm -o`.
# Usage: test_cli_spgemm.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1; data=$2; shared=$3
. "$(dirname "$0")/cli_lib.sh"

# the 5x5 of tests/test_spgemm.c: A*B and A*A^T, read back from -o
cat >"$tmp/a.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
5 5 7
1 1 1
1 3 2
2 2 3
4 1 4
4 3 5
4 4 6
5 5 7
EOF
cat >"$tmp/b.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
5 5 7
1 2 1
1 5 2
2 1 3
3 3 4
4 4 5
5 1 1
5 5 1
EOF
# entries FILE: the matrix's "i j v" lines, sorted, values as integers
entries() { grep -v '^%' "$1" | tail -n +2 | awk '{printf "%d %d %d\n", $1, $2, $3}' | sort; }
expect 0 "$spx" spgemm "$tmp/a.mtx" "$tmp/b.mtx" --backend cpu -o "$tmp/c.mtx"
grep -q '^verified: oracle' "$tmp/out" && ok || bad "CPU run does not say it is the oracle"
[ "$(entries "$tmp/c.mtx" | tr '\n' ';')" = "1 2 1;1 3 8;1 5 2;2 1 9;4 2 4;4 3 20;4 4 30;4 5 8;5 1 7;5 5 7;" ] && ok || bad "A*B wrong: $(entries "$tmp/c.mtx" | tr '\n' ';')"
expect 0 "$spx" spgemm "$tmp/a.mtx" --transpose-b -o "$tmp/t.mtx.gz"
expect 0 "$spx" info "$tmp/t.mtx.gz" --json
json_eq "$tmp/out" 'd["rows"]==5 and d["nnz"]==6'
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || bad "temporary file left behind"

# JSON: phases, products, compression, GFLOPS
expect 0 "$spx" spgemm gen:poisson2d:n=30 --json --backend cpu
cp "$tmp/out" "$tmp/p.json"
json_eq "$tmp/p.json" '(lambda r: r["nnz_c"]>0 and r["products"]>=r["nnz_c"] and abs(r["compression"]-r["products"]/r["nnz_c"])<1e-6 and r["gflops"]>0 and set(["analyse","symbolic","numeric"])<=set(r["phases"]) and r["verified"]=="oracle" and r["m"]==900)(d["result"])'
expect 0 "$spx" spgemm gen:rmat:scale=8,ef=4 --transpose-b --precision fp32 --json
json_eq "$tmp/out" '(lambda r: r["transpose_b"]==1 and r["precision"]=="fp32" and "transpose" in r["phases"])(d["result"])'
expect 0 "$spx" spgemm gen:uniform:m=300,k=3 gen:uniform:m=300,k=5 --threads 2
grep -q '^GFLOPS' "$tmp/out" && grep -q 'compression' "$tmp/out" && ok || bad "text lacks GFLOPS or compression"

# errors: one line each, no output file
expect 2 "$spx" spgemm gen:poisson2d:n=5 gen:poisson2d:n=6 -o "$tmp/x.mtx"; one_error_line
grep -q 'inner dimensions differ' "$tmp/err" && ok || bad "mismatch message: $(cat "$tmp/err")"
[ ! -e "$tmp/x.mtx" ] && ok || bad "a failed product left a file"
expect 2 "$spx" spgemm;                                         one_error_line
expect 2 "$spx" spgemm gen:poisson2d:n=5 --method nosuch;       one_error_line
expect 2 "$spx" spgemm gen:poisson2d:n=5 --method gustavson --algo x; one_error_line
expect 2 "$spx" spgemm gen:poisson2d:n=5 --precision fp16;      one_error_line
expect 2 "$spx" spgemm "$tmp/none.mtx";                          one_error_line
expect 2 "$spx" spgemm gen:poisson2d:n=5 -o "$tmp/no/dir/c.mtx"; one_error_line
expect 2 "$spx" spgemm gen:poisson2d:n=200 --mem-limit 1M;       one_error_line
expect 0 "$spx" spgemm --help;  grep -q 'cusparse' "$tmp/out" && grep -q 'gustavson' "$tmp/out" && ok || bad "help lacks the methods"
if ! "$spx" --version | grep -q 'CUDA backend built' || ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
  # no usable GPU: asking for it is an error, never a silent CPU run
  expect 2 "$spx" spgemm gen:poisson2d:n=5 --backend cuda;      one_error_line
  expect 2 "$spx" spgemm gen:poisson2d:n=5 --method cusparse;   one_error_line
else
  for m in spx cusparse; do
    expect 0 "$spx" spgemm gen:poisson2d:n=40 --method $m --json
    json_eq "$tmp/out" 'd["result"]["verified"]=="yes" and d["result"]["backend"]=="cuda"'
  done
fi

# independent check: scipy's A @ B (and A @ A.T) equal spx's -o, when scipy is importable
if python3 -c 'import scipy' 2>/dev/null; then
  for src in "$shared/dwt_419.mtx.gz" "$shared/can_96.mtx.gz" "$shared/cage8.mtx.gz"; do
    [ -e "$src" ] || continue
    for tb in "" "--transpose-b"; do
      expect 0 "$spx" spgemm "$src" $tb -o "$tmp/s.mtx"
      if python3 - "$src" "$tmp/s.mtx" "$tb" <<'EOF'
import sys, scipy.io, numpy as np
A = scipy.io.mmread(sys.argv[1]).tocsr(); C = scipy.io.mmread(sys.argv[2]).tocsr()
R = (A @ (A.T if sys.argv[3] else A)).tocsr()
R.sort_indices(); C.sort_indices()
d = abs(R - C).max() if R.nnz else 0.0
sys.exit(0 if R.shape == C.shape and d <= 1e-12 * max(1.0, abs(R).max()) else 1)
EOF
      then ok; else bad "scipy disagrees with spx spgemm on $src $tb"; fi
    done
  done
else
  echo "note: scipy not importable; the scipy comparison is skipped" >&2
fi

report
