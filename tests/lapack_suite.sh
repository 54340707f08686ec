#!/usr/bin/env bash
# tests/lapack_suite.sh: LAPACK's own linear-equation test suite with hetla preloaded.
#
# Runs Debian's reference tester xlintstd (package liblapack-test) on the paths hetla implements:
#   DGE (DGETRF/DGETRS/DGESV and friends), DPO (DPOTRF/DPOTRS/DPOSV), DQR (DGEQRF and the
#   routines that consume its reflectors), DLS (DGELS and the other least-squares drivers), DTR
#   (DTRTRI and the other triangular routines; DGE and DPO also test DGETRI and DPOTRI, DQR
#   DORGQR and DORMQR on DGEQRF's reflectors).
# The input is built at run time from the shipped dtest.in: its header lines (sizes, block
# sizes, the threshold) are kept as they are, the error-exit tests are switched on, and only
# those path lines are kept. xlintstd is linked against liblapack.so.3 (OpenBLAS on a
# Debian system with libopenblas installed), so it is run twice:
#   baseline  without hetla, to record what a pass looks like on this machine;
#   host      with LD_PRELOAD=target/release/libhetla.so, HETLA_MIN_N=0 and a small HETLA_NB
#             (default 8) so that every call that can go down the tile path does;
#   calu, calu-emu2  the host run and one on 2 emulated accelerators with HETLA_LU=calu (CALU's
#             tournament pivoting in every LU);
#   emu1..3   the same with 1, 2 and 3 emulated accelerators, every call sent to them
#             (HETLA_DEVICE_FORCE=1), the last with 16K of device memory so tiles get evicted;
#   fake1, fake2 (only, with the baseline, when LAPACK_SUITE_FAKECUDA=DIR is set): hetla's CUDA
#             device on 1 and 2 fake GPUs (tests/fakecuda), described further down;
#   mkl, blis (only, each with its own baseline, when LAPACK_SUITE_BACKENDS=1 is set): hetla over
#             Intel MKL and over BLIS with the reference LAPACK, described further down;
#   host-s, host-c, host-z, calu-s, emu2-s, fake1-s, ... (only, each type with its own baseline, when
#             LAPACK_SUITE_TYPES=1 is set): xlintsts, xlintstc, xlintstz on their PO, GE and TR
#             paths (?POTRF, ?POTRS, ?POSV, ?POTRI, ?GETRF, ?GETRS, ?GESV, ?GETRI, ?TRTRI of single
#             real, single and double complex), described further down.
# Each hetla run fails when xlintstd crashes or times out, when its output has a failure line
# (`***` messages: wrong INFO, illegal value not detected, failed error exits; `failed to pass
# the threshold`) that the baseline does not have, when its per-path summary lines differ from
# the baseline's (the same tests must have run), or when hetla's dpotrf, dtrtri, dpotri, dgetri,
# dorgqr or dormqr (in the types' run: ?potrf, ?potrs, ?posv, ?potri, ?getrf, ?getrs, ?gesv,
# ?getri, ?trtri) never took
# the tile path (counted from HETLA_VERBOSE=1 lines). Baseline failures, if any, are printed, not hidden.
#
# Prints `[PASS] lapack-suite ...`/`[FAIL] ...` lines and `lapack-suite: N passed, M failed`.
# Outputs are kept under target/lapack-suite/.
set -uo pipefail
cd "$(dirname "$0")/.."

LAPACK_TEST_DIR=${LAPACK_TEST_DIR:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/lapack}
XLINTSTD=$LAPACK_TEST_DIR/xlintstd
DTEST_IN=$LAPACK_TEST_DIR/dtest.in
# HETLA_LIB substitutes another library (used to check that this script does catch failures).
LIB=${HETLA_LIB:-$PWD/target/release/libhetla.so}
OUT=target/lapack-suite
PATHS="DGE DPO DQR DLS DTR"
TIMEOUT=${LAPACK_SUITE_TIMEOUT:-900}

passed=0
failed=0
pass() { echo "[PASS] lapack-suite $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] lapack-suite $1"; failed=$((failed + 1)); }
finish() {
    echo "lapack-suite: $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
}

for f in "$XLINTSTD" "$DTEST_IN" "$LIB"; do
    if [ ! -e "$f" ]; then
        fail "setup: $f is missing (scripts/deps.sh installs liblapack-test; cargo build --release builds the library)"
        finish
    fi
done
mkdir -p "$OUT"

# make_input SRC PATHS DEST: the reduced input: every line of SRC up to the first path line
# (title, sizes, NB/NX, ranks, threshold, the three T/F switches) with the error-exit switch
# forced to T, then the wanted path lines, each followed by its list of types when it asks for
# one (0 < NTYPES < max).
make_input() {
    local src=$1 paths=$2 dest=$3 p
    awk -v want="$paths" '
        BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
        !inpaths && $1 ~ /^[A-Z][A-Z0-9][A-Z0-9]$/ { inpaths = 1 }
        !inpaths {
            if ($0 ~ /error exits/) sub(/^ *[TF]/, "T")
            print
            next
        }
        listnext { if (take) print; listnext = 0; next }
        {
            take = ($1 in keep)
            if (take) print
            # "List types on next line if 0 < NTYPES < K": a types line follows.
            if (NF >= 2 && $2 + 0 > 0 && match($0, /< *[0-9]+ *$/)) {
                max = substr($0, RSTART + 1) + 0
                if ($2 + 0 < max) listnext = 1
            }
        }
    ' "$src" >"$dest"
    for p in $paths; do
        if ! grep -q "^$p" "$dest"; then
            fail "setup: path $p is not in $src"
            finish
        fi
    done
}

# The tester, its input, its paths and the routines that must have run on tiles in each run (the
# types' run below sets its own).
TESTER=$XLINTSTD
INPUT=$OUT/input.in
TILED="dpotrf dtrtri dpotri dgetri dorgqr dormqr"
make_input "$DTEST_IN" "$PATHS" "$INPUT"

# One run of the tester: $1 = name, then environment assignments.
run_suite() {
    local name=$1
    shift
    env "$@" timeout "$TIMEOUT" "$TESTER" <"$INPUT" >"$OUT/$name.out" 2>"$OUT/$name.err"
    echo $? >"$OUT/$name.rc"
}
# Failure lines of an output file, with sizes kept so that baseline and hetla compare exactly.
failures() { grep -E '\*\*\*|failed|[Ii]llegal|not tested' "$1" | sed 's/ *$//' | sort -u; }
# The per-path summary lines ("All tests for DGE routines passed the threshold (3653 tests run)",
# "DGE routines passed the tests of the error exits", or their failing counterparts).
summaries() { grep -E 'tests run|error exits|tests failed' "$1" | sed 's/^ *//; s/ *$//'; }

echo "lapack-suite: input $OUT/input.in (paths $PATHS, from $DTEST_IN)"

# baseline NAME ENV...: xlintstd on a LAPACK alone (no hetla), the comparison for the hetla runs
# that follow (BASE).
baseline() {
    local b=$1 t0 rc
    shift
    t0=$(date +%s)
    run_suite "$b" "$@"
    rc=$(cat "$OUT/$b.rc")
    echo "lapack-suite: $b run (no hetla; $*) took $(($(date +%s) - t0))s, exit status $rc"
    failures "$OUT/$b.out" >"$OUT/$b.failures"
    summaries "$OUT/$b.out" >"$OUT/$b.summary"
    if [ "$rc" -ne 0 ] || ! grep -q 'End of tests' "$OUT/$b.out"; then
        fail "$b: $(basename "$TESTER") does not complete without hetla (exit $rc); see $OUT/$b.out"
        finish
    fi
    if [ -s "$OUT/$b.failures" ]; then
        echo "lapack-suite: NOTE: the LAPACK of $b alone already fails these (kept as its baseline):"
        sed 's/^/    | /' "$OUT/$b.failures"
    fi
    BASE=$b
}


# --- hetla preloaded, tile path forced: on the host, then with 1, 2 and 3 emulated accelerators ---
# check_variant NAME ENV...: one xlintstd run under hetla with the given extra environment, and
# every comparison against the baseline.
check_variant() {
    local v=$1
    shift
    local t0 rc tiles
    t0=$(date +%s)
    run_suite "$v" LD_PRELOAD="$LIB" HETLA_MIN_N=0 HETLA_NB="${HETLA_NB:-8}" HETLA_VERBOSE=1 "$@"
    rc=$(cat "$OUT/$v.rc")
    echo "lapack-suite: $v run (HETLA_MIN_N=0 HETLA_NB=${HETLA_NB:-8} $*) took $(($(date +%s) - t0))s, exit status $rc"

    if [ "$rc" -eq 0 ] && grep -q 'End of tests' "$OUT/$v.out"; then
        pass "$v: $(basename "$TESTER") completes under hetla"
    else
        fail "$v: $(basename "$TESTER") did not complete under hetla (exit status $rc; 124 = timeout); last lines:"
        tail -n 15 "$OUT/$v.out" "$OUT/$v.err" | sed 's/^/    | /'
    fi

    failures "$OUT/$v.out" >"$OUT/$v.failures"
    comm -13 "$OUT/$BASE.failures" "$OUT/$v.failures" >"$OUT/$v.new.failures"
    # What xlintstd printed under hetla and not in the baseline (its timing line aside): the
    # failing tests' parameters and ratios, which is what one needs to start debugging.
    diff <(grep -v 'Total time' "$OUT/$BASE.out") <(grep -v 'Total time' "$OUT/$v.out") |
        sed -n 's/^> //p' >"$OUT/$v.new.lines"
    if [ -s "$OUT/$v.new.failures" ]; then
        fail "$v: new failures under hetla ($(wc -l <"$OUT/$v.new.failures") failure lines; output beyond the baseline's:)"
        head -n 40 "$OUT/$v.new.lines" | sed 's/^/    | /'
    else
        pass "$v: no failure lines beyond the baseline's"
    fi

    summaries "$OUT/$v.out" >"$OUT/$v.summary"
    for p in $PATHS; do
        if diff -q <(grep "$p" "$OUT/$BASE.summary") <(grep "$p" "$OUT/$v.summary") >/dev/null; then
            pass "$v $p: same summary as the baseline ($(grep "$p" "$OUT/$v.summary" | grep -o '[0-9]* tests run' |
                awk '{ print $1 }' | paste -sd+ -) tests, error exits passed)"
        else
            fail "$v $p: summary differs from the baseline"
            diff <(grep "$p" "$OUT/$BASE.summary") <(grep "$p" "$OUT/$v.summary") | sed 's/^/    | /'
        fi
    done

    if grep -qE 'panicked at|panic caught at the library boundary' "$OUT/$v.err"; then
        fail "$v: the library panicked during the suite:"
        grep -m 5 -A 2 -E 'panicked at|panic caught' "$OUT/$v.err" | sed 's/^/    | /'
    else
        pass "$v: no panic in the library"
    fi

    # Which routines hetla handled, and how.
    echo "lapack-suite: $v: HETLA_VERBOSE calls seen (routine, path, count):"
    sed -n 's/^hetla: \([a-z0-9]*\) .*path=\([a-z]*\).*/\1 \2/p' "$OUT/$v.err" | sort | uniq -c |
        awk '{ printf "    %-8s %-8s %8d\n", $2, $3, $1 }'
    for r in $TILED; do
        tiles=$(grep -c "^hetla: $r .*path=tiles" "$OUT/$v.err")
        if [ "$tiles" -gt 0 ]; then
            pass "$v: $r ran on tiles ($tiles calls)"
        else
            fail "$v: $r never took the tile path during the suite (is HETLA_MIN_N honoured?)"
        fi
    done
}

# check_solver NAME DEVICE [TYPE]: in the run NAME, calls of ?POTRF, ?GETRF and ?GEQRF (? = TYPE,
# default d) went whole to DEVICE's solver (HETLA_SOLVER=force; the calls it declines, INFO > 0
# or NaN, run on tiles).
check_solver() {
    local v=$1 dev=$2 t=${3:-d} r n
    for r in ${t}potrf ${t}getrf ${t}geqrf; do
        n=$(grep -c "^hetla: $r .*path=solver dev=$dev" "$OUT/$v.err")
        if [ "$n" -gt 0 ]; then
            pass "$v: $r ran whole on $dev's solver ($n calls, $(grep -c "^hetla: $r .*solver=declined" "$OUT/$v.err") declined)"
        else
            fail "$v: no $r call ran whole on $dev's solver"
        fi
    done
}

# check_devices NAME N [PREFIX]: the run NAME really put tasks on all N devices named PREFIX0..
# (default emu, the emulated accelerators).
check_devices() {
    local v=$1 n=$2 pre=${3:-emu} d used
    for d in $(seq 0 $((n - 1))); do
        used=$(grep -c "dev=.*$pre$d:[^ ]*tasks=[1-9]" "$OUT/$v.err")
        if [ "$used" -gt 0 ]; then
            pass "$v: $pre$d ran tasks in $used calls"
        else
            fail "$v: no call ran a task on $pre$d"
        fi
    done
}

# LAPACK_SUITE_BACKENDS=1 runs only the suite over other backends than the system's, each against
# its own baseline, every tile call forced:
#   mkl   Intel MKL from PyPI (scripts/mkl.sh) preloaded after hetla: every BLAS and LAPACK name
#         the tester calls is MKL's, and hetla's tiles run on MKL's kernels;
#   blis  BLIS preloaded after hetla, with the reference LAPACK (its own directory first on the
#         library path, not the alternatives link): BLIS's kernels, the reference's LAPACK.
# Besides check_variant's checks, hetla's verbose output must name the backend and its thread
# control.
if [ "${LAPACK_SUITE_BACKENDS:-0}" = 1 ]; then
    lapackdir=$LAPACK_TEST_DIR
    if mkl=$(bash scripts/mkl.sh); then
        mklrt=$(ls "$mkl"/libmkl_rt.so.* | head -1)
        baseline baseline-mkl LD_PRELOAD="$mklrt"
        check_variant mkl LD_PRELOAD="$LIB $mklrt"
        backend_lib=libmkl_rt flavor=mkl
        if grep -q "^hetla: backend .*/$backend_lib[^/]* (thread control: $flavor)" "$OUT/mkl.err"; then
            pass "mkl: hetla forwards to $backend_lib and sets its thread count"
        else
            fail "mkl: hetla's verbose output does not name $backend_lib with thread control $flavor"
        fi
    else
        fail "mkl: MKL could not be installed (scripts/mkl.sh; see target/mkl-venv.log)"
    fi
    blis=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libblis.so.4
    if [ -e "$blis" ]; then
        ref=(LD_LIBRARY_PATH="$lapackdir" OPENBLAS_NUM_THREADS=1)
        baseline baseline-blis LD_PRELOAD="$blis" "${ref[@]}"
        check_variant blis LD_PRELOAD="$LIB $blis" "${ref[@]}"
        if grep -q "^hetla: backend .*/libblis[^/]* (thread control: blis)" "$OUT/blis.err"; then
            pass "blis: hetla forwards to libblis and sets its thread count"
        else
            fail "blis: hetla's verbose output does not name libblis with thread control blis"
        fi
    else
        fail "blis: $blis is missing (scripts/deps.sh installs libblis-pthread-dev)"
    fi
    finish
fi

# LAPACK_SUITE_TYPES=1 runs only the other types' Cholesky, LU, QR and inverses: xlintsts,
# xlintstc and xlintstz on their PO, GE, QR, LS and TR paths (SPO, CPO, ZPO: ?POTRF, ?POTRS, ?POSV
# and ?POTRI, and what the path tests with them, ?POCON, ?PORFS; SGE, CGE, ZGE: ?GETRF, ?GETRS
# (TRANS N, T, C), ?GESV and ?GETRI, and with them ?GECON, ?GERFS, ?GESVX, which hetla leaves to
# the backend; SQR, CQR, ZQR: ?GEQRF, ?ORGQR/?UNGQR, ?ORMQR/?UNMQR and ?GEQRS; SLS, CLS, ZLS:
# ?GELS, beside the other least-squares drivers, which hetla leaves to the backend; STR, CTR, ZTR:
# ?TRTRI, UPLO U and L, DIAG N and U, beside the triangular solves and condition estimates the
# backend runs), each against its own baseline on the shipped stest.in, ctest.in, ztest.in
# reduced to those paths (M and N up to 50, a few seconds a run). The STR baseline itself fails
# 104 SLATRS3 tests here (Debian's LAPACK 3.11 with OpenBLAS; not a routine hetla runs): the
# hetla runs must fail exactly those, as every baseline failure is compared:
#   host-s, host-c, host-z  every ?potrf, ?potrs, ?posv, ?potri, ?getrf, ?getrs, ?gesv, ?getri,
#           ?trtri, ?geqrf, ?gels, ?orgqr/?ungqr, ?ormqr/?unmqr call on tiles;
#   calu-s, calu-c, calu-z  the same with HETLA_LU=calu: every tiled ?getrf pivots by CALU's
#           tournament;
#   emu2-s, emu2-c, emu2-z  the same on 2 emulated accelerators, every call sent to them
#           (HETLA_DEVICE_FORCE=1), each with 16K of memory (evictions);
#   solver-s, solver-c, solver-z  every ?POTRF, ?GETRF, ?GEQRF whole on an emulated device's
#           solver (HETLA_SOLVER=force; the declined ones, INFO > 0 or NaN, on tiles);
#   fake1-s, fake1-c, fake1-z (when LAPACK_SUITE_FAKECUDA=DIR names the fake CUDA libraries of
#           tests/fakecuda) the same on one fake GPU taking every tile column: hetla's CUDA device
#           code calling cuBLAS's and cuSOLVER's S, C and Z routines, checked by the fake.
if [ "${LAPACK_SUITE_TYPES:-0}" = 1 ]; then
    for t in s c z; do
        TESTER=$LAPACK_TEST_DIR/xlintst$t
        T=$(echo "$t" | tr 'a-z' 'A-Z')
        PATHS="${T}PO ${T}GE ${T}QR ${T}LS ${T}TR"
        # The Q routines' names: ?ORGQR/?ORMQR real, ?UNGQR/?UNMQR complex.
        case $t in s) Q="${t}orgqr ${t}ormqr" ;; *) Q="${t}ungqr ${t}unmqr" ;; esac
        QR="${t}geqrf ${t}gels $Q"
        INPUT=$OUT/input-$t.in
        for f in "$TESTER" "$LAPACK_TEST_DIR/${t}test.in"; do
            if [ ! -e "$f" ]; then
                fail "setup: $f is missing (scripts/deps.sh installs liblapack-test)"
                finish
            fi
        done
        make_input "$LAPACK_TEST_DIR/${t}test.in" "$PATHS" "$INPUT"
        echo "lapack-suite: input $INPUT (path $PATHS, for $TESTER)"
        baseline "baseline-$t" -u LD_PRELOAD
        TILED="${t}potrf ${t}potrs ${t}posv ${t}potri ${t}getrf ${t}getrs ${t}gesv ${t}getri ${t}trtri $QR"
        check_variant "host-$t"
        # Every TRANS of ?GETRS on tiles (C: the conjugate transpose; T in a complex type: the
        # adjoint solve on the conjugated right-hand sides).
        for tc in N T C; do
            tiles=$(grep -c "^hetla: ${t}getrs trans=$tc .*path=tiles" "$OUT/host-$t.err")
            if [ "$tiles" -gt 0 ]; then
                pass "host-$t: ${t}getrs with TRANS=$tc ran on tiles ($tiles calls)"
            else
                fail "host-$t: no ${t}getrs call with TRANS=$tc on tiles"
            fi
        done
        # CALU's tournament pivoting in every LU of the type (the GE and LS paths check
        # residuals, not pivots).
        check_variant "calu-$t" HETLA_LU=calu
        lines=$(grep -c "^hetla: ${t}getrf .*path=tiles" "$OUT/calu-$t.err")
        if [ "$lines" -gt 0 ] && ! grep "^hetla: ${t}getrf .*path=tiles" "$OUT/calu-$t.err" | grep -qv 'pivot=calu'; then
            pass "calu-$t: every tiled ${t}getrf says pivot=calu ($lines calls)"
        else
            fail "calu-$t: tiled ${t}getrf calls without pivot=calu (or none on tiles)"
        fi
        check_variant "emu2-$t" HETLA_EMULATE_GPUS=2 HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_MEM=16K
        check_devices "emu2-$t" 2
        TILED=""
        check_variant "solver-$t" HETLA_EMULATE_GPUS=1 HETLA_SOLVER=force
        check_solver "solver-$t" emu0 "$t"
        TILED="${t}potrf ${t}potrs ${t}posv ${t}potri ${t}getrf ${t}getrs ${t}gesv ${t}getri ${t}trtri $QR"
        if [ -n "${LAPACK_SUITE_FAKECUDA:-}" ]; then
            check_variant "fake1-$t" LD_LIBRARY_PATH="$LAPACK_SUITE_FAKECUDA" HETLA_GPUS=all HETLA_DEVICE_FORCE=1 \
                HETLA_DEVICE_NB=16 FAKECUDA_DEVICES=1 HETLA_HOST_SHARE=0
            check_devices "fake1-$t" 1 cuda
            if grep -q '^fakecuda: ' "$OUT/fake1-$t.err"; then
                fail "fake1-$t: the fake CUDA reported:"
                grep -m 5 '^fakecuda: ' "$OUT/fake1-$t.err" | sed 's/^/    | /'
            else
                pass "fake1-$t: no violation reported by the fake CUDA"
            fi
        fi
    done
    finish
fi

# --- baseline: xlintstd on the system LAPACK alone ---
baseline baseline -u LD_PRELOAD

# LAPACK_SUITE_FAKECUDA=DIR runs only the variants on the fake CUDA libraries of tests/fakecuda
# (built into DIR by tests/fakecuda/build.sh): hetla's real CUDA device code, every call sent to
# the devices with small device tiles (HETLA_DEVICE_NB=16) so that every kernel and transfer kind
# runs on the suite's small matrices:
#   fake1  one fake GPU taking every tile column (HETLA_HOST_SHARE=0);
#   fake2  two fake GPUs of 12K each beside the host, which keeps half of the columns
#          (HETLA_HOST_SHARE=0.5; the measured rates would leave the slow fakes nothing): evictions, write-
#          backs, tiles moving between the devices and the host;
#   fakesolver  one fake GPU, every DPOTRF, DGETRF and DGEQRF whole on its cuSOLVER
#          (HETLA_SOLVER=force), the other calls on its tiles.
# Besides every check above, no `fakecuda: violation` line may appear (the fake aborts on one,
# so the run fails anyway; the line is shown).
if [ -n "${LAPACK_SUITE_FAKECUDA:-}" ]; then
    fake=(LD_LIBRARY_PATH="$LAPACK_SUITE_FAKECUDA" HETLA_GPUS=all HETLA_DEVICE_FORCE=1 HETLA_DEVICE_NB=16)
    check_variant fake1 "${fake[@]}" FAKECUDA_DEVICES=1 HETLA_HOST_SHARE=0
    check_devices fake1 1 cuda
    check_variant fake2 "${fake[@]}" FAKECUDA_DEVICES=2 FAKECUDA_MEM=12K HETLA_HOST_SHARE=0.5
    check_devices fake2 2 cuda
    check_variant fakesolver "${fake[@]}" FAKECUDA_DEVICES=1 HETLA_HOST_SHARE=0 HETLA_SOLVER=force
    check_solver fakesolver cuda0
    if grep -q 'evict=[1-9]' "$OUT/fake2.err"; then
        pass "fake2: evictions happened with 12K of device memory ($(grep -c 'evict=[1-9]' "$OUT/fake2.err") calls)"
    else
        fail "fake2: no eviction with 12K of device memory"
    fi
    for v in fake1 fake2 fakesolver; do
        if grep -q '^fakecuda: ' "$OUT/$v.err"; then
            fail "$v: the fake CUDA reported:"
            grep -m 5 '^fakecuda: ' "$OUT/$v.err" | sed 's/^/    | /'
        else
            pass "$v: no violation reported by the fake CUDA"
        fi
    done
    finish
fi

# LAPACK_SUITE_CUDA=1 (on a machine with an NVIDIA GPU) runs only the host variant and one on
# the real CUDA devices, every call sent to them, instead of the emulated ones, and one with
# every DPOTRF, DGETRF and DGEQRF whole on cuSOLVER (HETLA_SOLVER=force; LAPACK_SUITE_SKIP_SOLVER=1
# leaves it out).
if [ "${LAPACK_SUITE_CUDA:-0}" = 1 ]; then
    check_variant host
    check_variant cuda HETLA_GPUS=all HETLA_DEVICE_FORCE=1
    used=$(grep -c "dev=.*cuda0:[^ ]*tasks=[1-9]" "$OUT/cuda.err")
    if [ "$used" -gt 0 ]; then
        pass "cuda: cuda0 ran tasks in $used calls"
    else
        fail "cuda: no call ran a task on cuda0 (first lines of its stderr:)"
        head -n 5 "$OUT/cuda.err" | sed 's/^/    | /'
    fi
    if [ -z "${LAPACK_SUITE_SKIP_SOLVER:-}" ]; then
        check_variant cudasolver HETLA_GPUS=all HETLA_SOLVER=force
        check_solver cudasolver cuda0
    fi
    finish
fi

check_variant host
# CALU (tournament pivoting) instead of partial pivoting in every LU: DGE and DLS must pass the
# same tests (xlintstd checks residuals, not the pivots), on the host and on 2 emulated devices.
check_variant calu HETLA_LU=calu
check_variant calu-emu2 HETLA_LU=calu HETLA_EMULATE_GPUS=2 HETLA_DEVICE_FORCE=1
check_devices calu-emu2 2
for v in calu calu-emu2; do
    lines=$(grep -c '^hetla: dgetrf .*path=tiles' "$OUT/$v.err")
    if [ "$lines" -gt 0 ] && ! grep '^hetla: dgetrf .*path=tiles' "$OUT/$v.err" | grep -qv 'pivot=calu'; then
        pass "$v: every tiled dgetrf says pivot=calu ($lines calls)"
    else
        fail "$v: tiled dgetrf calls without pivot=calu (or none on tiles)"
    fi
done
# HETLA_DEVICE_FORCE=1 sends even the suite's small matrices to the devices, which the cost
# model would otherwise keep on the host; the last variant's tiny memory forces evictions.
check_variant emu1 HETLA_EMULATE_GPUS=1 HETLA_DEVICE_FORCE=1
check_devices emu1 1
check_variant emu2 HETLA_EMULATE_GPUS=2 HETLA_DEVICE_FORCE=1
check_devices emu2 2
check_variant emu3 HETLA_EMULATE_GPUS=3 HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_MEM=16K
check_devices emu3 3
if grep -q 'evict=[1-9]' "$OUT/emu3.err"; then
    pass "emu3: evictions happened with 16K of device memory ($(grep -c 'evict=[1-9]' "$OUT/emu3.err") calls)"
else
    fail "emu3: no eviction with 16K of device memory"
fi

finish
