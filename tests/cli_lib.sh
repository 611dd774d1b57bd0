# tests/cli_lib.sh: what the CLI test scripts share (sourced, not a test): a scratch folder
# $tmp removed on exit, the pass/fail counters and the checks that count into them.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

ok()   { pass=$((pass+1)); }
bad()  { fail=$((fail+1)); echo "FAIL: $*" >&2; }

# expect CODE CMD...: runs CMD, checks its exit code; stdout/stderr kept in $tmp/out, $tmp/err
expect() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "exit $got (want $want): $*"; sed 's/^/  /' "$tmp/err" >&2; fi
}
# one_error_line: stderr is exactly one line starting with "error: "
one_error_line() {
  if [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^error: ' "$tmp/err"; then ok; else bad "stderr not one error line: $(cat "$tmp/err")"; fi
}
json_ok() { if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; then ok; else bad "JSON does not parse: $1"; fi; }
json_eq() { # json_eq FILE PYEXPR: PYEXPR over d (the parsed JSON) must be true
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" 2>/dev/null; then ok; else bad "JSON check failed: $2 on $1"; fi
}
# report: prints the counts; its status is the script's verdict
report() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }
