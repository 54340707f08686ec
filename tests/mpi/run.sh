#!/usr/bin/env bash
# Builds tests/mpi/pdpotrf_test.c, pdgetrf_test.c, pdgeqrf_test.c, pdpotrs_test.c (with pdposv),
# pdgetrs_test.c (with pdgesv), pdinv_test.c (pdtrtri, pdpotri, pdgetri) and pdq_test.c
# (pdorgqr, pdormqr), and ptyped_test.c once per other element type (pstyped, pctyped, pztyped:
# p?potrf/potrs/posv, p?getrf/getrs/gesv, p?geqrf, p?orgqr/ungqr, p?ormqr/unmqr, p?trtri,
# p?potri, p?getri), twice each (reference ScaLAPACK only, for LD_PRELOAD; and
# relinked with -lhetla ahead of -lscalapack-openmpi) and runs
# them under mpirun -np 1..4 on row- and column-major grids and on subgrid contexts, with the tile
# path forced (HETLA_MIN_N=0, tiny HETLA_NB so tiles are smaller than, equal to and unaligned with
# the caller's blocks), plus pdgetrf with 2-row tiles on 4×1 and 2×2 grids, gathered and split
# panels.
# Exit status 1 on any failure. Needs `cargo build --release` first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rel=$root/target/release
lib=$rel/libhetla.so
[ -f "$lib" ] || { echo "no $lib: run cargo build --release first" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The routines whose verbose lines each test program's tile calls are counted by.
routines() {
    case $1 in
    pdinv) echo 'pd(trtri|potri|getri)' ;;
    pdq) echo 'pdor(gqr|mqr)' ;;
    p[scz]typed) echo "p${1:1:1}(potrf|potrs|posv|getrf|getrs|gesv|geqrf|orgqr|ungqr|ormqr|unmqr|trtri|potri|getri)" ;;
    *) echo "$1" ;;
    esac
}
for t in pdpotrf pdgetrf pdgeqrf pdpotrs pdgetrs pdinv pdq; do
    mpicc -O1 -o "$work/$t.preload" "$root/tests/mpi/${t}_test.c" -lscalapack-openmpi -lm -ldl
    mpicc -O1 -o "$work/$t.linked" "$root/tests/mpi/${t}_test.c" -L"$rel" -Wl,-rpath,"$rel" -lhetla \
        -lscalapack-openmpi -lm -ldl
done
for x in s c z; do
    t=p${x}typed
    def=-DTYPE_${x^^}
    mpicc -O1 "$def" -o "$work/$t.preload" "$root/tests/mpi/ptyped_test.c" -lscalapack-openmpi -lm -ldl
    mpicc -O1 "$def" -o "$work/$t.linked" "$root/tests/mpi/ptyped_test.c" -L"$rel" -Wl,-rpath,"$rel" -lhetla \
        -lscalapack-openmpi -lm -ldl
done

status=0
conv_shared=0
conv_a2a=0
in_place=0
run() { # routine np nb how args...
    local t=$1 np=$2 nb=$3 how=$4
    shift 4
    local env=(-x HETLA_MIN_N=0 -x HETLA_NB="$nb" -x HETLA_VERBOSE=1)
    # EMU=k: k emulated accelerators per rank (EMU_MEM: their capacity), which must run tasks.
    [ -n "${EMU:-}" ] && env+=(-x HETLA_EMULATE_GPUS="$EMU" -x HETLA_EMULATE_GPU_MEM="${EMU_MEM:-64M}")
    # LAYOUT=grid|row: the distributed LU's and QR's tile layout (HETLA_DIST_LAYOUT), which their
    # verbose lines must then name.
    [ -n "${LAYOUT:-}" ] && env+=(-x HETLA_DIST_LAYOUT="$LAYOUT")
    # PANEL=split|gather: where the 2-D LU factors panels on several process rows
    # (HETLA_LU_PANEL), which its verbose lines must then name.
    [ -n "${PANEL:-}" ] && env+=(-x HETLA_LU_PANEL="$PANEL")
    # ROUND=v: conversions move at most v values per rank and Alltoallv (HETLA_TEST_ROUND_VALUES),
    # so that they take several rounds as problems beyond 2³¹ values per rank do.
    [ -n "${ROUND:-}" ] && env+=(-x HETLA_TEST_ROUND_VALUES="$ROUND")
    # POISON=1: every scratch buffer starts as NaN (HETLA_TEST_POISON_SCRATCH), so a stale value
    # read anywhere (the tiles outside a triangle are not zero-filled) fails the check.
    [ -n "${POISON:-}" ] && env+=(-x HETLA_TEST_POISON_SCRATCH=1)
    # SHARED=never: conversions go through MPI_Alltoallv and tiles travel as messages (what ranks
    # on several nodes get) instead of through the tile storage the ranks of one node share
    # (HETLA_TEST_SHARED).
    [ -n "${SHARED:-}" ] && env+=(-x HETLA_TEST_SHARED="$SHARED")
    # KEEP=bytes: the bound on memory kept between calls (HETLA_KEEP_MEMORY); 0 frees the shared
    # tile storage and the other ranks' mappings of it after every call.
    [ -n "${KEEP:-}" ] && env+=(-x HETLA_KEEP_MEMORY="$KEEP")
    local exe=$work/$t.linked
    [ "$how" = preload ] && { env+=(-x LD_PRELOAD="$lib"); exe=$work/$t.preload; }
    local out
    out=$(timeout 300 mpirun --oversubscribe -np "$np" "${env[@]}" "$exe" "$@" 2>&1) || true
    local summary tiles
    summary=$(grep -E "^${t}_test:" <<<"$out" || echo "no summary")
    tiles=$(grep -cE "hetla: $(routines "$t") .*path=tiles" <<<"$out" || true)
    local devtasks=""
    [ -n "${EMU:-}" ] && devtasks=" (emu$EMU ${EMU_MEM:-64M}: $(grep -c "dev=emu.*tasks=[1-9]" <<<"$out" || true) calls with device tasks, $(grep -c "evict=[1-9]" <<<"$out" || true) with evictions)"
    printf '%s np=%s nb=%-2s %-7s grid %-9s%s %s (tile calls: %s)%s\n' "$t" "$np" "$nb" "$how" "$*" \
        "${LAYOUT:+ layout=$LAYOUT}${PANEL:+ panel=$PANEL}${POISON:+ poisoned}${SHARED:+ shared=$SHARED}${KEEP:+ keep=$KEEP}" "$summary" "$tiles" "$devtasks"
    if ! grep -q ' 0 failures' <<<"$summary" || [ "$tiles" = 0 ]; then
        status=1
        grep FAIL <<<"$out" | head -5 >&2 || true
    fi
    if [ -n "${LAYOUT:-}" ] && grep -E "hetla: p[sdcz]ge(trf|qrf) .*path=tiles" <<<"$out" | grep -qv "layout=$LAYOUT"; then
        echo "  a pdgetrf/pdgeqrf call did not use layout=$LAYOUT" >&2
        status=1
    fi
    if [ -n "${PANEL:-}" ] && grep -E "hetla: pdgetrf .*path=tiles" <<<"$out" | grep -v "grid=1x" |
        grep -qv "panel=${PANEL/gather/gathered}"; then
        echo "  a pdgetrf call did not use panel=$PANEL" >&2
        status=1
    fi
    # Conversions between ranks (all on this node): through the shared tile storage, unless
    # SHARED=never, and then through MPI_Alltoallv (one rank alone converts through it too).
    local shared a2as
    shared=$(grep -c "conv=shared" <<<"$out" || true)
    a2as=$(grep -c "conv=alltoallv" <<<"$out" || true)
    if [ "${SHARED:-}" = never ] && [ "$shared" != 0 ]; then
        echo "  $shared conversions through shared storage with HETLA_TEST_SHARED=never" >&2
        status=1
    elif [ "${SHARED:-}" != never ] && [ "$np" != 1 ] && [ "$a2as" != 0 ]; then
        echo "  $a2as conversions through MPI_Alltoallv on one node" >&2
        status=1
    fi
    conv_shared=$((conv_shared + shared))
    conv_a2a=$((conv_a2a + a2as))
    # Tiles the task graphs read in place in their owner's shared storage (notices instead of
    # messages): none without shared storage.
    local read
    read=$({ grep -oE "tiles_in_place=[0-9]+" <<<"$out" || true; } | awk -F= '{ s += $2 } END { print s + 0 }')
    if [ "${SHARED:-}" = never ] && [ "$read" != 0 ]; then
        echo "  $read tiles read in place with HETLA_TEST_SHARED=never" >&2
        status=1
    fi
    in_place=$((in_place + read))
    if [ -n "${EMU:-}" ] && ! grep -q "dev=emu.*tasks=[1-9]" <<<"$out"; then
        echo "  no task ran on the emulated devices" >&2
        status=1
    fi
}
for t in pdpotrf pdgetrf pdgeqrf pdpotrs pdgetrs pdinv pdq; do
    run $t 1 3 preload R 1 1
    run $t 2 3 preload R 1 2
    run $t 2 8 linked C 2 1
    run $t 3 5 preload C 1 3
    run $t 4 3 preload R 2 2
    run $t 4 4 linked C 2 2
    run $t 4 3 preload R 1 2 1
    run $t 4 5 linked C 2 1 1
done
# The other element types: every routine on one rank, on 2-D grids of both orders, a subgrid,
# the 2-D LU and QR (layout=grid: gathered panels, the rows that cross process rows), and
# conversions and tiles through MPI_Alltoallv and messages.
for t in pstyped pctyped pztyped; do
    run $t 1 3 preload R 1 1
    run $t 2 8 linked C 2 1
    run $t 4 3 preload R 2 2
    run $t 3 5 linked C 1 3
    run $t 4 5 linked C 2 1 1
    LAYOUT=grid run $t 4 3 preload R 2 2
    SHARED=never run $t 4 3 linked C 2 2
done
# The distributed Cholesky with emulated accelerators on every rank (its TRSM/SYRK/GEMM tasks
# carry device kernels): ample memory, and 16K so that tiles are evicted and written back.
EMU=2 run pdpotrf 4 3 preload R 2 2
EMU=1 EMU_MEM=16K run pdpotrf 2 4 linked C 1 2
# The other types' routines with emulated accelerators on every rank: their tasks' device kernels
# in single and complex arithmetic, the LU's interchanges reading each type's pivot buffers.
EMU=2 run pztyped 4 3 preload R 2 2
EMU=1 EMU_MEM=16K run pctyped 2 4 linked C 1 2
EMU=1 run pstyped 2 5 linked R 2 1
# QR on 2-D tiles (layout=grid, what grids of more than 8 ranks get): several process rows per
# tile column (partial sums Vᵀ·C reduced across process rows), tiles of 2, tall and wide sub(A)
# (the test's shapes include 40×25, 25×40 and 2×9); then whole tile columns over the ranks.
LAYOUT=grid run pdgeqrf 4 2 linked C 4 1
LAYOUT=grid run pdgeqrf 4 2 preload R 2 2
LAYOUT=grid run pdgeqrf 2 8 linked C 2 1
LAYOUT=row run pdgeqrf 4 2 linked C 4 1
LAYOUT=row run pdgeqrf 4 2 preload R 2 2
run pdgeqrf 4 3 linked R 1 4
# The LU deals whole tile columns over all ranks by default on these grids (layout=row); the
# 2-D LU (layout=grid, what larger grids get) with pivots crossing process rows at almost every
# column: 2-row tiles, 4×1 and 2×2, and the solvers on it; then the row layout on the same grids.
LAYOUT=grid run pdgetrf 4 2 preload R 4 1
LAYOUT=grid run pdgetrf 4 2 linked C 2 2
LAYOUT=grid run pdgetrf 2 8 linked C 2 1
LAYOUT=grid run pdgetrf 4 3 preload R 2 2
LAYOUT=grid run pdgetrs 4 3 preload R 2 2
LAYOUT=grid run pdgetrs 4 5 linked C 2 1 1
LAYOUT=row run pdgetrf 4 2 preload R 4 1
LAYOUT=row run pdgetrf 4 2 linked C 2 2
# The 2-D LU with its panels factored where their rows are (one exchange of pivot candidates per
# column), tiles narrower and wider than the panel's 32-column blocks, and the solver on it.
LAYOUT=grid PANEL=split run pdgetrf 4 2 preload R 4 1
LAYOUT=grid PANEL=split run pdgetrf 4 3 linked C 2 2
LAYOUT=grid PANEL=split run pdgetrf 2 40 linked C 2 1
LAYOUT=grid PANEL=split run pdgetrs 4 5 linked C 2 1 1

# Every rank writes each stderr line in one piece (one write): with mpirun -np 4 and every call
# verbose, each rank's own stderr (mpirun --output-filename: one file per rank, so mpirun's
# merging of the streams does not enter) holds only whole hetla lines.
for t in pdpotrf pdgetrs; do
    of=$work/lines.$t
    timeout 300 mpirun --oversubscribe -np 4 --output-filename "$of" -x HETLA_MIN_N=0 -x HETLA_NB=3 \
        -x HETLA_VERBOSE=1 "$work/$t.linked" R 2 2 >/dev/null 2>&1 || true
    files=$(find "$of" -name stderr | wc -l)
    total=$(cat "$of"/*/rank.*/stderr 2>/dev/null | grep -c "hetla:" || true)
    bad=$(cat "$of"/*/rank.*/stderr 2>/dev/null | grep "hetla:" | grep -E '^.+hetla:|hetla:.*hetla:|^hetla:[^ ]' || true)
    printf '%s np=4 verbose lines: %s rank files, %s hetla lines, %s not whole\n' "$t" "$files" "$total" \
        "$(grep -c . <<<"$bad" || true)"
    if [ "$files" != 4 ] || [ "$total" -lt 100 ] || [ -n "$bad" ]; then
        status=1
        head -3 <<<"$bad" >&2
    fi
done

# Scratch storage poisoned with NaN: the triangle routines (their tiles outside the triangle
# keep stale values), the full-matrix ones, and conversions that need no network.
for t in pdpotrf pdpotrs pdinv pdgetrf pdgeqrf pdq; do
    POISON=1 run $t 4 3 preload R 2 2
    POISON=1 run $t 2 5 linked C 1 2
done
POISON=1 EMU=1 EMU_MEM=16K run pdpotrf 2 4 linked C 1 2

# Shared tile storage freed after every call (and the mappings of it), so each call makes its
# regions and mappings anew; PDORMQR's two matrices take two regions at once.
KEEP=0 run pdpotrf 4 3 preload R 2 2
KEEP=0 run pdq 2 5 linked C 2 1
KEEP=0 POISON=1 run pdgetrf 3 4 linked C 3 1

# Conversions through MPI_Alltoallv (what ranks on several nodes get; on one node the ranks
# share their tile storage), and in rounds of at most 100 values per rank (the path of very
# large problems).
for t in pdpotrf pdpotrs pdinv pdgetrf pdgetrs pdgeqrf pdq; do
    SHARED=never run $t 4 3 preload R 2 2
    SHARED=never run $t 2 5 linked C 1 2
    SHARED=never run $t 3 4 linked C 3 1
done
SHARED=never POISON=1 run pdpotrf 4 3 preload R 2 2
SHARED=never run pdpotrf 4 5 linked C 2 1 1
SHARED=never run pdgeqrf 4 3 preload R 1 2 1
SHARED=never LAYOUT=grid run pdgetrf 4 2 linked C 2 2
SHARED=never ROUND=100 run pdpotrf 4 3 preload R 2 2
SHARED=never ROUND=100 run pdgetrf 4 3 linked C 2 2
SHARED=never ROUND=100 run pdgeqrf 2 8 preload R 2 1
SHARED=never ROUND=100 run pdgetrs 4 5 linked C 2 1 1

# Ranks whose environments disagree (rank 0 runs tiles of 3 on one thread, rank 1 would forward
# every call and use tiles of 5 on two threads): process (0, 0)'s decisions are the grid's, so
# every call runs on tiles of 3 on both ranks and nothing hangs (each run under the same timeout).
for t in pdpotrf pdgetrf pdgeqrf pdpotrs pdgetrs pdinv pdq; do
    exe=$work/$t.linked
    out=$(timeout 300 mpirun --oversubscribe -np 1 -x HETLA_MIN_N=0 -x HETLA_NB=3 -x HETLA_NUM_THREADS=1 \
        -x HETLA_VERBOSE=1 "$exe" R 1 2 : -np 1 -x HETLA_MIN_N=1000000 -x HETLA_NB=5 -x HETLA_NUM_THREADS=2 \
        -x HETLA_VERBOSE=1 "$exe" R 1 2 2>&1) || true
    summary=$(grep -E "^${t}_test:" <<<"$out" || echo "no summary")
    tiles=$(grep -cE "hetla: $(routines "$t") .*path=tiles" <<<"$out" || true)
    # (PDGETRS forwards calls whose IPIV is not a permutation of sub(A)'s rows, on every rank:
    # that is decided from the data, not the environment.)
    fwd=$(grep -E "hetla: $(routines "$t") .*path=forward" <<<"$out" | grep -cv "reason=pivot" || true)
    printf '%s np=2 disagreeing environments grid R 1 2 %s (tile calls: %s, forwarded: %s)\n' "$t" "$summary" "$tiles" "$fwd"
    if ! grep -q ' 0 failures' <<<"$summary" || [ "$tiles" = 0 ] || [ "$fwd" != 0 ]; then
        status=1
        grep FAIL <<<"$out" | head -5 >&2 || true
    fi
done

# Ranks disagreeing on the LU's layout and panel: rank 0 (split panels on a 2-D layout) decides.
out=$(timeout 300 mpirun --oversubscribe -np 1 -x HETLA_MIN_N=0 -x HETLA_NB=3 -x HETLA_DIST_LAYOUT=grid \
    -x HETLA_LU_PANEL=split -x HETLA_VERBOSE=1 "$work/pdgetrf.linked" C 2 1 : -np 1 -x HETLA_MIN_N=0 \
    -x HETLA_NB=3 -x HETLA_DIST_LAYOUT=row -x HETLA_LU_PANEL=gather -x HETLA_VERBOSE=1 \
    "$work/pdgetrf.linked" C 2 1 2>&1) || true
summary=$(grep -E "^pdgetrf_test:" <<<"$out" || echo "no summary")
split=$(grep -E "hetla: pdgetrf .*path=tiles" <<<"$out" | grep -v "grid=1x" | grep -c "layout=grid .*panel=split" || true)
other=$(grep -E "hetla: pdgetrf .*path=tiles" <<<"$out" | grep -v "grid=1x" | grep -cv "layout=grid .*panel=split" || true)
printf 'pdgetrf np=2 disagreeing layout and panel grid C 2 1 %s (split calls: %s, others: %s)\n' "$summary" "$split" "$other"
if ! grep -q ' 0 failures' <<<"$summary" || [ "$split" = 0 ] || [ "$other" != 0 ]; then
    status=1
    grep FAIL <<<"$out" | head -5 >&2 || true
fi

# An internal failure on one rank (HETLA_TEST_FAULT=1: rank 1's first task of every distributed
# call fails) ends the job with one clear line and a non-zero status within 30 s, on a 1×2 and a
# 2×1 grid: never a hang with rank 0 waiting for messages that will not come.
for t in pdpotrf pdgetrf pdgeqrf pdgetrs; do
    for grid in "R 1 2" "C 2 1"; do
        exe=$work/$t.linked
        t0=$(date +%s)
        # shellcheck disable=SC2086 # the grid is three words
        rc=0
        out=$(timeout 60 mpirun --oversubscribe -np 2 -x HETLA_MIN_N=0 -x HETLA_NB=3 -x HETLA_TEST_FAULT=1 \
            "$exe" $grid 2>&1) || rc=$?
        secs=$(($(date +%s) - t0))
        lines=$(grep -cE "^hetla: $t failed on rank 1: .*HETLA_TEST_FAULT.*; aborting$" <<<"$out" || true)
        printf '%s np=2 HETLA_TEST_FAULT=1 grid %s: exit %s after %ss, abort lines: %s\n' "$t" "$grid" "$rc" "$secs" "$lines"
        if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ "$secs" -gt 30 ] || [ "$lines" != 1 ]; then
            status=1
            tail -n 5 <<<"$out" >&2
        fi
    done
done
echo "conversions between ranks: $conv_shared through shared tile storage, $conv_a2a through MPI_Alltoallv"
echo "tiles read in place in another rank's storage: $in_place"
if [ "$in_place" = 0 ]; then
    echo "no tile was read in place on one node" >&2
    status=1
fi
exit $status
