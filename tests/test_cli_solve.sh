#!/usr/bin/env bash
# tests/test_cli_solve.sh: `spx solve`: a converging run (the printed true residual and error
# small), --json and --history that parse and agree, --plot an SVG of the history, -o written as an array vector and read
# back as --x0, --rhs, BiCGSTAB with Jacobi, fp32, a run that does not converge (exit 1, the
# report still printed and written), bad options, missing and wrong-length vector files (both
# lengths named), a zero diagonal under Jacobi, output paths refused before anything runs, no
# partial output left; the iteration's path (--check-every and --solver-path give the same
# history, a bad --solver-path is refused); on a GPU machine the CUDA run with its floor, its
# graph and its break-even against cuSPARSE, and the persistent kernel (--solver-path: the same
# count, one read; a format other than csr falls back and says why).
# Usage: test_cli_solve.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1; data=$2; shared=$3
. "$(dirname "$0")/cli_lib.sh"
P=gen:poisson3d:n=12,laplace=1 # 1728 rows, SPD
m=1728

# a converging CG run: status, iterations, residuals, error, times, no break-even on the CPU
expect 0 "$spx" solve $P --backend cpu --json "$tmp/s.json" --history "$tmp/h.json" -o "$tmp/x.mtx"
grep -q '^status  *converged' "$tmp/out" && ok || bad "status: $(cat "$tmp/out")"
for k in iterations residual 'max error' time floor path break-even; do
  grep -q "^$k" "$tmp/out" && ok || bad "no '$k' line: $(cat "$tmp/out")"
done
true_res=$(sed -n 's/^residual *true ||b - Ax||\/||b|| = \([^ ]*\).*/\1/p' "$tmp/out")
max_err=$(sed -n 's/^max error *|x - 1| = \([^ ]*\)/\1/p' "$tmp/out")
python3 -c "import sys; sys.exit(0 if float('$true_res') <= 1.01e-8 and float('$max_err') <= 1e-6 else 1)" && ok || bad "printed residual '$true_res', error '$max_err'"
grep -q 'n/a (no baseline on the CPU)' "$tmp/out" && ok || bad "break-even on the CPU: $(grep break-even "$tmp/out")"
json_ok "$tmp/s.json"
json_eq "$tmp/s.json" '(lambda r: r["converged"]==1 and r["status"]=="converged" and r["method"]=="cg" and r["precond"]=="none" and r["m"]=='$m' and 0<r["iterations"]<200 and r["spmvs"]==r["iterations"]+1 and r["rel_residual_true"]<=1.01e-8 and r["rel_residual_recursive"]<=1e-8 and r["max_error"]<=1e-6 and r["backend"]=="cpu" and r["plan_s"]>0 and r["iter_s"]>0 and abs(r["total_s"]-(r["plan_s"]+r["precond_s"]+r["solve_s"]))<=1e-6*r["total_s"] and r["break_even_iterations"] is None and len(r["history"])==r["iterations"]+1 and r["history"][0]==1 and r["history"][-1]==r["rel_residual_recursive"])(d["result"]) and "git_commit" in d["env"]'
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["result"]["history"]; b=json.load(open(sys.argv[2])); sys.exit(0 if a==b["history"] and b["method"]=="cg" else 1)' "$tmp/s.json" "$tmp/h.json" && ok || bad "--history differs from --json's history"
# the iteration's path on the CPU: fused steps, scalars read every iteration, no floor; the
# same solve read every 5 iterations gives the same count and history (--check-every)
json_eq "$tmp/s.json" '(lambda r: r["graph"]==0 and r["check_every"]==1 and r["iterations_run"]==r["iterations"] and r["iter_vector_bytes"]==10*'$m'*8 and r["floor_s"] is None and r["floor_note"].startswith("n/a"))(d["result"])'
expect 0 "$spx" solve $P --backend cpu --check-every 5 --json "$tmp/s5.json"
# the path on the CPU: the host's steps whatever --solver-path asks, the same solve, said in the JSON
json_eq "$tmp/s.json" '(lambda r: r["path"]=="host" and r["path_reason"].startswith("not a CUDA plan") and r["kernel_s"]==0)(d["result"])'
expect 0 "$spx" solve $P --backend cpu --solver-path persistent --json "$tmp/sp.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["result"]; b=json.load(open(sys.argv[2]))["result"]; sys.exit(0 if a["history"]==b["history"] and b["path"]=="host" else 1)' "$tmp/s.json" "$tmp/sp.json" && ok || bad "--solver-path persistent on the CPU differs"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["result"]; b=json.load(open(sys.argv[2]))["result"]; sys.exit(0 if a["history"]==b["history"] and a["iterations"]==b["iterations"] and b["check_every"]==5 and b["iterations"]<=b["iterations_run"]<b["iterations"]+5 else 1)' "$tmp/s.json" "$tmp/s5.json" && ok || bad "--check-every 5 differs"
# --plot: the residual history as an SVG line chart, well-formed, one line of iterations+1 points
expect 0 "$spx" solve $P --backend cpu --plot "$tmp/r.svg" --json "$tmp/p.json"
python3 -c 'import json,sys,xml.etree.ElementTree as E
n=len(json.load(open(sys.argv[2]))["result"]["history"])
ps=[e for e in E.parse(sys.argv[1]).iter() if e.tag.endswith("path") and e.get("d","").startswith("M")]
pts=sum(e.get("d").count("L")+1 for e in ps)
sys.exit(0 if ps and pts==n else 1)' "$tmp/r.svg" "$tmp/p.json" && ok || bad "--plot: no line of the history's points"
# -o: an array vector of m values near 1, read back as --x0: converged at once
[ "$(head -1 "$tmp/x.mtx")" = "%%MatrixMarket matrix array real general" ] && [ "$(grep -v '^%' "$tmp/x.mtx" | head -1)" = "$m 1" ] && ok || bad "-o header: $(head -3 "$tmp/x.mtx")"
python3 -c 'import sys; v=[float(l) for l in [l for l in open(sys.argv[1]) if not l.startswith("%")][1:]]; sys.exit(0 if len(v)=='$m' and max(abs(x-1) for x in v)<=1e-6 else 1)' "$tmp/x.mtx" && ok || bad "-o values"
expect 0 "$spx" solve $P --backend cpu --x0 "$tmp/x.mtx" --json "$tmp/x0.json"
json_eq "$tmp/x0.json" 'd["result"]["iterations"]==0 and d["result"]["converged"]==1'
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || bad "temporary file left behind"

# --rhs (b = ones, comments and blank lines allowed): no error against ones is printed
{ echo '%%MatrixMarket matrix array real general'; echo '% b = ones'; echo; echo "$m 1"; for i in $(seq $m); do echo 1; done; } >"$tmp/ones.mtx"
expect 0 "$spx" solve $P --backend cpu --rhs "$tmp/ones.mtx" --json "$tmp/r.json"
grep -q '^max error' "$tmp/out" && bad "max error printed with --rhs" || ok
json_eq "$tmp/r.json" '(lambda r: r["rhs"]=="file" and r["max_error"] is None and r["converged"]==1 and r["rel_residual_true"]<=1.01e-8)(d["result"])'
# BiCGSTAB with Jacobi on an unsymmetric shared matrix; fp32
if [ -e "$shared/cage8.mtx.gz" ]; then
  expect 0 "$spx" solve "$shared/cage8.mtx.gz" --method bicgstab --precond jacobi --backend cpu --json "$tmp/b.json"
  json_eq "$tmp/b.json" '(lambda r: r["method"]=="bicgstab" and r["precond"]=="jacobi" and r["converged"]==1 and r["precond_s"]>0 and r["spmvs"]>=2*r["iterations"] and r["rel_residual_true"]<=2e-8)(d["result"])'
fi
expect 0 "$spx" solve $P --backend cpu --precision fp32 --tol 1e-5 --json "$tmp/f.json"
json_eq "$tmp/f.json" '(lambda r: r["precision"]=="fp32" and r["converged"]==1 and r["rel_residual_true"]<=2e-5)(d["result"])'

# not converged (the cap; a breakdown on an indefinite matrix): exit 1, report printed and written
expect 1 "$spx" solve $P --backend cpu --maxit 3 --json "$tmp/c.json" -o "$tmp/c.mtx"
grep -q '^status  *max iterations reached' "$tmp/out" && grep -q '^time' "$tmp/out" && ok || bad "capped report: $(cat "$tmp/out")"
json_eq "$tmp/c.json" '(lambda r: r["converged"]==0 and r["iterations"]==3 and len(r["history"])==4)(d["result"])'
[ -s "$tmp/c.mtx" ] && ok || bad "-o not written for a capped solve"
expect 1 "$spx" solve gen:poisson2d:n=10 --backend cpu
grep -q "^status  *breakdown: p'Ap <= 0" "$tmp/out" && ok || bad "breakdown report: $(cat "$tmp/out")"

# bad options and inputs: exit 2, one error line, nothing written
for a in "--method gmres" "--precond ilu" "--tol 0" "--tol -1" "--tol abc" "--tol nan" "--maxit 0" "--maxit x" "--format nosuch" \
         "--check-every 0" "--check-every 129" "--check-every x" "--solver-path gpu" "--solver-path" "--solver-path Graph" \
         "--precision fp16" "--foo" "--backend gpu" "--rhs" "$P"; do
  expect 2 "$spx" solve $P $a -o "$tmp/never.mtx"; one_error_line
done
expect 2 "$spx" solve;                                       one_error_line
expect 0 "$spx" solve --help; grep -q 'bicgstab' "$tmp/out" && grep -q 'Exit 0 converged, 1 not converged' "$tmp/out" && ok || bad "help: $(cat "$tmp/out")"
expect 2 "$spx" solve gen:tall:m=50,n=10 --backend cpu;      one_error_line
grep -q 'square' "$tmp/err" && ok || bad "non-square message: $(cat "$tmp/err")"
expect 2 "$spx" solve "$tmp/none.mtx";                       one_error_line
if ! "$spx" --version | grep -q 'CUDA backend built' || ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
  expect 2 "$spx" solve $P --backend cuda;                   one_error_line
fi
# vector files: missing, wrong length (both lengths named), malformed
expect 2 "$spx" solve $P --rhs "$tmp/none.mtx";              one_error_line
grep -q -- '--rhs: .*none.mtx: cannot open' "$tmp/err" && ok || bad "missing rhs message: $(cat "$tmp/err")"
{ echo '%%MatrixMarket matrix array real general'; echo "$((m-1)) 1"; for i in $(seq $((m-1))); do echo 1; done; } >"$tmp/short.mtx"
for o in --rhs --x0; do
  expect 2 "$spx" solve $P $o "$tmp/short.mtx" -o "$tmp/never.mtx"; one_error_line
  grep -q -- "$o .*the vector has $((m-1)) entries, the matrix has $m rows" "$tmp/err" && ok || bad "$o length message: $(cat "$tmp/err")"
done
bad_vec() { # bad_vec NAME EXPECTED-MESSAGE-PART, file content on stdin
  cat >"$tmp/$1.mtx"
  expect 2 "$spx" solve $P --rhs "$tmp/$1.mtx" -o "$tmp/never.mtx"; one_error_line
  grep -q -- "$2" "$tmp/err" && ok || bad "$1: $(cat "$tmp/err")"
}
printf '%%%%MatrixMarket matrix array real general\n%d 2\n' $m | bad_vec cols "a vector has 1 column, got $m x 2"
printf '%%%%MatrixMarket matrix coordinate real general\n%d 1 1\n1 1 1\n' $m | bad_vec coord "not a coordinate one"
printf '%%%%MatrixMarket matrix array complex general\n%d 1\n' $m | bad_vec complex "complex vectors are not supported"
printf '%%%%MatrixMarket matrix array real general\n%d 1\n1\n2\n' $m | bad_vec few "after 2 of $m entries"
printf '%%%%MatrixMarket matrix array real general\n9 1\n1\nx\n3\n4\n5\n6\n7\n8\n9\n' >"$tmp/nan.mtx"
expect 2 "$spx" solve gen:poisson2d:n=3,laplace=1 --x0 "$tmp/nan.mtx"; one_error_line
grep -q "nan.mtx:4: invalid real value 'x'" "$tmp/err" && ok || bad "bad value message: $(cat "$tmp/err")"
printf '%%%%MatrixMarket matrix array real general\n9 1\n1 2 3\n4 5 6\n7 8 9 10\n' >"$tmp/many.mtx"
expect 2 "$spx" solve gen:poisson2d:n=3,laplace=1 --rhs "$tmp/many.mtx"; one_error_line
grep -q "many.mtx:3: unexpected '2' after the entry" "$tmp/err" && ok || bad "extra value message: $(cat "$tmp/err")"
printf 'hello\n' | gzip >"$tmp/v.mtx.gz"
expect 2 "$spx" solve $P --rhs "$tmp/v.mtx.gz"; one_error_line
grep -q 'v.mtx.gz:1: missing %%MatrixMarket banner' "$tmp/err" && ok || bad "gz message: $(cat "$tmp/err")"
# a NaN in b is the solver's report (exit 1), not a crash
printf '%%%%MatrixMarket matrix array real general\n9 1\n1\n1\nnan\n1\n1\n1\n1\n1\n1\n' >"$tmp/nanb.mtx"
expect 1 "$spx" solve gen:poisson2d:n=3,laplace=1 --rhs "$tmp/nanb.mtx"
grep -q '^status  *breakdown: NaN or Inf' "$tmp/out" && ok || bad "NaN in b: $(cat "$tmp/out")"
# Jacobi on a zero diagonal: refused, the row named
if [ -e "$shared/west0497.mtx.gz" ]; then
  expect 2 "$spx" solve "$shared/west0497.mtx.gz" --method bicgstab --precond jacobi -o "$tmp/never.mtx"; one_error_line
  grep -q 'row 1 has no diagonal entry' "$tmp/err" && ok || bad "Jacobi message: $(cat "$tmp/err")"
fi
[ ! -e "$tmp/never.mtx" ] && ok || bad "a refused solve wrote -o"

# output paths are checked before anything runs: nothing printed, nothing left behind
mkfifo "$tmp/fifo"
for o in "-o $tmp/no/dir/x.mtx" "--json $tmp/no/dir/s.json" "--history $tmp/no/dir/h.json" "-o $tmp/fifo" "--json $tmp" \
         "-o $tmp/same --json $tmp/same" "--json $tmp/same2 --history $tmp/same2" "--plot $tmp/no/dir/r.svg" "--plot $tmp/same3 --json $tmp/same3"; do
  expect 2 "$spx" solve $P $o; one_error_line
  [ ! -s "$tmp/out" ] && ok || bad "solve ran before refusing $o"
done
[ -p "$tmp/fifo" ] && [ ! -e "$tmp/same" ] && [ ! -e "$tmp/same2" ] && [ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || bad "a refused output left files: $(ls "$tmp")"

# on a GPU machine: the CUDA run and its break-even against the baseline, measured in the run
if "$spx" --version | grep -q 'CUDA backend built' && command -v nvidia-smi >/dev/null && nvidia-smi >/dev/null 2>&1; then
  expect 0 "$spx" solve gen:poisson3d:n=40,laplace=1 --backend cuda --format csr --solver-path graph --json "$tmp/g.json"
  json_eq "$tmp/g.json" '(lambda r: r["backend"]=="cuda" and r["converged"]==1 and r["rel_residual_true"]<=1.01e-8 and r["baseline"]=="cusparse/alg1" and r["t_spmv_s_baseline"]>0 and r["t_spmv_s_format"]>0 and r["plan_s_baseline"]>0 and r["break_even_iterations"] is not None)(d["result"])'
  # the GPU path: csr's iteration a replayed graph, the floor measured in the run
  json_eq "$tmp/g.json" '(lambda r: r["graph"]==1 and 1<=r["check_every"]<=128 and r["checks"]>=1 and r["iterations_run"]>=r["iterations"] and r["floor_s"]>0 and r["floor_spmv_s"]>0 and r["copy_bandwidth_bytes_per_s"]>0 and r["iter_over_floor"]>0)(d["result"])'
  grep -q '^floor .*per iteration = 1 x SpMV' "$tmp/out" && grep -q 'x the floor' "$tmp/out" && grep -q '^path .*replayed CUDA graph' "$tmp/out" && grep -q '^ *graph path: asked' "$tmp/out" && ok || bad "GPU floor/path lines: $(grep -E '^(floor|path)' "$tmp/out")"
  # the persistent kernel (auto on this small csr plan): the same count, one read, its own time
  expect 0 "$spx" solve gen:poisson3d:n=40,laplace=1 --backend cuda --format csr --json "$tmp/gp.json"
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["result"]; b=json.load(open(sys.argv[2]))["result"]; sys.exit(0 if b["path"]=="persistent" and b["path_reason"].startswith("auto: csr") and b["graph"]==0 and b["checks"]==1 and b["iterations"]==a["iterations"] and b["iterations_run"]==b["iterations"] and b["kernel_s"]>0 and abs(b["iter_s"]-b["kernel_s"]/b["iterations"])<=1e-9 and b["iter_over_floor"]>0 and len(b["history"])==b["iterations"]+1 else 1)' "$tmp/g.json" "$tmp/gp.json" && ok || bad "persistent run: $(grep -E '^(path|floor|iterations)' "$tmp/out")"
  grep -q '^path  *persistent: the whole solve one cooperative kernel' "$tmp/out" && ok || bad "persistent path line: $(grep -A2 '^path' "$tmp/out")"
  expect 0 "$spx" solve gen:poisson3d:n=40,laplace=1 --backend cuda --format cusparse --solver-path persistent --json "$tmp/gc.json"
  json_eq "$tmp/gc.json" '(lambda r: r["path"]=="graph" and r["path_reason"].startswith("persistent asked, but the plan") and "format is cusparse, not csr" in r["path_reason"])(d["result"])'
  expect 0 "$spx" solve gen:poisson3d:n=40,laplace=1 --backend cuda --format cusparse
  grep -q 'n/a (this format is the baseline)' "$tmp/out" && ok || bad "baseline's own break-even: $(grep break-even "$tmp/out")"
fi

report
