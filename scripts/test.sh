#!/usr/bin/env bash
# scripts/test.sh: every test of hetla, in one command (also what .ci/run runs).
#
# Steps, in order; each one's full output goes to target/test-logs/<step>.log:
#   deps          scripts/deps.sh: Debian packages and the Rust toolchain
#   build         cargo build --release (libhetla.so for the C, Fortran and LAPACK tests)
#   cargo-test    cargo test --release --no-fail-fast: unit tests next to the math and the
#                 tests/*.rs integration tests (every test binary runs even after a failure)
#   unit-emu1..3  the unit tests with every tile call on 1, 2, 3 emulated accelerators
#   unit-emu2-nrrp, unit-emu3-nrrp: the api-level and factorization tests on 2 and 3 emulated
#                 accelerators with the updates placed by the NRRP pattern (HETLA_UPDATE_ALLOC=nrrp)
#   fakecuda-selftest tests/fakecuda/selftest.sh: builds the fake CUDA libraries (tests/fakecuda)
#                 into target/fakecuda and checks the fixture itself: correct CUDA use passes with
#                 right numbers, each of seven mistakes is reported
#   unit-fakecuda1, unit-fakecuda2: the unit tests with every configuration on 1 and 2 fake GPUs
#                 (HETLA_TEST_GPUS=all: hetla's real CUDA device code), except the eight tests
#                 that assert their own device set or cost model (listed below)
#   fmt           cargo fmt --check
#   clippy        cargo clippy --all-targets -- -D warnings
#   ffi-tests     ffi-tests/run.sh: C programs through hetla.h, relinked and LD_PRELOADed (test_gemm.c:
#                 dgemm_ against OpenBLAS on 3 emulated accelerators, every xerbla_ position)
#   fortran-tests fortran-tests/run.sh: a FORTRAN 77 program, relinked and LD_PRELOADed
#   ffi-tests-emu2, fortran-tests-emu3: the same with 2 and 3 emulated accelerators
#   bt-tests      tests/bt/run.sh: dbtsv_/dbttrf_/dbttrs_ from C against the reference DGBSV, on
#                 the host (both eliminations) and on 1 and 2 emulated accelerators
#   bt-mpi        tests/bt/mpi.sh: pdbtsv_/pdbttrf_/pdbttrs_ from C under mpirun -np 1..4 (1-D and
#                 2-D grids, ranks holding one row or none, a process outside the grid, 1 emulated
#                 accelerator per rank) against the serial dbttrf_/dbttrs_
#   lapack-suite  tests/lapack_suite.sh: LAPACK's xlintstd (DGE, DPO, DQR, DLS, DTR) under hetla, on
#                 the host, with CALU (HETLA_LU=calu) on the host and 2 emulated accelerators, and
#                 with 1, 2 and 3 emulated accelerators
#   lapack-suite-types tests/lapack_suite.sh with LAPACK_SUITE_TYPES: xlintsts, xlintstc, xlintstz
#                 on their PO, GE, QR, LS and TR paths (?POTRF, ?POTRS, ?POSV, ?POTRI, ?GETRF,
#                 ?GETRS, ?GESV, ?GETRI, ?TRTRI, ?GEQRF, ?GELS, ?ORGQR/?UNGQR, ?ORMQR/?UNMQR on
#                 tiles) on the host, with CALU, on 2 emulated accelerators and on 1 fake GPU
#                 (tests/fakecuda), each against its own baseline (seconds)
#   lapack-suite-backends tests/lapack_suite.sh with LAPACK_SUITE_BACKENDS: the same xlintstd paths
#                 under hetla over Intel MKL (from PyPI, scripts/mkl.sh) and over BLIS with the
#                 reference LAPACK, each against that backend's own baseline
#   fakecuda-sites tests/fakecuda/sites.sh: the C and Fortran call sites on 1 fake GPU and on 2
#                 fake GPUs of 48K (evictions), every tile call forced onto them
#   lapack-suite-fakecuda tests/lapack_suite.sh with LAPACK_SUITE_FAKECUDA: xlintstd on 1 fake
#                 GPU and on 2 of 12K beside the host, against the baseline
#   fakecuda-faults tests/fakecuda/faults.sh: every CUDA error survived (FAKECUDA_FAIL at 18
#                 injection points, mid-run and from the first call on, 1 and 2 fake GPUs):
#                 dpotrf/dgetrf/dgeqrf equal to OpenBLAS's (INFO, pivots), one disabled line per
#                 device, nothing leaked; a program's own CUDA context stays current; 300 calls
#                 on an 8 MiB fake GPU leave what 30 leave
#   fakecuda-mpi  tests/fakecuda/mpi.sh: pdpotrf under mpirun -np 2, one fake GPU per rank; then
#                 faults on rank 1: every answer right or the grid aborted, within 60 s
#   mpi-tests     tests/mpi/run.sh: pdpotrf, pdgetrf, pdgeqrf, the solves, the inverses
#                 (pdtrtri, pdpotri, pdgetri) and Q (pdorgqr, pdormqr) under mpirun -np 1..4
#                 against reference ScaLAPACK, and the same routines in s, c, z (ptyped_test.c)
#   mpi-fortran   tests/mpi/fortran.sh: the demo's ScaLAPACK Fortran program (demo/legacy_pdsolver.f)
#                 under mpirun -np 1..4, preloaded and relinked with -lhetla ahead of ScaLAPACK
#   scalapack-suite tests/scalapack_suite.sh: ScaLAPACK's own testers xdllt, xdlu, xdqr, xdinv
#                 (pdtrtri, pdpotri, pdgetri) and xdls (pdgels: pdgeqrf, pdormqr), and the other
#                 types' x?llt, x?lu, x?qr, x?inv, x?ls (? = s, c, z), with their
#                 shipped .dat files on 8 ranks, hetla preloaded with every call on tiles
#                 (HETLA_MIN_N=0, HETLA_NB=4), against a baseline run without hetla; each run
#                 under a 120 s timeout (they take seconds), so a hang fails the step
#   scalapack-suite-calu, scalapack-suite-calu-grid: xdlu again with HETLA_LU=calu, on the default
#                 layout, and xdlu, xslu, xclu, xzlu on 2-D tiles (the tournament across ranks);
#                 every tiled p?getrf must say pivot=calu
#   scalapack-suite-split-grid: xdlu, xslu, xclu, xzlu again on 2-D tiles with HETLA_LU_PANEL=split
#                 (panels on several process rows factored where their rows are; some p?getrf
#                 must say panel=split); a 600 s timeout, as a
#                 split panel's exchange per column waits for every rank of its process column
#   sim           tests/sim.sh: hetla-sim end to end (calibrate, predictions, trace, refusals)
#   valgrind      tests/valgrind/run.sh: memcheck of a C program calling the eight LAPACK routines
#                 on tiles (2 threads): no error, nothing definitely lost
#   install       tests/install.sh: scripts/install.sh into a temporary prefix; C and C++ programs
#                 built with pkg-config's flags, a LAPACK-only program and an MPI job via hetla-run
#   nompi         tests/nompi/run.sh: libhetla.so needs no MPI library; a LAPACK-only program
#                 runs preloaded with a libmpi on its path whose constructor exits
#   tune          tests/tune/run.sh: break-even sizes learned on the machine for a program's dgetrf_
#                 calls (trials on copies before the first answer, the decision, the cache file a
#                 second process starts from, =off)
#   accuracy-mpi  tests/accuracy/run.sh: every ScaLAPACK routine hetla runs against the reference
#                 ScaLAPACK on the same inputs (well conditioned, condition 1e6-1e14, graded, near
#                 overflow and underflow, zeros, NaN), forced on tiles, 1x2 and 2x2 on the host:
#                 hetla's backward error, residual, inverse residuals and orthogonality within 2x
#                 the reference's (median of 3 seeds; 4x each)
#   backends      tests/backends/run.sh: hetla preloaded into programs linked with OpenBLAS, BLIS
#                 (with the reference LAPACK) and MKL (from PyPI, into target/mkl-venv): it names
#                 the backend and its thread control, the program's thread count is its own after
#                 each call, a spy between hetla and the backend sees every tile kernel at 1
#                 thread, and each backend's learned decisions go to a cache file of its own
#   repeat        tests/repeat/run.sh: identical calls give identical bits with learning on, from an
#                 empty cache: every LAPACK routine hetla runs in all four types, 10 calls each, on
#                 the host and on 2 emulated accelerators, and a second process; p?potrf/p?getrf/
#                 p?geqrf under mpirun (d on 1x2 and 2x2 grids, s/c/z on 1x2), and a second job
#   docs          tests/docs/run.sh: the documentation stays true: every HETLA_* variable the library
#                 reads is in docs/configuration.md and every one there is read; every exported
#                 symbol is in the README's routine table and docs/routines.md; hetla-sim --help,
#                 hetla-run --help and the README's C example run; every path and link they name exists
# Counting: cargo test contributes its own test counts, the shell runners one count per
# [PASS]/[FAIL] line they print, every other step one. A step that cannot run because the build
# failed counts as failed. The last line is `N passed, M failed`; the exit status is non-zero
# when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

LOGS=target/test-logs
mkdir -p "$LOGS"
[ -f "$HOME/.cargo/env" ] && ! command -v cargo >/dev/null 2>&1 && . "$HOME/.cargo/env"
# No terminal in CI; keep cargo's output plain in the logs.
export CARGO_TERM_COLOR=never

total_passed=0
total_failed=0
summary=()
start_all=$(date +%s)

# record STEP PASSED FAILED SECONDS
record() {
    total_passed=$((total_passed + $2))
    total_failed=$((total_failed + $3))
    local verdict=ok
    [ "$3" -gt 0 ] && verdict=FAILED
    summary+=("$(printf '%-21s %-7s %5d passed %4d failed %5ss' "$1" "$verdict" "$2" "$3" "$4")")
    echo "== $1: $verdict ($2 passed, $3 failed, $4s; log $LOGS/$1.log)"
}

# step NAME COMMAND...: runs a command that is one test; passes when it exits 0.
step() {
    local name=$1 t0=$(date +%s)
    shift
    echo "== $name: $*"
    if "$@" >"$LOGS/$name.log" 2>&1 </dev/null; then
        record "$name" 1 0 $(($(date +%s) - t0))
        return 0
    fi
    tail -n 40 "$LOGS/$name.log" | sed 's/^/    | /'
    record "$name" 0 1 $(($(date +%s) - t0))
    return 1
}

# runner NAME SCRIPT: a shell runner that prints [PASS]/[FAIL] lines.
runner() {
    local name=$1 t0=$(date +%s)
    shift
    echo "== $name: $*"
    bash "$@" >"$LOGS/$name.log" 2>&1 </dev/null
    local rc=$?
    grep -E '^\[(PASS|FAIL)\]|^ +\||: [0-9]+ passed' "$LOGS/$name.log" | grep -vE '^\[PASS\]' | sed 's/^/    /'
    local p f
    p=$(grep -c '^\[PASS\]' "$LOGS/$name.log")
    f=$(grep -c '^\[FAIL\]' "$LOGS/$name.log")
    # A runner that failed without saying what (a crash of the script itself) still fails.
    [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
    [ $((p + f)) -eq 0 ] && f=1
    record "$name" "$p" "$f" $(($(date +%s) - t0))
}

finish() {
    echo
    echo "Summary (total $(($(date +%s) - start_all))s):"
    printf '  %s\n' "${summary[@]}"
    echo "$total_passed passed, $total_failed failed"
    [ "$total_failed" -eq 0 ]
    exit
}

if ! step deps bash scripts/deps.sh --lint; then
    echo "scripts/test.sh: the dependencies could not be installed; nothing else can run"
    finish
fi

build_ok=1
step build cargo build --release || build_ok=0

# cargo test: counts from its "test result:" lines; a build failure counts as one failure.
t0=$(date +%s)
echo "== cargo-test: cargo test --release --no-fail-fast"
cargo test --release --no-fail-fast </dev/null >"$LOGS/cargo-test.log" 2>&1
rc=$?
p=$(sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\1/p' "$LOGS/cargo-test.log" | awk '{ s += $1 } END { print s + 0 }')
f=$(sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\2/p' "$LOGS/cargo-test.log" | awk '{ s += $1 } END { print s + 0 }')
if [ $rc -ne 0 ]; then
    grep -E '^test .* FAILED|^error|panicked' "$LOGS/cargo-test.log" | head -n 30 | sed 's/^/    | /'
    [ "$f" -eq 0 ] && f=1
fi
record cargo-test "$p" "$f" $(($(date +%s) - t0))

# The library's unit tests again with every tile call on 1, 2 and 3 emulated accelerators.
# Skipped there: the tests that set their own emulated devices for every case (for_device_setups,
# for_hybrid_setups in src/algo/testutil.rs: `*on_one_two_three_emulated_devices`,
# `every_type_on_emulated_devices`), which ignore HETLA_TEST_EMULATE_GPUS and so would repeat
# cargo-test's run of them exactly; the NRRP and fake-CUDA runs below keep them, since those
# settings do change what they run.
for g in 1 2 3; do
    step "unit-emu$g" env HETLA_TEST_EMULATE_GPUS=$g cargo test --release --lib -- \
        --skip on_one_two_three_emulated_devices --skip every_type_on_emulated_devices
done
# The factorizations' tests on 2 and 3 emulated accelerators with their updates placed by the NRRP
# pattern (HETLA_UPDATE_ALLOC=nrrp; the runs above use the default).
for g in 2 3; do
    step "unit-emu$g-nrrp" env HETLA_TEST_EMULATE_GPUS=$g HETLA_TEST_UPDATE_ALLOC=nrrp cargo test --release --lib -- \
        api:: algo::potrf algo::getrf algo::geqrf
done

# The fake CUDA (tests/fakecuda): the fixture's own tests, then the unit tests on hetla's CUDA
# device over 1 and 2 fake GPUs. Skipped there, because a configuration built in code gets the
# fake GPUs on top of what it names: tests that assert their own device set, memory sizes or cost
# model (listed in tests/gpu/own_devices.txt, which tests/gpu/run.sh skips on a real GPU too;
# they run in cargo-test and unit-emu*).
runner fakecuda-selftest tests/fakecuda/selftest.sh
FAKE=$PWD/target/fakecuda
own_devices=()
while read -r t; do [ -n "$t" ] && [ "${t#\#}" = "$t" ] && own_devices+=("$t"); done <tests/gpu/own_devices.txt
skips=()
for t in "${own_devices[@]}"; do skips+=(--skip "$t"); done
for g in 1 2; do
    step "unit-fakecuda$g" env LD_LIBRARY_PATH="$FAKE" FAKECUDA_DEVICES=$g HETLA_TEST_GPUS=all \
        cargo test --release --lib -- --exact "${skips[@]}"
done

step fmt cargo fmt --check
step clippy cargo clippy --all-targets -- -D warnings
step doc env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps

if [ $build_ok = 1 ]; then
    runner ffi-tests ffi-tests/run.sh
    runner fortran-tests fortran-tests/run.sh
    # The same C and Fortran call sites with every call sent to emulated accelerators.
    HETLA_EMULATE_GPUS=2 HETLA_DEVICE_FORCE=1 runner ffi-tests-emu2 ffi-tests/run.sh
    HETLA_EMULATE_GPUS=3 HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_MEM=64K runner fortran-tests-emu3 fortran-tests/run.sh
    runner bt-tests tests/bt/run.sh
    runner bt-mpi tests/bt/mpi.sh
    runner lapack-suite tests/lapack_suite.sh
    LAPACK_SUITE_TYPES=1 LAPACK_SUITE_FAKECUDA=$FAKE runner lapack-suite-types tests/lapack_suite.sh
    LAPACK_SUITE_BACKENDS=1 runner lapack-suite-backends tests/lapack_suite.sh
    runner fakecuda-sites tests/fakecuda/sites.sh "$FAKE"
    LAPACK_SUITE_FAKECUDA=$FAKE runner lapack-suite-fakecuda tests/lapack_suite.sh
    runner fakecuda-faults tests/fakecuda/faults.sh "$FAKE"
    runner fakecuda-mpi tests/fakecuda/mpi.sh "$FAKE"
    step mpi-tests bash tests/mpi/run.sh
    runner mpi-fortran tests/mpi/fortran.sh
    # 600 s a run: 8 ranks poll 2 cores, and a neighbour's load has made xdlu runs of 5 s take
    # minutes (a CI run on 2026-11-27 killed xdlu with CALU at 120 s, two thirds through, its
    # last calls at normal speed; twelve reruns took 3.6-6.2 s each).
    NP=8 TIMEOUT=600 HETLA_MIN_N=0 HETLA_NB=4 runner scalapack-suite tests/scalapack_suite.sh
    # xdlu with CALU on both layouts: the tournament within one rank (row) and across ranks (grid).
    # The other types' LU with CALU across ranks (grid) and with split panels: xslu, xclu, xzlu.
    NP=8 TIMEOUT=600 HETLA_MIN_N=0 HETLA_NB=4 HETLA_LU=calu GETRF_ALL=pivot=calu TESTERS=xdlu \
        runner scalapack-suite-calu tests/scalapack_suite.sh
    NP=8 TIMEOUT=600 HETLA_MIN_N=0 HETLA_NB=4 HETLA_LU=calu HETLA_DIST_LAYOUT=grid GETRF_ALL=pivot=calu \
        TESTERS="xdlu xslu xclu xzlu" runner scalapack-suite-calu-grid tests/scalapack_suite.sh
    NP=8 TIMEOUT=600 HETLA_MIN_N=0 HETLA_NB=4 HETLA_DIST_LAYOUT=grid HETLA_LU_PANEL=split GETRF_SOME=panel=split \
        TESTERS="xdlu xslu xclu xzlu" runner scalapack-suite-split-grid tests/scalapack_suite.sh
    # Every scratch buffer starts as NaN (the tiles outside a triangle keep stale values, never
    # read): the testers must pass as they do without it.
    # The double testers, and one complex type's Cholesky and LU (the other types' scratch tiles
    # are zero-filled; their shared tile storage is poisoned as f64's).
    NP=4 TIMEOUT=600 HETLA_MIN_N=0 HETLA_NB=4 HETLA_TEST_POISON_SCRATCH=1 \
        TESTERS="xdllt xdlu xdqr xdinv xdls xzllt xzlu" runner scalapack-suite-poison tests/scalapack_suite.sh
    runner sim tests/sim.sh
    runner valgrind tests/valgrind/run.sh
    runner install tests/install.sh
    runner nompi tests/nompi/run.sh
    runner tune tests/tune/run.sh
    runner repeat tests/repeat/run.sh
    runner accuracy-mpi tests/accuracy/run.sh
    runner backends tests/backends/run.sh
    runner docs tests/docs/run.sh
else
    for s in ffi-tests fortran-tests ffi-tests-emu2 fortran-tests-emu3 bt-tests bt-mpi lapack-suite lapack-suite-types lapack-suite-backends fakecuda-sites \
        lapack-suite-fakecuda fakecuda-faults fakecuda-mpi mpi-tests mpi-fortran scalapack-suite \
        scalapack-suite-calu scalapack-suite-calu-grid scalapack-suite-split-grid scalapack-suite-poison sim valgrind \
        install nompi tune repeat accuracy-mpi backends docs; do
        record "$s" 0 1 0
    done
fi

finish
