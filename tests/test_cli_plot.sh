#!/usr/bin/env bash
# tests/test_cli_plot.sh: the CLI's pictures, each SVG parsed: `spx spy` (one square per
# nonzero on small matrices, a bounded number of cells on large, tall and shared ones, the
# same bytes twice) and `spx bench --plot` (a bar per verified result, a roofline mark per
# matrix); bad input exits 2 with one error line and leaves no file. Needs python3 (exit 77,
# a skip, without it). Usage: test_cli_plot.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1; data=$2; shared=$3
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found (the SVG checks parse with it)"; exit 77; }
. "$(dirname "$0")/cli_lib.sh"

# svg_eq FILE PYEXPR: FILE parses as XML and PYEXPR is true over: r (the root), marks(cls)
# (the <rect>s inside <g class=cls>), bars (<rect class="bar">), refs (<line class="ref">),
# text (every <text> joined by spaces), size (bytes), json(PATH) (a parsed JSON file)
svg_eq() {
  if python3 - "$1" "$2" 2>"$tmp/pyerr" <<'EOF'; then ok; else bad "SVG check failed: $2 on $1 $(cat "$tmp/pyerr")"; fi
import json as J, os, sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
def marks(cls): return len(r.findall('.//%sg[@class="%s"]/%srect' % (ns, cls, ns)))
def json(path): return J.load(open(path))
bars = len(r.findall('.//%srect[@class="bar"]' % ns))
refs = len(r.findall('.//%sline[@class="ref"]' % ns))
text = ' '.join(t.text or '' for t in r.iter(ns + 'text'))
size = os.path.getsize(sys.argv[1])
sys.exit(0 if r.tag == ns + 'svg' and eval(sys.argv[2]) else 1)
EOF
}
# no_temporaries: nothing named *.tmp.* is left in $tmp
no_temporaries() { if ls "$tmp" | grep -q '\.tmp\.'; then bad "temporary file left: $(ls "$tmp")"; else ok; fi; }
# nnz_of SRC: the matrix's nonzeros, as `spx info` counts them
nnz_of() { "$spx" info "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["nnz"])'; }

# spy, small: one square per nonzero, exactly
nnz=$(nnz_of gen:poisson2d:n=4)
expect 0 "$spx" spy gen:poisson2d:n=4 -o "$tmp/p4.svg"
svg_eq "$tmp/p4.svg" "marks('nonzeros') == $nnz and marks('cells') == 0 and '16 x 16, $nnz nonzeros' in text"
nnz=$(nnz_of "$shared/karate.mtx.gz")
expect 0 "$spx" spy "$shared/karate.mtx.gz" -o "$tmp/karate.svg"
svg_eq "$tmp/karate.svg" "marks('nonzeros') == $nnz == 156"

# spy, large: cells, at most bins x bins marks whatever nnz, the file small
expect 0 "$spx" spy gen:poisson2d:n=300 -o "$tmp/p300.svg"
svg_eq "$tmp/p300.svg" "0 < marks('cells') <= 256 * 256 and marks('nonzeros') == 0 and size < 4e6"
expect 0 "$spx" spy gen:uniform:m=200000,k=8 -o "$tmp/u.svg" --bins 40
svg_eq "$tmp/u.svg" "0 < marks('cells') <= 40 * 40 and 'nonzeros per cell' in text"
expect 0 "$spx" spy gen:tall:m=100000,n=1000,k=2 -o "$tmp/tall.svg" # cells across: 256 / 4
svg_eq "$tmp/tall.svg" "0 < marks('cells') <= 256 * 64 and float(r.get('height')) > float(r.get('width'))"
expect 0 "$spx" spy "$shared/bcsstk09.mtx.gz" -o "$tmp/bcsstk09.svg" --bins 100
svg_eq "$tmp/bcsstk09.svg" "0 < marks('cells') <= 100 * 100 and 'bcsstk09' in text"
# the same bytes every time
expect 0 "$spx" spy "$shared/bcsstk09.mtx.gz" -o "$tmp/bcsstk09b.svg" --bins 100
cmp -s "$tmp/bcsstk09.svg" "$tmp/bcsstk09b.svg" && ok || bad "spy wrote different bytes for the same input"

# spy, bad input: exit 2, one error line, no file
expect 2 "$spx" spy "$tmp/none.mtx" -o "$tmp/x1.svg";                       one_error_line
expect 2 "$spx" spy gen:poisson2d:n=4 -o "$tmp/no/such/dir/x2.svg";         one_error_line
for b in 0 -3 abc 5000 ""; do
  expect 2 "$spx" spy gen:poisson2d:n=4 -o "$tmp/x3.svg" --bins "$b";      one_error_line
done
expect 2 "$spx" spy gen:poisson2d:n=4;                                      one_error_line
expect 2 "$spx" spy gen:poisson2d:n=4 -o "$tmp";                            one_error_line
expect 2 "$spx" spy gen:nosuch:n=3 -o "$tmp/x4.svg";                        one_error_line
for f in "$data"/bad/*.mtx; do
  expect 2 "$spx" spy "$f" -o "$tmp/x5.svg";                                one_error_line
  break # one malformed file is enough here: test_cli.sh runs them all
done
for x in x1 x2 x3 x4 x5; do [ ! -e "$tmp/$x.svg" ] && ok || bad "$x.svg written by a refused spy"; done
no_temporaries

# bench --plot: a bar per verified result, a roofline mark per matrix (the CPU run measures the
# host bandwidth), the legend says which
expect 0 "$spx" bench gen:poisson2d:n=40 gen:uniform:m=2000,k=4 --backend cpu --reps 2 \
  --json "$tmp/b.json" --plot "$tmp/b.svg"
svg_eq "$tmp/b.svg" "bars == sum(1 for x in json('$tmp/b.json')['results'] if x['verified'] == 1) > 0"
svg_eq "$tmp/b.svg" "refs == 2 + 1 and 'roofline' in text and 'STREAM' in text and 'poisson2d:n=40' in text"
expect 0 "$spx" bench gen:poisson2d:n=20 --formats csr --backend cpu --reps 1 --plot "$tmp/b1.svg"
svg_eq "$tmp/b1.svg" "bars == 1 and refs == 1 + 1"
# bad --plot: refused before anything is measured
expect 2 "$spx" bench gen:poisson2d:n=5 --backend cpu --plot "$tmp/no/such/dir/b.svg"; one_error_line
if [ -s "$tmp/out" ]; then bad "bench measured before refusing its --plot path"; else ok; fi
expect 2 "$spx" bench gen:poisson2d:n=5 --backend cpu --json "$tmp/same" --plot "$tmp/same"; one_error_line
[ ! -e "$tmp/same" ] && ok || bad "refused bench wrote $tmp/same"
expect 2 "$spx" bench --op spgemm gen:poisson2d:n=5 --backend cpu --plot "$tmp/g.svg"; one_error_line
no_temporaries

report
