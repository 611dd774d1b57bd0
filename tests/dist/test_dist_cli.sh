#!/usr/bin/env bash
# tests/dist/test_dist_cli.sh: `mpiexec -n P spx spmv|solve SRC --distributed` for P = 1..4:
# the report verifies against the serial result and holds one table line per rank; a malformed
# file, a missing file, a solve of a rectangular matrix and an unknown --partition fail on every
# rank with the same one message and exit code 2, within a timeout (no rank hangs); --partition
# metis verifies too (skipped, with the reason, in a build without METIS).
# Usage: test_dist_cli.sh SPX DATA_DIR SHARED_DIR all|quick MPIEXEC... (the launcher up to its
# -n flag); quick (the ASan build, where every launch costs a second or two) runs 1 and 3 ranks
# and one shared matrix.
set -uo pipefail
spx=$1 data=$2 shared=$3 mode=$4
shift 4
launch=("$@")
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# run NAME NP ARGS...: the command under the launcher with a timeout; NAME.out, NAME.err, NAME.rc
run() {
  local name=$1 np=$2
  shift 2
  timeout 120 "${launch[@]}" "$np" "$spx" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.rc"
}

# verified NAME NP: exit 0, "verified: yes", and NP lines in the per-rank table
verified() {
  local name=$1 np=$2 rc
  rc=$(cat "$tmp/$name.rc")
  [ "$rc" = 0 ] && grep -q '^verified: yes$' "$tmp/$name.out" && ok ||
    { bad "$name: exit $rc"; cat "$tmp/$name.out" "$tmp/$name.err" >&2; }
  [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ ' "$tmp/$name.out")" = "$np" ] && ok || bad "$name: the table has not $np rank lines"
}

# fails_alike NAME NP: exit 2 (no timeout) and every rank printed the same one error line
fails_alike() {
  local name=$1 np=$2 rc
  rc=$(cat "$tmp/$name.rc")
  [ "$rc" = 2 ] && ok || bad "$name: exit $rc, not 2 (124: a rank hung)"
  grep '^error: ' "$tmp/$name.err" | sort | uniq -c >"$tmp/$name.uniq"
  [ "$(wc -l <"$tmp/$name.uniq")" = 1 ] && [ "$(awk '{print $1}' "$tmp/$name.uniq")" = "$np" ] && ok ||
    { bad "$name: not one error line printed by each of the $np ranks:"; cat "$tmp/$name.err" >&2; }
}

counts="1 2 3 4"
[ "$mode" = quick ] && counts="1 3"
for np in $counts; do
  model=--no-model # the bandwidth and link measurements once (np = 3): they take seconds under ASan
  [ "$np" = 3 ] && model=
  run spmv_gen$np $np spmv gen:poisson3d:n=16 --distributed --reps 5 $model
  verified spmv_gen$np $np
  run solve_gen$np $np solve gen:poisson3d:n=10,laplace=1 --distributed
  verified solve_gen$np $np
done
grep -q '^model ' "$tmp/spmv_gen3.out" && ok || bad "spmv_gen3: no model line"
if [ "$mode" != quick ]; then
  run spmv_shared 3 spmv "$shared/bcsstk15.mtx.gz" --distributed --reps 5 --no-model
  verified spmv_shared 3
  run solve_jacobi 2 solve "$shared/bcsstk15.mtx.gz" --distributed --precond jacobi --maxit 2000
  verified solve_jacobi 2
fi
run bicgstab 3 solve "$shared/cage10.mtx.gz" --distributed --method bicgstab
verified bicgstab 3
for np in 2 4; do
  run malformed$np $np spmv "$data/bad/row_index_out_of_range.mtx" --distributed
  fails_alike malformed$np $np
  grep -q 'row_index_out_of_range.mtx:[0-9]*: row index' "$tmp/malformed$np.err" && ok || bad "malformed$np: not the reader's message"
done
run missing 3 solve "$tmp/no_such.mtx" --distributed
fails_alike missing 3
run rectangular 2 solve gen:uniform:m=40,n=30,k=3 --distributed
fails_alike rectangular 2
run metis 3 spmv gen:poisson3d:n=16 --distributed --reps 5 --no-model --partition metis
if grep -q 'partition metis: not built' "$tmp/metis.err"; then
  echo "skipped: --partition metis: $(grep -m1 '^error: ' "$tmp/metis.err")"
  fails_alike metis 3
else
  verified metis 3
  grep -q 'METIS parts' "$tmp/metis.out" && ok || bad "metis: the report does not name the partition"
fi
run partition_bad 2 spmv gen:poisson3d:n=8 --distributed --partition zigzag
fails_alike partition_bad 2
grep -q "partition 'zigzag': not a partition (rows or metis)" "$tmp/partition_bad.err" && ok || bad "partition_bad: not the message"
run transport_host 2 spmv gen:poisson3d:n=8 --distributed --reps 3 --no-model --transport mpi-host
verified transport_host 2
run transport_device 2 spmv gen:poisson3d:n=8 --distributed --backend cpu --transport mpi-device # a CPU matrix: refused
fails_alike transport_device 2
grep -q "transport mpi-device: the matrix runs on the CPU" "$tmp/transport_device.err" && ok || bad "transport_device: not the message"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
