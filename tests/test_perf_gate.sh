#!/usr/bin/env bash
# tests/test_perf_gate.sh: the performance gate without a GPU: `spx bench`'s demonstration
# switch SPX_BENCH_DEMO_SLOWDOWN on the CPU (verified results, the DEMONSTRATION line, bad
# values exit 2 with one error line), and scripts/perf_gate.py's record and check on made-up
# runs: the same ratios pass, auto 20 % slower fails, a spread recorded wide enough passes it,
# an unverified or missing result fails, a matrix without a baseline is not gated, demo runs
# are refused as a baseline, runs of two devices are refused. The gate itself runs on the GPU
# machine (scripts/gpu-check.sh OUT gate).
# Usage: test_perf_gate.sh SPX_BINARY TEST_DATA_DIR SHARED_MATRICES_DIR
set -u
spx=$1
. "$(dirname "$0")/cli_lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

has() { if grep -q "$1" "$tmp/out"; then ok; else bad "no '$1' in: $(cat "$tmp/out")"; fi; }

# the switch: every result still verified (the extra SpMV writes its own y), the run says so
SPX_BENCH_DEMO_SLOWDOWN=0.2 expect 0 "$spx" bench gen:poisson2d:n=40 gen:rmat:scale=8,ef=4 gen:wide:m=4,n=3000,k=300 \
  --backend cpu --formats csr,hbp,teb --reps 3 --json "$tmp/demo.json"
has '^DEMONSTRATION (SPX_BENCH_DEMO_SLOWDOWN=0.2)'
json_eq "$tmp/demo.json" 'len(d["results"]) == 9 and all(r["verified"] == 1 and r["status"] == "SPX_OK" for r in d["results"])'
for v in 0 -0.2 1.5 abc 0.2x nan; do
  SPX_BENCH_DEMO_SLOWDOWN=$v expect 2 "$spx" bench gen:poisson2d:n=20 --backend cpu --formats csr --reps 2
  one_error_line
done

# made-up gate runs: ALG1 and auto batch times per matrix, auto slowed by SLOW on some matrices
cat >"$tmp/suite.txt" <<'EOF'
# a three-matrix gate suite
gen:a
gen:b
gen:c
EOF
mkrun() { # mkrun FILE DEVICE RUN SLOW [auto status] [demo]: ALG1 1.0/2.0/3.0 ms, auto 1.5x faster x SLOW
  python3 - "$@" <<'EOF'
import json, sys
path, dev, k, slow = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
status = sys.argv[5] if len(sys.argv) > 5 else "SPX_OK"
demo = float(sys.argv[6]) if len(sys.argv) > 6 else 0
jitter = [1.0, 1.01, 0.99][k % 3]  # run-to-run noise: 1 % either way
res = []
for i, m in enumerate(["gen:a", "gen:b", "gen:c", "gen:extra"]):
    base = (i + 1) * 1e-3
    auto = base / 1.5 * jitter * (slow if m != "gen:c" else 1.0)
    res.append({"matrix": m, "format": "cusparse", "algo": "alg1", "requested_format": "cusparse",
                "status": "SPX_OK", "verified": 1, "t_batch_s": base})
    res.append({"matrix": m, "format": "csr", "algo": "stream", "requested_format": "auto",
                "status": status if m == "gen:b" else "SPX_OK", "verified": 1, "t_batch_s": auto})
d = {"env": {"date": "2026-12-01T00:00:00Z", "git_commit": "test", "device": {"name": dev}}, "results": res}
if demo:
    d["gate"] = {"run": k, "demo_slowdown": demo}
json.dump(d, open(path, "w"))
EOF
}
gate=("python3" "$repo/scripts/perf_gate.py")
for k in 1 2 3; do mkrun "$tmp/base-$k.json" "NVIDIA H100 80GB HBM3" "$k" 1.0; done
expect 0 "${gate[@]}" record "$tmp"/base-{1,2,3}.json --suite "$tmp/suite.txt" --out "$tmp/baseline.json" --provisional "test"
json_eq "$tmp/baseline.json" 'd["device_kind"] == "nvidia-h100" and sorted(d["matrices"]) == ["gen:a", "gen:b", "gen:c"]'
json_eq "$tmp/baseline.json" 'abs(d["matrices"]["gen:a"]["ratio"] - 1.5) < 1e-3 and d["matrices"]["gen:a"]["runs"] == 3'
json_eq "$tmp/baseline.json" 'abs(d["matrices"]["gen:a"]["spread"] - 0.0202) < 1e-3'

# the same ratios (other runs of the same noise): pass
for k in 4 5 6; do mkrun "$tmp/now-$k.json" "NVIDIA H100 80GB HBM3" "$k" 1.0; done
expect 0 "${gate[@]}" check "$tmp"/now-{4,5,6}.json --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json" --summary "$tmp/sum.json"
has '^gate: PASS (3 matrices gated)$'
json_eq "$tmp/sum.json" 'd["verdict"].startswith("PASS") and len(d["rows"]) == 3'

# auto 20 % slower on gen:a and gen:b (gen:c untouched): both fail, gen:c passes
for k in 4 5 6; do mkrun "$tmp/slow-$k.json" "NVIDIA H100 80GB HBM3" "$k" 1.2; done
expect 1 "${gate[@]}" check "$tmp"/slow-{4,5,6}.json --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json"
has '^gate: FAIL (2 of 3 matrices: gen:a, gen:b)$'
has '^| gen:c | 1.500x .* | ok |$'
# 5 % slower stays inside 10 % + spread
for k in 4 5 6; do mkrun "$tmp/bit-$k.json" "NVIDIA H100 80GB HBM3" "$k" 1.05; done
expect 0 "${gate[@]}" check "$tmp"/bit-{4,5,6}.json --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json"
# --against: the slowed runs against the normal ones of the same stage
expect 1 "${gate[@]}" check "$tmp"/slow-{4,5,6}.json --suite "$tmp/suite.txt" --against "$tmp"/now-{4,5,6}.json
has '^gate: FAIL (2 of 3 matrices'
# a recorded spread wider than the drop lets it pass (noise the baseline measured)
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for m in d['matrices'].values(): m['spread'] = 0.2
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/baseline.json" "$tmp/wide.json"
expect 0 "${gate[@]}" check "$tmp"/slow-{4,5,6}.json --suite "$tmp/suite.txt" --baseline "$tmp/wide.json"

# an auto that failed in one run fails its matrix; a matrix without a baseline is not gated
mkrun "$tmp/failed-4.json" "NVIDIA H100 80GB HBM3" 4 1.0 SPX_ERR_CUDA
expect 1 "${gate[@]}" check "$tmp/failed-4.json" "$tmp/now-5.json" --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json"
has '^| gen:b | .* | FAIL: failed-4.json: auto SPX_ERR_CUDA |$'
printf 'gen:a\ngen:extra\n' >"$tmp/suite2.txt"
expect 0 "${gate[@]}" check "$tmp"/now-{4,5}.json --suite "$tmp/suite2.txt" --baseline "$tmp/baseline.json"
has '^gate: PASS (1 matrices gated, 1 without a baseline)$'
printf 'gen:a\ngen:missing\n' >"$tmp/suite3.txt"
expect 1 "${gate[@]}" check "$tmp"/now-{4,5}.json --suite "$tmp/suite3.txt" --baseline "$tmp/baseline.json"
has '^| gen:missing | .* | FAIL: not measured in every run |$'
# no baseline for the device kind: said, nothing gated
mkrun "$tmp/other.json" "Some GPU" 1 1.0
expect 0 "${gate[@]}" check "$tmp/other.json" --suite "$tmp/suite.txt"
has '^gate: no baseline for some-gpu'

# `run` end to end with a stand-in for spx bench (made-up runs; auto 20 % slower when the
# demonstration switch is set, as the real one makes it): passes, then fails, runs tagged
declare -f mkrun >"$tmp/mkrun.sh"
cat >"$tmp/fake-spx" <<EOF
#!/usr/bin/env bash
json=; k=\$(ls "$tmp"/fakeout*/gate-run-*.json 2>/dev/null | wc -l)
while [ \$# -gt 0 ]; do [ "\$1" = --json ] && json=\$2; shift; done
echo "fake spx bench"
. "$tmp/mkrun.sh"
mkrun "\$json" "NVIDIA H100 80GB HBM3" "\$((k + 4))" "\$([ -n "\${SPX_BENCH_DEMO_SLOWDOWN:-}" ] && echo 1.2 || echo 1.0)"
EOF
chmod +x "$tmp/fake-spx"
expect 0 "${gate[@]}" run --spx "$tmp/fake-spx" --out "$tmp/fakeout1" --runs 3 --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json"
has '^gate: run 3 of 3 done'
has '^gate: PASS (3 matrices gated)$'
json_eq "$tmp/fakeout1/gate-run-2.json" 'd["gate"]["run"] == 2 and d["gate"]["demo_slowdown"] == 0'
json_eq "$tmp/fakeout1/gate.json" 'd["verdict"].startswith("PASS") and len(d["runs"]) == 3'
SPX_BENCH_DEMO_SLOWDOWN=0.2 expect 1 "${gate[@]}" run --spx "$tmp/fake-spx" --out "$tmp/fakeout2" --runs 3 \
  --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json"
has '^gate: DEMONSTRATION runs (SPX_BENCH_DEMO_SLOWDOWN=0.2)'
has '^gate: FAIL (2 of 3 matrices: gen:a, gen:b)$'
expect 2 "${gate[@]}" record "$tmp"/fakeout2/gate-run-*.json --suite "$tmp/suite.txt" --out "$tmp/x.json"
expect 2 "${gate[@]}" run --spx "$tmp/fake-spx" --out "$tmp/fakeout3" --runs 1 --suite "$tmp/suite.txt"
expect 2 "${gate[@]}" run --spx /nonexistent/spx --out "$tmp/fakeout4" --runs 2 --suite "$tmp/suite.txt"

# refused: demonstration runs as a baseline, runs of two devices, a file that is not a run
mkrun "$tmp/demo-1.json" "NVIDIA H100 80GB HBM3" 1 1.2 SPX_OK 0.2
expect 2 "${gate[@]}" record "$tmp/demo-1.json" "$tmp/base-2.json" --suite "$tmp/suite.txt" --out "$tmp/x.json"
grep -q 'not a measurement' "$tmp/err" && ok || bad "demo run not refused: $(cat "$tmp/err")"
mkrun "$tmp/h200.json" "NVIDIA H200" 1 1.0
expect 2 "${gate[@]}" check "$tmp/h200.json" "$tmp/now-4.json" --suite "$tmp/suite.txt" --baseline "$tmp/baseline.json"
echo '{"results": 3}' >"$tmp/junk.json"
expect 2 "${gate[@]}" check "$tmp/junk.json" --suite "$tmp/suite.txt"

# the committed baselines parse and cover only gate-suite matrices
for b in "$repo"/bench/gate/baseline-*.json; do
  json_eq "$b" "d['device_kind'] in ('nvidia-h100', 'nvidia-h200') and d['matrices'] and all(m['ratio'] > 0 and m['runs'] >= 1 for m in d['matrices'].values())"
done
report
