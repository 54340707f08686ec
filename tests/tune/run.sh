#!/usr/bin/env bash
# tests/tune/run.sh: break-even sizes learned on the machine (src/api/tune.rs), seen from outside:
# a C program (calls.c) preloaded with hetla makes dgetrf_ calls of order 1000 (between a quarter
# and four times the built-in break-even of 1536) on one input with HETLA_VERBOSE=1. The learner
# decides a class before its first call is answered, by trials on copies of the call's arrays
# (verbose lines `hetla: trial dgetrf ...`); every call of the caller then takes one way and
# returns the same bits (calls.c checks them against the first call's).
#   1. fresh cache folder: trials three on tiles, then three forwarded (reason=probe); where the
#      two ways are within 25% of each other, up to four more; all sixteen calls take one way,
#      with identical bits, and one cache file is written;
#   2. a second process with that folder: no trial, the same way and the same bits as the first;
#   3. HETLA_CACHE_DIR=off: the built-in size decides (reason=small), nothing is written;
#   4. order 300 (below the band): forwarded with reason=small, no trial;
#   5. with an emulated accelerator (HETLA_EMULATE_GPUS=1) and HETLA_SOLVER=off, fresh cache: three
#      ways, trials three on tiles, three on the host alone (devices=off(probe)), three forwarded,
#      (then more where two ways are close); all twenty calls take one way, identical bits;
#   6. the same with the device's solver (HETLA_SOLVER unset): four ways, trials on tiles, on the
#      host alone, whole on the device (path=solver) and forwarded; all calls take one way.
# Every call's result passes the residual check. Prints [PASS]/[FAIL] lines and a count.
set -uo pipefail
cd "$(dirname "$0")/../.."
passed=0
failed=0
pass() { echo "[PASS] tune $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] tune $1: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && tail -n 20 "$3" | sed 's/^/    | /'
    failed=$((failed + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib=$PWD/target/release/libhetla.so
gcc -std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Iffi-tests -rdynamic -pthread -Wl,--no-as-needed \
    tests/tune/calls.c -o "$tmp/calls" -llapack -ldl -lm >"$tmp/cc.log" 2>&1 || fail build "does not compile" "$tmp/cc.log"

# run NAME N CALLS ENV...: the ways of the learner's trials, one word each (probe, host, solver,
# tiles), in $tmp/NAME.trials; the ways the program's own calls took (forward, host, solver,
# tiles), in $tmp/NAME.paths; calls.c's checksum of the first call's bits in $tmp/NAME.bits.
run() {
    local name=$1 n=$2 calls=$3
    shift 3
    env -u HETLA_MIN_N LD_PRELOAD="$lib" HETLA_VERBOSE=1 HETLA_NB=128 "$@" timeout 300 "$tmp/calls" "$n" "$calls" \
        >"$tmp/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || fail "$name" "exit status $rc" "$tmp/$name.log"
    words() {
        sed -e 's/.*reason=probe.*/probe/' -e 's/.*path=forward.*/forward/' -e 's/.*devices=off(.*/host/' \
            -e 's/.*path=solver.*/solver/' -e 's/.*path=tiles.*/tiles/' | tr '\n' ' '
    }
    grep '^hetla: trial dgetrf ' "$tmp/$name.log" | words >"$tmp/$name.trials"
    grep '^hetla: dgetrf ' "$tmp/$name.log" | words >"$tmp/$name.paths"
    sed -n 's/^bits=//p' "$tmp/$name.log" >"$tmp/$name.bits"
}

# same WORD N: N times WORD, space-separated with a trailing space (a .paths file's form).
same() { printf "$1 %.0s" $(seq "$2"); }

cache=$tmp/cache
run first 1000 16 HETLA_CACHE_DIR="$cache"
t=$(cat "$tmp/first.trials")
p=$(cat "$tmp/first.paths")
read -r -a w <<<"$p"
last=${w[0]:-none}
read -r -a tw <<<"$t"
if [[ $t == "tiles tiles tiles probe probe probe "* ]] && [ "${#tw[@]}" -le 10 ] &&
    [ "$p" = "$(same "$last" 16)" ] && [ "$last" != probe ] && grep -q '^PASS tune' "$tmp/first.log"; then
    pass "fresh cache: trials $t- then every call $last, the same bits"
else
    fail "fresh cache" "trials: $t; calls: $p" "$tmp/first.log"
fi
nfiles=$(find "$cache" -type f 2>/dev/null | wc -l)
if [ "$nfiles" -eq 1 ]; then pass "one cache file written"; else fail "cache file" "$nfiles files in the cache folder"; fi

run second 1000 2 HETLA_CACHE_DIR="$cache"
if [ "$(cat "$tmp/second.paths")" = "$last $last " ] && [ ! -s "$tmp/second.trials" ] &&
    [ -s "$tmp/first.bits" ] && cmp -s "$tmp/first.bits" "$tmp/second.bits"; then
    pass "a second process starts from the cache ($last, no trial, the first process's bits)"
else
    fail "second process" "paths: $(cat "$tmp/second.paths"), trials: $(cat "$tmp/second.trials"), bits $(cat "$tmp/first.bits") / $(cat "$tmp/second.bits")" "$tmp/second.log"
fi

run off 1000 2 HETLA_CACHE_DIR=off HOME="$tmp/home"
if [ "$(cat "$tmp/off.paths")" = "forward forward " ] && grep -q 'reason=small' "$tmp/off.log" && [ ! -e "$tmp/home" ]; then
    pass "HETLA_CACHE_DIR=off: built-in size, reason=small, nothing written"
else
    fail "off" "paths: $(cat "$tmp/off.paths")" "$tmp/off.log"
fi

run small 300 2 HETLA_CACHE_DIR="$tmp/cache2"
if [ "$(cat "$tmp/small.paths")" = "forward forward " ] && grep -q 'reason=small' "$tmp/small.log" &&
    [ ! -s "$tmp/small.trials" ]; then
    pass "below the band: reason=small, no probe"
else
    fail "small" "paths: $(cat "$tmp/small.paths")" "$tmp/small.log"
fi

run devices 1000 20 HETLA_CACHE_DIR="$tmp/cache3" HETLA_EMULATE_GPUS=1 HETLA_SOLVER=off
t=$(cat "$tmp/devices.trials")
p=$(cat "$tmp/devices.paths")
read -r -a w <<<"$p"
last=${w[0]:-none}
if [[ $t == "tiles tiles tiles host host host probe probe probe "* ]] && [ "$p" = "$(same "$last" 20)" ] &&
    grep -q '^PASS tune' "$tmp/devices.log" &&
    { [ "$last" != host ] || grep -q 'devices=off(learned)' "$tmp/devices.log"; }; then
    pass "with a device: trials $t- then every call $last, the same bits"
else
    fail "devices" "trials: $t; calls: $p" "$tmp/devices.log"
fi

run solver 1000 24 HETLA_CACHE_DIR="$tmp/cache4" HETLA_EMULATE_GPUS=1
t=$(cat "$tmp/solver.trials")
p=$(cat "$tmp/solver.paths")
read -r -a w <<<"$p"
last=${w[0]:-none}
if [[ $t == "tiles tiles tiles host host host solver solver solver probe probe probe "* ]] &&
    [ "$p" = "$(same "$last" 24)" ] && grep -q '^PASS tune' "$tmp/solver.log" &&
    grep -q '^hetla: trial dgetrf .*path=solver dev=emu0' "$tmp/solver.log"; then
    pass "with a device's solver: trials $t- then every call $last, the same bits"
else
    fail "solver" "trials: $t; calls: $p" "$tmp/solver.log"
fi
echo "tune: $passed passed, $failed failed"
[ $failed -eq 0 ]
