#!/usr/bin/env bash
# tests/sim.sh: hetla-sim end to end (its scheduling rules are unit-tested in src/sim/).
#   calibrate      writes a machine file that loads back and has every kernel table
#   predict        dpotrf, dgeqrf and pdpotrf from that file and from the shipped machine files print
#                  their line with a positive time, and --trace writes one event per task
#   refuse         a routine that is not simulated, and --gpus on a machine without GPU rates,
#                  are refused with exit status 2
# Prints [PASS]/[FAIL] lines and `sim: N passed, M failed`. Needs `cargo build --release` first.
set -uo pipefail
cd "$(dirname "$0")/.."
SIM=target/release/hetla-sim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
check() { # NAME COMMAND...: passes when the command succeeds
    local name=$1
    shift
    if "$@" >"$T/out" 2>&1; then
        echo "[PASS] sim $name"
        passed=$((passed + 1))
    else
        echo "[FAIL] sim $name"
        sed 's/^/    | /' "$T/out" | head -n 20
        failed=$((failed + 1))
    fi
}

check calibrate bash -c "$SIM calibrate --out $T/m.json && python3 -c '
import json, sys
m = json.load(open(\"$T/m.json\"))
for k in (\"gemm\", \"syrk\", \"trsm\", \"potrf\", \"gemm_tall\", \"trsm_tall\"):
    assert len(m[\"host\"][k]) > 0 and all(r > 0 for _, r in m[\"host\"][k]), k
assert m[\"cores\"] > 0 and m[\"task_overhead_s\"] > 0
'"
for args in "dpotrf --n 2000 --machine $T/m.json" "dgeqrf --n 1500 --machine $T/m.json" "pdpotrf --n 2000 --grid 2x2 --user-nb 64 --cores 1 --machine $T/m.json" \
    "dpotrf --n 20000 --machine sim/machines/keeneland.json" "pdpotrf --n 30000 --grid 2x3 --nb 1000 --machine sim/machines/h100-node.json --comm-thread"; do
    check "predict: $args" bash -c "$SIM $args > $T/line && cat $T/line && t=\$(sed -n 's/.*predicted_time=\([0-9.e+-]*\) s.*/\1/p' $T/line) && [ -n \"\$t\" ] && awk -v t=\"\$t\" 'BEGIN { exit !(t > 0) }'"
done
check "trace: one event per task" bash -c "$SIM dpotrf --n 1500 --nb 100 --machine $T/m.json --trace $T/t.json > $T/line && python3 -c '
import json, re
ev = json.load(open(\"$T/t.json\"))[\"traceEvents\"]
n = int(re.search(r\"tasks=(\d+)\", open(\"$T/line\").read()).group(1))
assert len(ev) == n == 15 * 16 * 17 // 6, (len(ev), n)
'"
check "refuse: dgetrf is not simulated" bash -c "$SIM dgetrf --n 100 --machine $T/m.json; [ \$? -eq 2 ]"
check "refuse: --gpus without GPU rates" bash -c "$SIM dpotrf --n 100 --gpus 1 --machine $T/m.json; [ \$? -eq 2 ]"
echo "sim: $passed passed, $failed failed"
[ $failed -eq 0 ]
