#!/usr/bin/env bash
# The demo's MPI Fortran program (demo/legacy_pdsolver.f: a BLACS grid, PDPOTRF+PDPOTRS,
# PDGETRF+PDGETRS, PDGEQRF with residuals) built twice, as programs are:
#   preload  mpif90 ... -lscalapack-openmpi -llapack -lblas, run with LD_PRELOAD=libhetla.so;
#   linked   mpif90 ... -lhetla -lscalapack-openmpi -llapack -lblas (hetla ahead of ScaLAPACK);
# and run under mpirun on 1, 2, 3 and 4 ranks with the tile path forced (HETLA_MIN_N=0, small
# HETLA_NB, N not a multiple of the caller's block size NB). Each run passes when every residual
# is below 100 with INFO = 0 (the program's residuals are O(1) when right) and every rank's
# PDPOTRF, PDGETRF and PDGEQRF took the tile path (HETLA_VERBOSE=1 lines, one per rank and call).
# Prints [PASS]/[FAIL] lines and `mpi-fortran: N passed, M failed`. Needs cargo build --release.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rel=$root/target/release
lib=$rel/libhetla.so
passed=0
failed=0
pass() { echo "[PASS] mpi-fortran $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] mpi-fortran $1"; failed=$((failed + 1)); }
finish() {
    echo "mpi-fortran: $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
}
[ -f "$lib" ] || { fail "setup: no $lib (cargo build --release)"; finish; }
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$root/demo/legacy_pdsolver.f
if ! mpif90 -O2 "$src" -o "$work/preload" -lscalapack-openmpi -llapack -lblas ||
    ! mpif90 -O2 "$src" -o "$work/linked" -L"$rel" -Wl,-rpath,"$rel" -lhetla \
        -lscalapack-openmpi -llapack -lblas; then
    fail "setup: mpif90 could not build $src"
    finish
fi
if ! ldd "$work/linked" | grep -q libhetla; then
    fail "setup: the relinked program does not load libhetla"
    finish
fi

# run HOW NP N NB HETLA_NB
run() {
    local how=$1 np=$2 n=$3 nb=$4 hnb=$5
    local env=(-x HETLA_MIN_N=0 -x HETLA_NB="$hnb" -x HETLA_VERBOSE=1)
    [ "$how" = preload ] && env+=(-x LD_PRELOAD="$lib")
    local name="$how np=$np n=$n nb=$nb hetla_nb=$hnb" out=$work/out
    timeout -k 10 300 mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        --output-filename "$work/o" -np "$np" "${env[@]}" "$work/$how" "$n" "$nb" \
        >"$out.console" 2>&1 </dev/null
    local rc=$?
    cat "$work/o"/*/rank.0/stdout >"$out" 2>/dev/null
    local why=()
    [ $rc -eq 0 ] || why+=("exit status $rc")
    [ "$(grep -c ' time= .* residual= ' "$out")" = 3 ] || why+=("not three result lines")
    awk '$2 == "time=" && $1 != "TOTAL" && ($5 + 0 > 100 || $5 + 0 < 0 || $7 != 0) { bad = 1 }
         END { exit bad }' "$out" || why+=("a residual or INFO is wrong")
    local r t
    for r in pdpotrf pdgetrf pdgeqrf; do
        t=$(cat "$work/o"/*/rank.*/stderr 2>/dev/null | grep -c "^hetla: $r .*path=tiles")
        [ "$t" = "$np" ] || why+=("$r on tiles on $t of $np ranks")
    done
    if [ ${#why[@]} -eq 0 ]; then
        pass "$name: $(awk '$2 == "time=" && $1 != "TOTAL" { printf "%s%s %s", sep, $1, $5; sep = ", " }' "$out")"
    else
        fail "$name: $(IFS=';'; echo "${why[*]}")"
        tail -n 8 "$out" "$out.console" | sed 's/^/    | /'
    fi
    rm -rf "$work/o"
}

run preload 1 301 32 16
run linked 1 301 32 16
run preload 2 301 32 16
run linked 2 250 25 8
run preload 3 257 16 24
run linked 4 300 20 16
run preload 4 333 32 13
finish
