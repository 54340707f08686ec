#!/usr/bin/env bash
# tests/fakecuda/selftest.sh: tests of the fake CUDA itself.
#
# Builds the fake libraries into target/fakecuda and selftest.c against them, then runs each case
# of selftest.c. `ok`, `factor` and `oom` (correct use) must exit 0 with no `fakecuda:` line
# (`factor`: cuSOLVER's LU and QR equal to the host LAPACK's, INFO > 0 of a singular LU); every other
# case makes one mistake and must end in an abort (exit status 134) with exactly one line
# `fakecuda: violation: ...` on stderr naming what went wrong:
#   pitch        a 2-D copy whose destination pitch runs past the allocation
#   nosync       a cuBLAS call whose stream does not wait for the copies in (no event wait)
#   freed        a device pointer used after cuMemFree
#   wrongstream  the copies' event is waited for on one stream, the handle runs on another
#   unpinned     an async copy from pageable host memory
#   freebusy     cuMemFree of a buffer that a queued copy still writes
#   nocontext    a driver call with no context current on the thread
#   batchptr     a batched GEMM whose pointer array holds a row past the end of its matrix
#   getrfwork    cusolverDnDgetrf with a workspace one element smaller than its bufferSize
#   nullipiv     cusolverDnDgetrf with a NULL devIpiv (no pivoting: never what hetla means)
#   geqrflwork   cusolverDnDgeqrf with an Lwork one element below its bufferSize
# Each case also runs several times (the streams' random delays differ from run to run): a
# violation must be found every time, since it is found from the order of the calls, not from
# timing. Prints [PASS]/[FAIL] lines and `fakecuda-selftest: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."

DIR=target/fakecuda
BUILD=target/fakecuda-selftest
mkdir -p "$BUILD"
passed=0
failed=0
pass() { echo "[PASS] fakecuda-selftest $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] fakecuda-selftest $1"; failed=$((failed + 1)); }
finish() {
    echo "fakecuda-selftest: $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
}

if ! bash tests/fakecuda/build.sh "$DIR" >"$BUILD/build.log" 2>&1; then
    fail "build: tests/fakecuda/build.sh failed:"
    sed 's/^/    | /' "$BUILD/build.log"
    finish
fi
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -o "$BUILD/selftest" tests/fakecuda/selftest.c \
    -L"$DIR" -lcuda -lcublas -lcusolver -Wl,-rpath,"$PWD/$DIR" -lm -ldl >"$BUILD/cc.log" 2>&1; then
    fail "build: selftest.c does not compile:"
    sed 's/^/    | /' "$BUILD/cc.log"
    finish
fi

# run CASE: exit status in $rc, stderr in $BUILD/CASE.err
run() {
    # In a subshell whose own stderr is dropped: bash's "Aborted" notice is not the test's.
    (timeout 60 "$BUILD/selftest" "$1" >"$BUILD/$1.out" 2>"$BUILD/$1.err"; exit $?) 2>/dev/null
    rc=$?
}

for c in ok factor oom; do
    for i in 1 2 3; do
        run $c
        if [ $rc -ne 0 ] || grep -q '^fakecuda:' "$BUILD/$c.err"; then
            fail "$c (run $i): correct use must pass without a report (exit $rc):"
            sed 's/^/    | /' "$BUILD/$c.err"
            continue 2
        fi
    done
    pass "$c: correct use passes, three runs ($(cat "$BUILD/$c.out"))"
done

expect() {
    local c=$1 pattern=$2 i lines
    for i in 1 2 3 4 5; do
        run "$c"
        lines=$(grep -c '^fakecuda: violation: ' "$BUILD/$c.err")
        if [ $rc -ne 134 ] || [ "$lines" -ne 1 ] || ! grep -q "^fakecuda: violation: .*$pattern" "$BUILD/$c.err"; then
            fail "$c (run $i): expected one violation matching '$pattern' and an abort; exit $rc, stderr:"
            sed 's/^/    | /' "$BUILD/$c.err"
            return
        fi
    done
    pass "$c: reported in 5 of 5 runs: $(grep '^fakecuda: violation: ' "$BUILD/$c.err" | cut -c1-160)"
}

expect pitch 'destination: device bytes .* are not inside one live allocation (it starts in allocation'
expect nosync 'race: cublasDgemm_v2 (A, read) on stream 1 .* cuMemcpyHtoDAsync_v2 (destination, write) queued on stream 0'
expect freed 'cuMemsetD8Async: destination: .*(it lies in a freed allocation'
expect wrongstream 'race: cublasDgemm_v2 (A, read) on stream 2 .* queued on stream 0'
expect unpinned 'cuMemcpyHtoDAsync_v2: source: host bytes .* are not pinned memory'
expect freebusy 'cuMemFree_v2: allocation .* is still used by cuMemcpyHtoDAsync_v2'
expect nocontext 'cuMemsetD8Async: no context is current on this thread'
expect batchptr 'cublasDgemmBatched: Barray\[i\]: device bytes .* are not inside one live allocation'
expect getrfwork 'cusolverDnDgetrf: Workspace (of the size cusolverDnDgetrf_bufferSize gave): device bytes .* are not inside one live allocation (it starts in allocation .* but runs past its end)'
expect nullipiv 'cusolverDnDgetrf: devIpiv is NULL'
expect geqrflwork 'cusolverDnDgeqrf: workspace of [0-9]* elements < the [0-9]* cusolverDnDgeqrf_bufferSize asked for'

finish
