#!/usr/bin/env bash
# tests/test_cli_select.sh: `spx info SRC --select`: the features, the choice, the runner-up
# and the reason, for CPU (csr) and CUDA (the committed table's choice, which follows
# --expected-spmvs); bad --expected-spmvs values exit 2 with one error line; `spx bench`'s
# auto row (requested_format "auto" beside the resolved format) and its refusal of an algo.
# Usage: test_cli_select.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1
. "$(dirname "$0")/cli_lib.sh"

has() { if grep -q "$1" "$tmp/out"; then ok; else bad "no '$1' in: $(cat "$tmp/out")"; fi; }

expect 0 "$spx" info "gen:poisson2d:n=30" --select --backend cpu
has '^select features  rows 900  cols 900  nnz 4380 '
has '^select for       cpu, fp64, 100 SpMVs$'
has '^select choice    csr/auto$'
has '^select runner-up none$'
has '^select why       no CPU results'

if "$spx" formats | grep -q '^cusparse .* yes   yes'; then
  # poisson2d n=350: 611100 entries (see tests/test_select.c for the leaves it reaches)
  expect 0 "$spx" info "gen:poisson2d:n=350" --select --backend cuda --precision fp32 --expected-spmvs 1
  has '^select for       cuda, fp32, 1 SpMVs$'
  has '^select choice    cusparse/alg2$'
  has '^select runner-up cusparse/alg1$'
  has '^select why       fp32 table for 1 SpMVs: nnz 6.111e+05 > 2.1e+05; -> cusparse/alg2'
  expect 0 "$spx" info "gen:poisson2d:n=350" --select --backend cuda --expected-spmvs 10000
  has '^select choice    csr/auto$'
  expect 0 "$spx" info "gen:poisson2d:n=350" --select --backend cuda --precision fp32 --expected-spmvs 100
  has '^select for       cuda, fp32, 100 SpMVs$'
  has '^select why       fp32 table for 100 SpMVs: '
  # random columns over more of x than L2 holds: hbp's column bands
  expect 0 "$spx" info "gen:uniform:m=2200000,k=1" --select --backend cuda
  has 'spread_cols 2\.[12][0-9]*e+06$'
  has '^select choice    hbp/auto$'
fi

for v in 0 -5 abc 1e3 12x 10000000000000000; do
  expect 2 "$spx" info "gen:poisson2d:n=30" --select --expected-spmvs "$v"
  one_error_line
done
expect 2 "$spx" info "gen:poisson2d:n=30" --select --expected-spmvs
one_error_line
expect 2 "$spx" info "gen:poisson2d:n=30" --select --json
one_error_line

# spx bench's auto row: the selection's choice measured beside the formats, its JSON record
# naming "auto" as requested and the format and algorithm it resolved to
expect 0 "$spx" bench gen:poisson2d:n=30 --backend cpu --formats csr,auto --reps 2 --expected-spmvs 50 --json "$tmp/auto.json"
json_eq "$tmp/auto.json" '[r["requested_format"] for r in d["results"]]==["csr","auto"] and d["results"][1]["format"]=="csr" and all(r["verified"] in (1, True, "yes") for r in d["results"])'
grep -q '^gen:poisson2d:n=30 .* auto:csr/' "$tmp/out" && ok || bad "no auto row in the table: $(cat "$tmp/out")"
expect 2 "$spx" bench gen:poisson2d:n=30 --backend cpu --formats auto/scalar
one_error_line
grep -q "format 'auto' takes no algorithm" "$tmp/err" && ok || bad "auto/scalar message: $(cat "$tmp/err")"
report
