#!/usr/bin/env bash
# tests/test_cli_spgemm.sh: `spx spgemm`: exit codes, one error line per failure, JSON that
# parses and holds the phases, GFLOPS, nnz(C) and compression, -o written through a
# temporary name (and read back equal to a hand-checked product), the GPU refused without
# one; `spx bench --op spgemm` on the CPU: a suite file, the JSON's fields with real values
# (nnz(C) equal to the oracle's, verified), a failed method as a row, the bad-input errors,
# output paths refused before anything runs, sizes beyond the host budget, bad counts and
# suites, and `--op spmv` unchanged. scipy's A @ B against `spx spgemm -o` is the ctest
# spgemm_scipy_check (scripts/spgemm_scipy_check.py).
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

# spx bench --op spgemm: a suite file (comments, a shared matrix when present), JSON and CSV
cat >"$tmp/suite.txt" <<'EOF'
# a comment line
gen:poisson2d:n=40      # trailing comment
gen:rmat:scale=8,ef=4
gen:tall:m=50,n=10      # rectangular: skipped for A*A
EOF
[ -e "$shared/can_96.mtx.gz" ] && echo "$shared/can_96.mtx.gz" >>"$tmp/suite.txt"
expect 0 "$spx" bench --op spgemm --suite "$tmp/suite.txt" --backend cpu --reps 2 --cpu-scaling \
  --json "$tmp/b.json" --csv "$tmp/b.csv"
json_ok "$tmp/b.json"
json_eq "$tmp/b.json" 'd["op"]=="spgemm" and "git_commit" in d["env"] and "date" in d["env"] and d["env"]["backend"]=="cpu"'
json_eq "$tmp/b.json" 'all(r["verified"]=="yes" and r["status"]=="SPX_OK" and r["nnz_c"]==r["oracle_nnz_c"]>0 and r["products"]>=r["nnz_c"] and abs(r["compression"]-r["products"]/r["nnz_c"])<1e-6 and r["numeric_s"]>0 and r["first_run_s"]>0 and r["plan_s"]>0 and r["gflops_numeric"]>0 and r["gflops_total"]>0 and r["reps"]==2 and r["host_peak_bytes"]>0 and set(["analyse","symbolic","numeric"])<=set(r["phases"]) and r["rel_error"]==0 for r in d["results"] if r["status"]!="skipped")'
json_eq "$tmp/b.json" '[r["name"] for r in d["results"] if r["matrix"]=="gen:poisson2d:n=40"]==["gustavson","gustavson/1thread"]'
json_eq "$tmp/b.json" '(lambda r: r[0]["threads"]==1 and r[1]["x_1thread"]>0)(sorted([r for r in d["results"] if r["matrix"]=="gen:rmat:scale=8,ef=4"], key=lambda r: r["threads"]))'
json_eq "$tmp/b.json" '[r["status"] for r in d["results"] if r["matrix"]=="gen:tall:m=50,n=10"]==["skipped"]'
json_eq "$tmp/b.json" 'all(r["x_alg1"] is None and r["x_best_cusparse"] is None for r in d["results"])'
# the one-shot command agrees on nnz(C)
nnz_c=$(python3 -c 'import json,sys; print([r for r in json.load(open(sys.argv[1]))["results"] if r["matrix"]=="gen:poisson2d:n=40"][0]["nnz_c"])' "$tmp/b.json")
expect 0 "$spx" spgemm gen:poisson2d:n=40 --json
json_eq "$tmp/out" "d['result']['nnz_c']==$nnz_c"
[ "$(head -1 "$tmp/b.csv" | cut -d, -f1-3)" = "matrix,name,method" ] && [ "$(grep -c gustavson "$tmp/b.csv")" -ge 4 ] && ok || bad "CSV: $(head -2 "$tmp/b.csv")"
expect 0 "$spx" bench --op spgemm gen:uniform:m=300,n=200,k=3 --transpose-b --precision fp32 --threads 2 --json "$tmp/t.json"
grep -q 'A\*A^T' "$tmp/out" && grep -q 'GF_num' "$tmp/out" && grep -q 'x_alg1' "$tmp/out" && ok || bad "table: $(cat "$tmp/out")"
json_eq "$tmp/t.json" '(lambda r: r["transpose_b"]==1 and r["precision"]=="fp32" and r["m"]==r["n"]==300 and r["threads"]==2 and r["verified"]=="yes" and "transpose" in r["phases"])(d["results"][0])'
# a method that fails (here C over the host budget) is a row, and the bench exits 0
expect 0 "$spx" bench --op spgemm gen:poisson2d:n=300 --mem-limit 12M --json "$tmp/f.json"
grep -q 'failed: spgemm: C' "$tmp/out" && ok || bad "failed row: $(cat "$tmp/out")"
json_eq "$tmp/f.json" '(lambda r: r["status"]=="SPX_ERR_NOMEM" and "host budget" in r["message"] and r["numeric_s"] is None)(d["results"][0])'
# bad input: one error line, exit 2, no JSON left
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --methods nosuch --json "$tmp/x.json"; one_error_line
[ ! -e "$tmp/x.json" ] && ok || bad "a refused bench wrote JSON"
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --methods gustavson/alg9; one_error_line
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --methods cusparse/alg1 --backend cpu; one_error_line
grep -q 'runs on cuda' "$tmp/err" && ok || bad "wrong-backend message: $(cat "$tmp/err")"
expect 2 "$spx" bench --op spgemm "$tmp/none.mtx";                one_error_line
expect 2 "$spx" bench --op spgemm --suite "$tmp/none.txt";        one_error_line
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --formats all; one_error_line
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --cold;       one_error_line
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --reps 0;     one_error_line
expect 2 "$spx" bench gen:poisson2d:n=5 --methods gustavson;      one_error_line
expect 2 "$spx" bench gen:poisson2d:n=5 --op spgemv;              one_error_line
expect 2 "$spx" bench gen:poisson2d:n=5 --op;                     one_error_line
expect 2 "$spx" bench --op spgemm gen:nosuch:n=5;                 one_error_line
# output paths are checked before anything runs: nothing measured, nothing left behind
mkfifo "$tmp/fifo"
for o in "--json $tmp/no/dir/x.json" "--csv $tmp/no/dir/x.csv" "--json $tmp/fifo" "--csv $tmp" "--json $tmp/s.x --csv $tmp/s.x"; do
  expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 $o; one_error_line
  [ ! -s "$tmp/out" ] && ok || bad "bench ran before refusing $o: $(cat "$tmp/out")"
done
[ -p "$tmp/fifo" ] && [ ! -e "$tmp/s.x" ] && ok || bad "a refused output path was replaced or created"
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --json "";   one_error_line
for o in "$tmp/no/dir/c.mtx" "$tmp/fifo" "$tmp" ""; do
  expect 2 "$spx" spgemm gen:poisson2d:n=5 -o "$o"; one_error_line
  [ ! -s "$tmp/out" ] && ok || bad "spgemm ran before refusing -o '$o'"
done
[ -p "$tmp/fifo" ] && ok || bad "-o replaced a FIFO"
# a run that fails midway (a bad source after a good one) writes no JSON or CSV at all
printf 'gen:poisson2d:n=10\ngen:nosuch:n=5\n' >"$tmp/mid.txt"
expect 2 "$spx" bench --op spgemm --suite "$tmp/mid.txt" --json "$tmp/mid.json" --csv "$tmp/mid.csv"
[ ! -e "$tmp/mid.json" ] && [ ! -e "$tmp/mid.csv" ] && [ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || bad "a failed bench left output: $(ls "$tmp")"
# sizes beyond the host budget are refused before they are allocated, with one clear line
# (a budget of 16 GB, so the verdict is the same on a 24 GB CI machine and a 128 GB GPU one)
printf '%%%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 4000000000\n1 1 1\n' >"$tmp/huge.mtx"
for src in gen:rmat:scale=30,ef=64 "$tmp/huge.mtx"; do
  expect 2 "$spx" spgemm "$src" --mem-limit 16G;    one_error_line
  grep -q 'host budget' "$tmp/err" && ok || bad "no budget message for $src: $(cat "$tmp/err")"
  expect 2 "$spx" bench --op spgemm "$src" --mem-limit 16G --json "$tmp/h.json"; one_error_line
  grep -q 'host budget' "$tmp/err" && [ ! -e "$tmp/h.json" ] && ok || bad "bench on $src: $(cat "$tmp/err")"
done
# a C over the budget: refused by the plan (spx spgemm) or a failed row (the bench)
expect 2 "$spx" spgemm gen:rmat:scale=12,ef=16 --mem-limit 4M;  one_error_line
grep -q 'spgemm: C (.*needs.*host budget' "$tmp/err" && ok || bad "C budget message: $(cat "$tmp/err")"
# counts and methods
for a in "--reps 0" "--reps -1" "--reps abc" "--reps 5x" "--warmup -2" "--threads 0" "--threads 99999" "--threads two" \
         "--methods gustavson,gustavson" "--methods gustavson,gustavson/auto" "--methods gustavson/" "--methods ," \
         "--methods $(printf 'gustavson,%.0s' $(seq 120))"; do
  expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 $a;        one_error_line
done
grep -q 'lists gustavson twice' <("$spx" bench --op spgemm gen:poisson2d:n=5 --backend cpu --methods gustavson,gustavson 2>&1) && ok || bad "duplicate message"
expect 2 "$spx" spgemm gen:poisson2d:n=5 --threads 0;            one_error_line
expect 2 "$spx" spgemm gen:uniform:m=30,n=20,k=3 gen:uniform:m=30,n=25,k=3 --transpose-b; one_error_line
grep -q 'B^T is 25 x 30' "$tmp/err" && ok || bad "transposed mismatch message: $(cat "$tmp/err")"
expect 0 "$spx" spgemm gen:uniform:m=30,n=20,k=3 gen:uniform:m=40,n=20,k=3 --transpose-b
grep -q '^C  *30 x 40' "$tmp/out" && ok || bad "A*B^T shape: $(grep '^C ' "$tmp/out")"
# suite files: empty or comments only are one error; trailing blanks, tabs, CRLF and comments are ignored
: >"$tmp/empty.txt"; printf '# only\n   # comments\n\n' >"$tmp/comments.txt"
for f in empty comments; do expect 2 "$spx" bench --op spgemm --suite "$tmp/$f.txt"; one_error_line; done
printf 'gen:poisson2d:n=5 \t \r\n\tgen:poisson2d:n=6   # c  \r\n\r\n' >"$tmp/trail.txt"
expect 0 "$spx" bench --op spgemm --suite "$tmp/trail.txt" --backend cpu --json "$tmp/trail.json"
json_eq "$tmp/trail.json" '[r["matrix"] for r in d["results"]]==["gen:poisson2d:n=5","gen:poisson2d:n=6"] and all(r["verified"]=="yes" for r in d["results"])'
# CSV fields with quotes and commas stay one field each
cp "$tmp/a.mtx" "$tmp/q\"u,o.mtx"
expect 0 "$spx" bench --op spgemm "$tmp/q\"u,o.mtx" --backend cpu --csv "$tmp/q.csv"
python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(0 if len(r)==2 and len(r[0])==len(r[1]) and r[1][0].endswith("q\"u,o.mtx") else 1)' "$tmp/q.csv" && ok || bad "CSV quoting: $(cat "$tmp/q.csv")"
# --op spmv is the SpMV bench as before
expect 0 "$spx" bench --op spmv gen:poisson2d:n=30 --backend cpu --formats csr --reps 2 --json "$tmp/s.json"
json_eq "$tmp/s.json" '(lambda r: r["format"]=="csr" and r["verified"]==1 and "t_median_s" in r)(d["results"][0])'
grep -q 'GB/s' "$tmp/out" && ok || bad "SpMV table: $(cat "$tmp/out")"

report
