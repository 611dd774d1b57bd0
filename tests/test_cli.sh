#!/usr/bin/env bash
# tests/test_cli.sh: the spx command line: exit codes, error lines, JSON that parses, no
# partial output files. Usage: test_cli.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1; data=$2; shared=$3
. "$(dirname "$0")/cli_lib.sh"

expect 0 "$spx" --help
expect 2 "$spx";                          grep -q usage "$tmp/err" && ok || bad "no usage on stderr"
expect 2 "$spx" nosuch;                   one_error_line
expect 0 "$spx" formats;                  grep -q '^csr ' "$tmp/out" && ok || bad "formats lists no csr"
expect 0 "$spx" formats --json;           json_ok "$tmp/out"
json_eq "$tmp/out" 'all("available" in f and "why_unavailable" in f and "baseline" in f for f in d["formats"])'

# info
expect 0 "$spx" info "$shared/karate.mtx.gz" --json; json_ok "$tmp/out"
cp "$tmp/out" "$tmp/karate.json"
json_eq "$tmp/karate.json" 'd["rows"]==34 and d["cols"]==34 and d["stored_entries"]==78 and d["nnz"]==156'
expect 2 "$spx" info "$tmp/does-not-exist.mtx"; one_error_line
grep -q 'does-not-exist' "$tmp/err" && ok || bad "missing-file message lacks the name"
expect 2 "$spx" info;                     one_error_line
expect 2 "$spx" info "$shared/karate.mtx.gz" --bogus; one_error_line
for f in "$data"/bad/*.mtx; do
  [ -e "$f" ] || continue
  expect 2 "$spx" info "$f"; one_error_line
  grep -q "$(basename "$f"):[0-9]" "$tmp/err" && ok || bad "message for $f lacks file:line: $(cat "$tmp/err")"
done

# info --format: the plan that format builds, inside the same JSON object
expect 0 "$spx" info "$shared/karate.mtx.gz" --json --format csr --backend cpu
json_eq "$tmp/out" 'd["plan"]["format"]=="csr" and d["plan"]["backend"]=="cpu" and isinstance(d["plan"]["layout"], dict)'
expect 2 "$spx" info "$shared/karate.mtx.gz" --format nosuch; one_error_line

# gen: writes a file that info reads back; bad specs and paths leave no file
expect 0 "$spx" gen gen:poisson2d:n=10 -o "$tmp/p.mtx"
expect 0 "$spx" info "$tmp/p.mtx" --json; json_eq "$tmp/out" 'd["rows"]==100 and d["nnz"]==460'
expect 0 "$spx" gen gen:uniform:m=50,k=3 -o "$tmp/u.mtx.gz"
expect 0 "$spx" info "$tmp/u.mtx.gz" --json; json_eq "$tmp/out" 'd["rows"]==50 and d["nnz"]==150'
expect 2 "$spx" gen gen:nosuch:n=3 -o "$tmp/x.mtx"; one_error_line
[ ! -e "$tmp/x.mtx" ] && ok || bad "bad spec left a file"
expect 2 "$spx" gen gen:poisson2d:n=10 -o "$tmp/no/such/dir/x.mtx"; one_error_line
[ -z "$(ls "$tmp" | grep tmp\\.)" ] && ok || bad "temporary file left behind"
expect 2 "$spx" gen gen:poisson2d:n=10;   one_error_line
# gen killed mid-write by SIGTERM/SIGINT: dies of the signal, leaves neither the target nor
# its temporary. The matrix (16M nonzeros, ~550 MB of text) takes seconds to write, so the
# signal lands while the temporary exists; a write that still wins the race is a skip.
killed_gen() { # killed_gen SIGNAL STATUS
  local sig=$1 want=$2 d="$tmp/kill_$1" pid rc i seen=0
  mkdir "$d"
  set -m # job control: a background job would otherwise ignore SIGINT
  "$spx" gen gen:uniform:m=2000000,k=8 -o "$d/big.mtx" >/dev/null 2>&1 & pid=$!
  set +m
  for i in $(seq 400); do # up to 20 s for the generator to finish and the write to begin
    if ls "$d" | grep -q '^big\.mtx\.tmp\.'; then seen=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  if [ -e "$d/big.mtx" ] && { [ "$rc" = 0 ] || [ "$rc" = "$want" ]; }; then
    echo "SKIP: gen's write completed before SIG$sig arrived; kill check not made" >&2
  elif [ "$seen" = 0 ]; then
    bad "gen (SIG$sig): no temporary file appeared (exit $rc)"
  else
    [ "$rc" = "$want" ] && ok || bad "gen killed by SIG$sig: exit $rc (want $want)"
    [ -z "$(ls "$d" | grep 'tmp\.')" ] && ok || bad "gen killed by SIG$sig left $(ls "$d")"
    [ ! -e "$d/big.mtx" ] && ok || bad "gen killed by SIG$sig left the target"
  fi
  rm -rf "$d"
}
killed_gen TERM 143
killed_gen INT 130

# spmv
expect 0 "$spx" spmv gen:poisson2d:n=30 --backend cpu
grep -q '^verified: yes' "$tmp/out" && ok || bad "spmv did not verify"
grep -q '^batch .* back-to-back' "$tmp/out" && ok || bad "spmv prints no batch time"
expect 0 "$spx" spmv gen:rmat:scale=8,ef=4 --backend cpu --precision fp32 --reps 3
grep -q '^verified: yes' "$tmp/out" && ok || bad "fp32 spmv did not verify"
expect 0 "$spx" spmv "$shared/bcsstk09.mtx.gz" --backend cpu --json; json_ok "$tmp/out"
json_eq "$tmp/out" 'd["result"]["verified"]==1 and d["result"]["backend"]=="cpu" and d["result"]["rel_error"]<1e-12 and d["env"]["git_commit"]'
if git -C "$data" rev-parse HEAD >/dev/null 2>&1; then # built from a git checkout: the commit is known
  json_eq "$tmp/out" 'd["env"]["git_commit"] != "unknown"'
fi
expect 2 "$spx" spmv gen:poisson2d:n=5 --reps 0;          one_error_line
expect 2 "$spx" spmv gen:poisson2d:n=5 --precision fp16;  one_error_line
expect 2 "$spx" spmv gen:poisson2d:n=5 --format nosuch;   one_error_line
expect 2 "$spx" spmv gen:poisson2d:n=5 --algo nosuch --backend cpu; one_error_line
expect 2 "$spx" spmv gen:poisson2d:n=5 --format cusparse --backend cpu; one_error_line
expect 2 "$spx" spmv "$tmp/none.mtx";                     one_error_line
if ! "$spx" --version | grep -q 'CUDA backend built' || ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
  # no usable GPU here: asking for it is an error, never a silent CPU run
  expect 2 "$spx" spmv gen:poisson2d:n=5 --backend cuda;  one_error_line
  grep -qi 'cuda' "$tmp/err" && ok || bad "cuda refusal does not say why"
fi

# bench
# csr only: the default (all CPU formats) grows with the registry
expect 0 "$spx" bench gen:poisson2d:n=40 gen:uniform:m=2000,k=4 --formats csr --backend cpu --reps 3 --json "$tmp/b.json" --csv "$tmp/b.csv"
json_ok "$tmp/b.json"
json_eq "$tmp/b.json" 'len([r for r in d["results"] if r["status"]!="skipped"])==2 and all(r["verified"]==1 for r in d["results"] if r["status"]!="skipped") and d["env"]["host_bandwidth_bytes_per_s"]>0'
# two times per result: per call (t_median_s) and per call of back-to-back batches (t_batch_s)
json_eq "$tmp/b.json" 'all(r["t_batch_s"]>0 and r["batch_calls"]>=4 and r["batches"]>=1 and r["gflops_batch"]>0 and any(k.startswith("speedup_batch_vs_") for k in r) for r in d["results"] if r["status"]!="skipped")'
[ "$(grep -vc ',skipped,' "$tmp/b.csv")" = 3 ] && ok || bad "CSV should have a header and 2 lines"
head -1 "$tmp/b.csv" | grep -q ',t_median_s,.*,t_batch_s,' && ok || bad "CSV lacks t_batch_s after the old columns"
# plans made three times by default (the median's time reported), --plan-reps N otherwise
json_eq "$tmp/b.json" 'all(r["plan_reps"]==3 and r["plan_s"]>=sum(r["plan_phases_s"].values()) for r in d["results"] if r["status"]!="skipped")'
expect 0 "$spx" bench gen:poisson2d:n=20 --formats csr --backend cpu --reps 1 --plan-reps 1 --json "$tmp/b1.json"
json_eq "$tmp/b1.json" 'd["results"][0]["plan_reps"]==1'
expect 2 "$spx" bench gen:poisson2d:n=5 --plan-reps 0;    one_error_line
expect 2 "$spx" bench --suite "$tmp/none.txt";            one_error_line
printf '# a suite\ngen:poisson2d:n=20   # comment\n\n' >"$tmp/s.txt"
expect 0 "$spx" bench --suite "$tmp/s.txt" --backend cpu --reps 2
grep -q 'gen:poisson2d:n=20' "$tmp/out" && ok || bad "suite matrix not measured"
expect 2 "$spx" bench gen:poisson2d:n=5 --formats csr/nosuch; one_error_line
# vectors_agree A.mtx B.mtx N RTOL MSG: two Matrix Market arrays of N entries equal within
# RTOL times A's largest entry (else MSG)
vectors_agree() {
  if python3 - "$1" "$2" "$3" "$4" <<'PY'
import sys
def vals(f): return [float(l) for l in open(f).read().split('\n')[2:] if l.strip()]
a, b, n, rtol = vals(sys.argv[1]), vals(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
sys.exit(0 if len(a) == len(b) == n and max(abs(x - y) for x, y in zip(a, b)) <= rtol * max(map(abs, a)) else 1)
PY
  then ok; else bad "$5"; fi
}
# --order plan: ehyb (grow needs no METIS) verified in its own numbering, csr stays in the caller's
expect 0 "$spx" bench gen:poisson3d:n=12 --formats csr,ehyb/grow --backend cpu --reps 1 --plan-reps 1 --order plan --json "$tmp/bo.json"
json_eq "$tmp/bo.json" '[(r["format"], r["order"], r["verified"]) for r in d["results"]] == [("csr", "caller", 1), ("ehyb", "plan", 1)]'
expect 0 "$spx" info gen:poisson3d:n=12 --format ehyb --algo grow --order plan; grep -q "vector order     the plan's" "$tmp/out" && ok || bad "info --order plan: no vector order line"
expect 0 "$spx" solve gen:poisson3d:n=12,laplace=1 --format ehyb --algo grow --order plan --precond jacobi --backend cpu --json "$tmp/so.json"
json_eq "$tmp/so.json" 'd["result"]["order"] == "plan" and d["result"]["max_error"] < 1e-6'
# a right-hand side whose solution varies, so x put back in the wrong order would show: both orders agree
python3 -c 'print("%%MatrixMarket matrix array real general\n1728 1"); [print(1.0 + (i * 7 % 13) / 5.0) for i in range(1728)]' > "$tmp/rhs.mtx"
for o in caller plan; do
  expect 0 "$spx" solve gen:poisson3d:n=12,laplace=1 --rhs "$tmp/rhs.mtx" --format ehyb --algo grow --order $o --precond jacobi --backend cpu -o "$tmp/x-$o.mtx"
done
vectors_agree "$tmp/x-caller.mtx" "$tmp/x-plan.mtx" 1728 1e-6 "solve --order plan: x differs from the caller's order's"
expect 2 "$spx" bench gen:poisson2d:n=5 --order sideways; one_error_line
# spx spmv --order plan: y written back in the caller's order (the bench's y_out path)
for o in caller plan; do
  expect 0 "$spx" spmv gen:poisson3d:n=10 --format ehyb --algo grow --backend cpu --reps 1 --order $o --y-out "$tmp/y-$o.mtx"
done
# (the same sums in another order: equal to rounding, not bit for bit)
vectors_agree "$tmp/y-caller.mtx" "$tmp/y-plan.mtx" 1000 1e-12 "spmv --order plan: y differs from the caller's order's"
expect 2 "$spx" bench gen:poisson2d:n=5 --json "$tmp/no/dir/b.json" --backend cpu --reps 1

# the SpMV bench refuses a bad --json / --csv before it measures anything, and never writes
# over something that is not a regular file
expect 2 "$spx" bench gen:poisson2d:n=5 --json "$tmp/no/such/dir/b.json"; one_error_line
if [ -s "$tmp/out" ]; then bad "bench measured before refusing its --json path"; else ok; fi
mkfifo "$tmp/fifo"
expect 2 "$spx" bench gen:poisson2d:n=5 --csv "$tmp/fifo"; one_error_line
if [ -p "$tmp/fifo" ]; then ok; else bad "--csv replaced a FIFO"; fi
expect 2 "$spx" bench gen:poisson2d:n=5 --json "$tmp/same" --csv "$tmp/same"; one_error_line

report
