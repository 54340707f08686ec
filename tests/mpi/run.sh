#!/usr/bin/env bash
# Builds tests/mpi/pdpotrf_test.c twice (reference ScaLAPACK only, for LD_PRELOAD; and relinked
# with -lhetla ahead of -lscalapack-openmpi) and runs it under mpirun -np 1..4 on row- and
# column-major grids and on subgrid contexts, with the tile path forced (HETLA_MIN_N=0, tiny
# HETLA_NB so tiles are smaller than, equal to and unaligned with the caller's blocks).
# Exit status 1 on any failure. Needs `cargo build --release` first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rel=$root/target/release
lib=$rel/libhetla.so
[ -f "$lib" ] || { echo "no $lib: run cargo build --release first" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O1 -o "$work/preload" "$root/tests/mpi/pdpotrf_test.c" -lscalapack-openmpi -lm -ldl
mpicc -O1 -o "$work/linked" "$root/tests/mpi/pdpotrf_test.c" -L"$rel" -Wl,-rpath,"$rel" -lhetla -lscalapack-openmpi -lm -ldl

status=0
run() { # np nb how args...
    local np=$1 nb=$2 how=$3
    shift 3
    local env=(-x HETLA_MIN_N=0 -x HETLA_NB="$nb" -x HETLA_VERBOSE=1)
    local exe=$work/linked
    [ "$how" = preload ] && { env+=(-x LD_PRELOAD="$lib"); exe=$work/preload; }
    local out
    out=$(timeout 300 mpirun --oversubscribe -np "$np" "${env[@]}" "$exe" "$@" 2>&1) || true
    local summary tiles
    summary=$(grep -E '^pdpotrf_test:' <<<"$out" || echo "no summary")
    tiles=$(grep -c 'path=tiles' <<<"$out" || true)
    printf 'np=%s nb=%-2s %-7s grid %-9s %s (tile calls: %s)\n' "$np" "$nb" "$how" "$*" "$summary" "$tiles"
    if ! grep -q ' 0 failures' <<<"$summary" || [ "$tiles" = 0 ]; then
        status=1
        grep FAIL <<<"$out" | head -5 >&2 || true
    fi
}
run 1 3 preload R 1 1
run 2 3 preload R 1 2
run 2 8 linked C 2 1
run 3 5 preload C 1 3
run 4 3 preload R 2 2
run 4 4 linked C 2 2
run 4 3 preload R 1 2 1
run 4 5 linked C 2 1 1
exit $status
