#!/usr/bin/env bash
# ScaLAPACK's own testers (Debian scalapack-mpi-test: xdllt, xdlu, xdqr with their shipped .dat
# files) run with libhetla preloaded, compared with a baseline run of the same testers without it.
#
#   tests/scalapack_suite.sh                 # release build, 8 ranks, every tester, with baseline
#   TESTERS="xdllt" NP=4 tests/scalapack_suite.sh
#   HETLA_MIN_N=0 HETLA_NB=8 tests/scalapack_suite.sh   # force the tile path (xdllt's pdpotrf)
#
# Environment: HETLA_LIB (the library to preload), SCALAPACK_TESTS (the testers' folder), NP,
# TESTERS, BASELINE=0 to skip the baseline, KEEP=1 to keep the work folder. Every HETLA_*
# variable set by the caller is passed to all ranks. Exit status 1 when a tester fails a test,
# skips a different number of tests than the baseline, or does not finish.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lib=${HETLA_LIB:-$root/target/release/libhetla.so}
tests=${SCALAPACK_TESTS:-/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests}
np=${NP:-8}
testers=${TESTERS:-"xdllt xdlu xdqr"}
baseline=${BASELINE:-1}
limit=${TIMEOUT:-3600}

[ -f "$lib" ] || { echo "no $lib: run cargo build --release first" >&2; exit 2; }
[ -d "$tests" ] || { echo "no ScaLAPACK testers in $tests (apt install scalapack-mpi-test)" >&2; exit 2; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
cp "$tests"/*.dat "$work"/

# Environment for the preloaded run: the library and every HETLA_* variable of the caller.
xenv=(-x "LD_PRELOAD=$lib")
for v in $(env | grep -o '^HETLA_[A-Z_]*' || true); do xenv+=(-x "$v"); done

# run NAME OUT [mpirun args...]: runs tester NAME in the work folder, output to OUT.
run() {
    local name=$1 out=$2
    shift 2
    (cd "$work" && timeout "$limit" mpirun --oversubscribe -np "$np" "$@" "$tests/$name" >"$out" 2>&1) || echo "exit status $?" >>"$out"
}

# count OUT WHAT: the number in the tester's summary line containing WHAT.
count() {
    grep -i "$2" "$1" | head -1 | grep -o '[0-9]\+' | head -1 || true
}

status=0
printf '%-6s %-9s %7s %7s %7s %7s %6s\n' tester run passed nocheck failed skipped done
for t in $testers; do
    for mode in hetla baseline; do
        [ "$mode" = baseline ] && [ "$baseline" != 1 ] && continue
        out="$work/$t.$mode.out"
        if [ "$mode" = hetla ]; then run "$t" "$out" "${xenv[@]}"; else run "$t" "$out"; fi
        passed=$(count "$out" "passed residual checks")
        nocheck=$(count "$out" "completed without checking")
        failed=$(count "$out" "failed residual checks")
        skipped=$(count "$out" "skipped because of illegal")
        done_=no
        grep -q "END OF TESTS" "$out" && done_=yes
        printf '%-6s %-9s %7s %7s %7s %7s %6s\n' "$t" "$mode" "${passed:-?}" "${nocheck:-?}" "${failed:-?}" "${skipped:-?}" "$done_"
        eval "${t}_${mode}_skipped=\${skipped:-?}"
        if [ "$mode" = hetla ]; then
            if [ "$done_" != yes ] || [ "${failed:-1}" != 0 ] || [ -z "$passed" ]; then
                status=1
                echo "--- $t with hetla: last lines of output" >&2
                tail -20 "$out" >&2
            fi
            if [ -n "${HETLA_VERBOSE:-}" ]; then
                echo "    paths: $(grep -o '^hetla: [a-z]* .*path=[a-z]*' "$out" | sed 's/^hetla: \([a-z]*\) .*path=\([a-z]*\)/\1:\2/' | sort | uniq -c | tr '\n' ' ')"
            fi
        fi
    done
    if [ "$baseline" = 1 ]; then
        h=$(eval echo "\$${t}_hetla_skipped") b=$(eval echo "\$${t}_baseline_skipped")
        if [ "$h" != "$b" ]; then
            echo "$t: $h tests skipped with hetla, $b without" >&2
            status=1
        fi
    fi
done
exit $status
