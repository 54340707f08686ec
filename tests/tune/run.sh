#!/usr/bin/env bash
# tests/tune/run.sh: break-even sizes learned from the caller's own calls (src/api/tune.rs), seen
# from outside: a C program (calls.c) preloaded with hetla makes dgetrf_ calls of order 1000
# (between a quarter and four times the built-in break-even of 1536) with HETLA_VERBOSE=1.
#   1. fresh cache folder: the first six calls are three on tiles, then three forwarded
#      (reason=probe); where the two paths are within 25% of each other, up to six more trials
#      follow (tiles or probe); the last four of sixteen calls all take one path, and one cache
#      file is written;
#   2. a second process with that folder takes the same path from its first call, no probe;
#   3. HETLA_CACHE_DIR=off: the built-in size decides (reason=small), nothing is written;
#   4. order 300 (below the band): forwarded with reason=small, no probe;
#   5. with an emulated accelerator (HETLA_EMULATE_GPUS=1) and HETLA_SOLVER=off, fresh cache: three
#      ways, nine trials: three on tiles, three on the host alone (devices=off(probe)), three
#      forwarded, then (after more trials where two ways are close) the last four of twenty calls
#      take one way;
#   6. the same with the device's solver (HETLA_SOLVER unset): four ways, twelve trials, the
#      whole call on the device (path=solver) third, and the last four of twenty-four calls take
#      one way.
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

# run NAME N CALLS ENV...: the program's verbose lines' paths, one word per call
# (probe, forward, tiles), in $tmp/NAME.paths.
run() {
    local name=$1 n=$2 calls=$3
    shift 3
    env -u HETLA_MIN_N LD_PRELOAD="$lib" HETLA_VERBOSE=1 HETLA_NB=128 "$@" timeout 300 "$tmp/calls" "$n" "$calls" \
        >"$tmp/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || fail "$name" "exit status $rc" "$tmp/$name.log"
    grep '^hetla: dgetrf ' "$tmp/$name.log" |
        sed -e 's/.*reason=probe.*/probe/' -e 's/.*path=forward.*/forward/' -e 's/.*devices=off(.*/host/' \
            -e 's/.*path=solver.*/solver/' \
            -e 's/.*path=tiles.*/tiles/' |
        tr '\n' ' ' >"$tmp/$name.paths"
}

cache=$tmp/cache
run first 1000 16 HETLA_CACHE_DIR="$cache"
p=$(cat "$tmp/first.paths")
read -r -a w <<<"$p"
last=${w[15]:-none}
trials_only=1
for x in "${w[@]:6:6}"; do
    case $x in tiles | probe | "$last") ;; *) trials_only=0 ;; esac
done
if [ "${#w[@]}" -eq 16 ] && [ "${w[*]:0:6}" = "tiles tiles tiles probe probe probe" ] &&
    [ $trials_only = 1 ] && [ "${w[*]:12}" = "$last $last $last $last" ] && [ "$last" != probe ]; then
    pass "fresh cache: tiles x3, probe x3, then $last (paths: $p)"
else
    fail "fresh cache" "paths: $p" "$tmp/first.log"
fi
nfiles=$(find "$cache" -type f 2>/dev/null | wc -l)
if [ "$nfiles" -eq 1 ]; then pass "one cache file written"; else fail "cache file" "$nfiles files in the cache folder"; fi

run second 1000 2 HETLA_CACHE_DIR="$cache"
if [ "$(cat "$tmp/second.paths")" = "$last $last " ]; then
    pass "a second process starts from the cache ($last, no probe)"
else
    fail "second process" "paths: $(cat "$tmp/second.paths"), expected $last twice" "$tmp/second.log"
fi

run off 1000 2 HETLA_CACHE_DIR=off HOME="$tmp/home"
if [ "$(cat "$tmp/off.paths")" = "forward forward " ] && grep -q 'reason=small' "$tmp/off.log" && [ ! -e "$tmp/home" ]; then
    pass "HETLA_CACHE_DIR=off: built-in size, reason=small, nothing written"
else
    fail "off" "paths: $(cat "$tmp/off.paths")" "$tmp/off.log"
fi

run small 300 2 HETLA_CACHE_DIR="$tmp/cache2"
if [ "$(cat "$tmp/small.paths")" = "forward forward " ] && grep -q 'reason=small' "$tmp/small.log"; then
    pass "below the band: reason=small, no probe"
else
    fail "small" "paths: $(cat "$tmp/small.paths")" "$tmp/small.log"
fi

run devices 1000 20 HETLA_CACHE_DIR="$tmp/cache3" HETLA_EMULATE_GPUS=1 HETLA_SOLVER=off
p=$(cat "$tmp/devices.paths")
read -r -a w <<<"$p"
last=${w[19]:-none}
if [ "${#w[@]}" -eq 20 ] && [ "${w[*]:0:9}" = "tiles tiles tiles host host host probe probe probe" ] &&
    [ "${w[*]:16}" = "$last $last $last $last" ] && [ "$last" != probe ] &&
    { [ "$last" != host ] || grep -q 'devices=off(learned)' "$tmp/devices.log"; }; then
    pass "with a device: tiles x3, host alone x3, probe x3, then $last (paths: $p)"
else
    fail "devices" "paths: $p" "$tmp/devices.log"
fi

run solver 1000 24 HETLA_CACHE_DIR="$tmp/cache4" HETLA_EMULATE_GPUS=1
p=$(cat "$tmp/solver.paths")
read -r -a w <<<"$p"
last=${w[23]:-none}
if [ "${#w[@]}" -eq 24 ] && [ "${w[*]:0:12}" = "tiles tiles tiles host host host solver solver solver probe probe probe" ] &&
    [ "${w[*]:20}" = "$last $last $last $last" ] && [ "$last" != probe ] && grep -q 'path=solver dev=emu0' "$tmp/solver.log"; then
    pass "with a device's solver: tiles x3, host alone x3, solver x3, probe x3, then $last (paths: $p)"
else
    fail "solver" "paths: $p" "$tmp/solver.log"
fi
echo "tune: $passed passed, $failed failed"
[ $failed -eq 0 ]
