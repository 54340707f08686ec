#!/usr/bin/env bash
# ScaLAPACK's own testers (Debian scalapack-mpi-test: xdllt, xdlu, xdqr, xdinv, xdls and the
# other types' x?llt, x?lu, x?qr, x?inv, x?ls for ? = s, c, z, with their shipped .dat files,
# unchanged, but for x[scz]llt's tests/scalapack/LLT-types.dat, see below) run with libhetla preloaded and the tile path forced, compared with a
# baseline run of the same testers without it.
#
#   tests/scalapack_suite.sh                         # 8 ranks, every tester, with baseline
#   TESTERS="xdllt" NP=4 tests/scalapack_suite.sh
#
# Each preloaded run passes when the tester reaches END OF TESTS with no failed residual check,
# the same numbers of passed, unchecked and skipped tests as the baseline, and at least one call
# of each of the tester's own routines (`routines_of` below) that took the tile path (counted from the HETLA_VERBOSE=1 lines). A baseline that does not finish is a failure
# too (there is nothing to compare with). Prints `[PASS] ...`/`[FAIL] ...` lines, each run's wall
# time, and `scalapack-suite: N passed, M failed`; exit status 1 when anything failed.
#
# How the testers are run, and why:
#   - mpirun --oversubscribe, mpi_yield_when_idle=1, --bind-to none: 8 ranks on a machine with
#     fewer cores; without yielding, the ranks that wait (most of them: the first grid is 1x1)
#     spin and the run is tens of times slower.
#   - tests/scalapack/pdlacon_est0.c preloaded in both runs: the testers' PDPORFS/PDGERFS call
#     Debian 2.2.1's PDLACON, which reads its EST argument before writing it (an uninitialised
#     local of the caller); the ranks of one process column then take different branches and
#     deadlock (or die with MPI_ERR_TRUNCATE / SIGSEGV) on the first problem on a grid with
#     more than one process row, in about half the runs at 4 or 8 ranks, with or without hetla.
#     The shim zeroes EST when an estimate starts, as the current upstream source does
#     (Reference-ScaLAPACK/scalapack issue #121), and forwards to the real PDLACON.
#   - every run under `timeout`; ranks left behind (recognised by the run's own work folder as
#     their working directory) are killed, so a hang fails the run instead of spinning on.
#
# Environment: HETLA_LIB (the library to preload), SCALAPACK_TESTS (the testers' folder), NP,
# TESTERS, BASELINE=0 to skip the baseline (then only completion, failures and tile calls are
# checked), TIMEOUT (seconds per run, default 600), KEEP=1 to keep the work folder, GETRF_ALL
# (a word every tiled p?getrf line must have, e.g. pivot=calu) and GETRF_SOME (a word one at
# least must have, e.g. panel=split). HETLA_MIN_N
# defaults to 0 and HETLA_NB to 4 (the testers' matrices are 4..57 wide); every HETLA_* variable
# is passed to all ranks of the preloaded run.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lib=${HETLA_LIB:-$root/target/release/libhetla.so}
tests=${SCALAPACK_TESTS:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/scalapack/openmpi-tests}
np=${NP:-8}
testers=${TESTERS:-"xdllt xdlu xdqr xdinv xdls xsllt xslu xsqr xsinv xsls xcllt xclu xcqr xcinv xcls xzllt xzlu xzqr xzinv xzls"}
baseline=${BASELINE:-1}
limit=${TIMEOUT:-600}
export HETLA_MIN_N=${HETLA_MIN_N:-0} HETLA_NB=${HETLA_NB:-4} HETLA_VERBOSE=1

passed=0
failed=0
pass() { echo "[PASS] scalapack-suite $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] scalapack-suite $1"; failed=$((failed + 1)); }
finish() {
    echo "scalapack-suite: $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
}

[ -f "$lib" ] || { fail "setup: no $lib (cargo build --release)"; finish; }
[ -d "$tests" ] || { fail "setup: no ScaLAPACK testers in $tests (apt install scalapack-mpi-test)"; finish; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
cp "$tests"/*.dat "$work"/
echo "scalapack-suite: work folder $work"

shim=$work/pdlacon_est0.so
if ! cc -shared -fPIC -O1 -o "$shim" "$root/tests/scalapack/pdlacon_est0.c" -ldl; then
    fail "setup: cannot build tests/scalapack/pdlacon_est0.c"
    finish
fi

# Environment for the preloaded run: the library and every HETLA_* variable.
xenv=(-x "LD_PRELOAD=$shim:$lib")
for v in $(env | grep -o '^HETLA_[A-Z_]*' | sort -u); do xenv+=(-x "$v"); done

# kill_leftovers: ranks of this script's runs still alive (their working directory is $work).
kill_leftovers() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/cwd" 2>/dev/null)" = "$work" ] || continue
        case "$(readlink "$p/exe" 2>/dev/null)" in
        "$tests"/*) kill -9 "${p#/proc/}" 2>/dev/null || true ;;
        esac
    done
}

# run NAME TAG [mpirun args...]: runs tester NAME in the work folder; every rank's output goes
# to its own files under $work/TAG (mpirun --output-filename, so that the lines of 8 ranks do
# not interleave): the tester's report is rank 0's stdout, copied to $work/TAG.out; hetla's
# lines (stderr of every rank) to $work/TAG.hetla; mpirun's own messages to $work/TAG.console.
# Sets secs (wall time).
run() {
    local name=$1 tag=$2 t0 rc
    shift 2
    t0=$(date +%s%N)
    (cd "$work" && timeout -k 20 "$limit" mpirun --oversubscribe --bind-to none \
        --mca mpi_yield_when_idle 1 --output-filename "$work/$tag" -np "$np" "$@" \
        "$tests/$name" >"$work/$tag.console" 2>&1 </dev/null)
    rc=$?
    kill_leftovers
    secs=$((($(date +%s%N) - t0) / 100000000))
    secs=$((secs / 10)).$((secs % 10))
    cat "$work/$tag"/*/rank.0/stdout >"$work/$tag.out" 2>/dev/null
    [ $rc -ne 0 ] && echo "exit status $rc" >>"$work/$tag.out"
    cat "$work/$tag"/*/rank.*/stderr 2>/dev/null | grep '^hetla: ' >"$work/$tag.hetla"
}

# count OUT WHAT: the number in the tester's summary line containing WHAT.
count() {
    grep -i "$2" "$1" | head -1 | grep -o '[0-9]\+' | head -1 || true
}

# The routines of each tester that must each take the tile path at least once (x?llt: p?potrf,
# x?lu: p?getrf, x?qr: p?geqrf, x?inv: p?trtri, p?potri and p?getri, x?ls: p?geqrf and
# p?ormqr, p?unmqr for complex, which its p?gels calls; ? is the tester's type letter).
routines_of() {
    local x=${1:1:1} q=or
    case $x in c | z) q=un ;; esac
    case $1 in
    x[sdcz]llt) echo "p${x}potrf" ;;
    x[sdcz]lu) echo "p${x}getrf" ;;
    x[sdcz]qr) echo "p${x}geqrf" ;;
    x[sdcz]inv) echo "p${x}trtri p${x}potri p${x}getri" ;;
    x[sdcz]ls) echo "p${x}geqrf p${x}${q}mqr" ;;
    *) echo none ;;
    esac
}

printf '%-6s %-9s %7s %7s %7s %7s %5s %8s %s\n' tester run passed nocheck failed skipped done seconds "hetla calls"
for t in $testers; do
    rs=$(routines_of "$t")
    # The other precisions' Cholesky testers read tests/scalapack/LLT-types.dat: the shipped
    # LLT.dat's sizes, block sizes, grids and refinement, with 2 of its 3 NRHS and NBRHS values
    # (192 tests instead of 432: each refinement calls p?potrs hundreds of times, and xsllt on 8
    # ranks took minutes); xdllt keeps the shipped file.
    case $t in
    x[scz]llt) cp "$root/tests/scalapack/LLT-types.dat" "$work/LLT.dat" ;;
    xdllt) cp "$tests/LLT.dat" "$work/LLT.dat" ;;
    esac
    for mode in baseline hetla; do
        [ "$mode" = baseline ] && [ "$baseline" != 1 ] && continue
        out="$work/$t.$mode.out"
        if [ "$mode" = hetla ]; then
            run "$t" "$t.$mode" "${xenv[@]}"
        else
            run "$t" "$t.$mode" -x "LD_PRELOAD=$shim"
        fi
        p=$(count "$out" "passed residual checks")
        n=$(count "$out" "completed without checking")
        f=$(count "$out" "failed residual checks")
        s=$(count "$out" "skipped because of illegal")
        d=no
        grep -q "END OF TESTS" "$out" && d=yes
        calls=""
        if [ "$mode" = hetla ]; then
            tiles=""
            for r in $rs; do
                tiles+="${tiles:+, }$(grep -c "^hetla: $r .*path=tiles" "$work/$t.$mode.hetla") $r"
            done
            calls=$(grep -o '^hetla: [a-z]* .*path=[a-z]*' "$work/$t.$mode.hetla" |
                sed 's/^hetla: \([a-z]*\) .*path=\([a-z]*\)/\1:\2/' | sort | uniq -c |
                awk '{ printf "%s%s=%s", sep, $2, $1; sep = " " }')
        fi
        printf '%-6s %-9s %7s %7s %7s %7s %5s %8s %s\n' "$t" "$mode" "${p:-?}" "${n:-?}" "${f:-?}" \
            "${s:-?}" "$d" "$secs" "$calls"
        if [ "$mode" = baseline ]; then
            bp=$p bn=$n bs=$s
            if [ "$d" != yes ]; then
                fail "$t baseline (without hetla) did not finish; last lines:"
                tail -n 5 "$out" "$work/$t.$mode.console" | sed 's/^/    | /'
            fi
            continue
        fi
        why=()
        [ "$d" = yes ] || why+=("did not reach END OF TESTS")
        [ "${f:-1}" = 0 ] || why+=("failed residual checks: ${f:-?}")
        [ -n "$p" ] && [ "$p" -gt 0 ] || why+=("no passed tests")
        if [ "$baseline" = 1 ]; then
            [ "${p:-x}" = "${bp:-y}" ] || why+=("passed ${p:-?}, baseline ${bp:-?}")
            # Not every tester prints an unchecked count; when neither does, they agree.
            [ "${n:-none}" = "${bn:-none}" ] || why+=("unchecked ${n:-?}, baseline ${bn:-?}")
            [ "${s:-x}" = "${bs:-y}" ] || why+=("skipped ${s:-?}, baseline ${bs:-?}")
        fi
        for r in $rs; do
            [ "$r" = none ] || grep -q "^hetla: $r .*path=tiles" "$work/$t.$mode.hetla" ||
                why+=("no $r call took the tile path")
        done
        # GETRF_ALL: a word every tiled p?getrf line must carry (pivot=calu); GETRF_SOME: one
        # that at least one must (panel=split: grids of one process row factor panels in place).
        getrf_lines=$(grep -E '^hetla: p[sdcz]getrf .*path=tiles' "$work/$t.$mode.hetla")
        if [ -n "${GETRF_ALL:-}" ] && { [ -z "$getrf_lines" ] || grep -qv -- "$GETRF_ALL" <<<"$getrf_lines"; }; then
            why+=("a tiled p?getrf call without $GETRF_ALL (or none)")
        fi
        if [ -n "${GETRF_SOME:-}" ] && ! grep -q -- "$GETRF_SOME" <<<"$getrf_lines"; then
            why+=("no tiled p?getrf call with $GETRF_SOME")
        fi
        grep -qE '^hetla: [a-z0-9_]+: ' "$work/$t.$mode.hetla" && why+=("hetla reported an error")
        if [ ${#why[@]} -eq 0 ]; then
            pass "$t np=$np: $p tests passed (as without hetla), calls on tiles: $tiles, ${secs}s"
        else
            fail "$t np=$np with hetla: $(IFS=';'; echo "${why[*]}"); last lines:"
            tail -n 6 "$out" "$work/$t.$mode.console" | sed 's/^/    | /'
            grep -E '^hetla: [a-z0-9_]+: ' "$work/$t.$mode.hetla" | head -5 | sed 's/^/    | /'
        fi
    done
done
finish
