#!/usr/bin/env bash
# tests/sim.sh: hetla-sim end to end (its scheduling rules are unit-tested in src/sim/).
#   calibrate      writes a machine file that loads back and has every kernel table (the QR's
#                  too) and the message costs
#   predict        dpotrf, dgetrf (GEPP and CALU), dgeqrf, pdpotrf, pdgetrf and pdgeqrf from that file and from the shipped machine
#                  files print their line with a positive time, dpotrf with --emulated-gpus on the
#                  library's hybrid tiles, and --trace writes one event per task
#   refuse         a routine that is not simulated, --gpus on a machine without GPU rates, and
#                  --emulated-gpus for a distributed routine are refused with exit status 2
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
for k in (\"gemm\", \"syrk\", \"trsm\", \"potrf\", \"gemm_tall\", \"trsm_tall\", \"geqrf\", \"geqrf_tall\",
          \"larfb\", \"larfb_tall\", \"qr-vtc\", \"qr-vtc_tall\", \"qr-tw\", \"qr-vw\", \"bt-getrf\", \"bt-getrs\"):
    assert len(m[\"host\"][k]) > 0 and all(r > 0 for _, r in m[\"host\"][k]), k
assert m[\"cores\"] > 0 and m[\"task_overhead_s\"] > 0
assert m[\"send_copies\"] > 0 and m[\"recv_copies\"] > 0
'"
for args in "dpotrf --n 2000 --machine $T/m.json" "dgeqrf --n 1500 --machine $T/m.json" "dgetrf --n 2000 --machine $T/m.json" \
    "dgetrf --n 2000 --lu calu --machine $T/m.json" "dgetrf --n 3000 --cores 2 --emulated-gpus 2 --machine $T/m.json" \
    "pdgetrf --n 2000 --grid 1x2 --user-nb 64 --cores 1 --machine $T/m.json" "pdgetrf --n 2000 --grid 2x2 --nb 100 --user-nb 100 --lu calu --machine $T/m.json" "pdpotrf --n 2000 --grid 2x2 --user-nb 64 --cores 1 --machine $T/m.json" \
    "pdgeqrf --n 2000 --grid 1x2 --user-nb 64 --cores 1 --machine $T/m.json" "pdgeqrf --n 2000 --grid 3x3 --nb 100 --user-nb 100 --machine $T/m.json" \
    "dpotrf --n 20000 --machine sim/machines/keeneland.json" "pdpotrf --n 30000 --grid 2x3 --nb 1000 --machine sim/machines/h100-node.json --comm-thread" \
    "pdgeqrf --n 20000 --grid 2x2 --nb 1000 --user-nb 1000 --machine sim/machines/keeneland.json" \
    "dbttrf --n 512 --m 64 --machine $T/m.json" "dbttrf --n 64 --m 256 --method cyclic --cores 2 --machine $T/m.json"; do
    check "predict: $args" bash -c "$SIM $args > $T/line && cat $T/line && t=\$(sed -n 's/.*predicted_time=\([0-9.e+-]*\) s.*/\1/p' $T/line) && [ -n \"\$t\" ] && awk -v t=\"\$t\" 'BEGIN { exit !(t > 0) }'"
done
check "trace: one event per task" bash -c "$SIM dpotrf --n 1500 --nb 100 --cores 2 --machine $T/m.json --trace $T/t.json > $T/line && python3 -c '
import json, re
ev = json.load(open(\"$T/t.json\"))[\"traceEvents\"]
n = int(re.search(r\"tasks=(\d+)\", open(\"$T/line\").read()).group(1))
# 15 tile columns, stacks of 8 tile rows on 2 cores (algo::potrf::Granularity::on_host): per step
# one POTRF, the TRSM stacks below it, and per later column one SYRK and its GEMM stacks.
nt, st = 15, 8
up = lambda r: -(-r // st)
want = sum(1 + up(nt - k - 1) + sum(1 + up(nt - j - 1) for j in range(k + 1, nt)) for k in range(nt))
assert len(ev) == n == want, (len(ev), n, want)
'"
check "emulated: dpotrf on the library's hybrid tiles, both devices" bash -c "$SIM dpotrf --n 3000 --cores 2 --emulated-gpus 2 --machine $T/m.json --trace $T/e.json > $T/line && cat $T/line && grep -q ' gpus=2 emulated cost_model=[a-z]* tiles=B512/b256x1 ' $T/line && python3 -c '
import json
ev = json.load(open(\"$T/e.json\"))[\"traceEvents\"]
assert {e[\"tid\"] for e in ev} >= {2, 3}, \"both emulated devices run tasks\"
'"
check "trace: dbttrf twisted, one event per task" bash -c "$SIM dbttrf --n 512 --m 64 --method twisted --machine $T/m.json --trace $T/bt.json > $T/line && cat $T/line && python3 -c '
import json, re
ev = json.load(open(\"$T/bt.json\"))[\"traceEvents\"]
n = int(re.search(r\"tasks=(\d+)\", open(\"$T/line\").read()).group(1))
# one LU per block row, one solve and one GEMM per elimination (511 of them, one neighbour each)
assert len(ev) == n == 512 + 2 * 511, (len(ev), n)
'"
check "refuse: dbttrf without --m" bash -c "$SIM dbttrf --n 64 --machine $T/m.json; [ \$? -eq 2 ]"
check "refuse: --emulated-gpus for pdpotrf" bash -c "$SIM pdpotrf --n 1000 --grid 1x2 --emulated-gpus 2 --machine $T/m.json; [ \$? -eq 2 ]"
check "refuse: dpotrs is not simulated" bash -c "$SIM dpotrs --n 100 --machine $T/m.json; [ \$? -eq 2 ]"
check "refuse: --lu other than gepp or calu" bash -c "$SIM dgetrf --n 100 --lu tslu --machine $T/m.json; [ \$? -eq 2 ]"
check "refuse: --gpus without GPU rates" bash -c "$SIM dpotrf --n 100 --gpus 1 --machine $T/m.json; [ \$? -eq 2 ]"
echo "sim: $passed passed, $failed failed"
[ $failed -eq 0 ]
