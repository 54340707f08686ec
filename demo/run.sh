#!/usr/bin/env bash
# The demo: unmodified legacy Fortran programs, compiled once against the system libraries, run
# as they are and with hetla preloaded (twice: the first run of a hetla build on a machine makes
# its trials, and the demo says what that cost; the second is timed). Nothing in the programs or
# their builds changes.
#   1. demo/legacy_solver.f    LAPACK (DPOSV, DGESV, DGEQRF), built with -llapack -lblas;
#   2. demo/legacy_pdsolver.f  ScaLAPACK over MPI (PDPOTRF/PDPOTRS, PDGETRF/PDGETRS, PDGEQRF) on
#                              a BLACS grid, built with mpif90 ... -lscalapack-openmpi, run under
#                              mpirun -np MPI_NP (default 2).
#
#   demo/run.sh [N [MPI_N]]     (defaults N = 3000, MPI_N = 2000; MPI_NP=... for the rank count)
#
# Assumes the library is built (cargo build --release). Prints the timed runs' times and residuals
# side by side, then hetla's own per-call lines (HETLA_VERBOSE=1), which say which calls ran on
# tiles and which were handed to OpenBLAS or reference ScaLAPACK.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LIB="$ROOT/target/release/libhetla.so"
if [ ! -f "$LIB" ]; then
    echo "demo: $LIB not found; build it first: cargo build --release" >&2
    exit 1
fi
N="${1:-3000}"
MPI_N="${2:-2000}"
MPI_NP="${MPI_NP:-2}"
B=demo/build
mkdir -p "$B"

# compare PLAIN HETLA: the lines `NAME time= T residual= R info= I ...` of two runs, side by side.
compare() {
    awk '
        FNR == 1 { file++ }
        $2 == "time=" { name[$1] = 1; t[file, $1] = $3; r[file, $1] = $5; info[file, $1] = $7
                        if (file == 1) order[++k] = $1 }
        END {
            printf "%-7s %12s %12s %8s   %12s %12s   %s\n", "routine", "time plain", "time hetla",
                   "speedup", "resid plain", "resid hetla", "info plain/hetla"
            for (i = 1; i <= k; i++) {
                s = order[i]; sp = (t[2, s] > 0) ? t[1, s] / t[2, s] : 0
                if (s == "TOTAL") { printf "%-7s %11.4fs %11.4fs %7.2fx\n", s, t[1, s], t[2, s], sp; continue }
                printf "%-7s %11.4fs %11.4fs %7.2fx   %12s %12s   %s/%s\n", s, t[1, s], t[2, s], sp,
                       r[1, s], r[2, s], info[1, s], info[2, s]
            }
        }' "$1" "$2"
}

# learn PREFIX RANKS COMMAND...: runs the hetla side once before it is timed and says what that run
# cost. The first run of a hetla build on a machine decides each call's size class by trial runs
# of both ways on copies of the call's arrays (tiles or the system library: whichever is faster
# here), several runs per call, and keeps the decisions in ~/.cache/hetla
# (HETLA_CACHE_DIR); every later run starts from them and makes no trials. The timed run below
# (run 3) is such a later run; this one (run 2) shows what the first costs.
learn() {
    local prefix=$1 ranks=$2 t0 t1
    shift 2
    t0=$(date +%s.%N)
    "$@" > "$prefix.txt" 2> "$prefix.err"
    t1=$(date +%s.%N)
    local trials
    trials=$(grep -c '^hetla: trial ' "$prefix.err" || true)
    # Every rank prints its own lines.
    awk -v t0="$t0" -v t1="$t1" -v n="$((trials / ranks))" 'BEGIN {
        if (n > 0)
            printf "demo: 2) with hetla, first: %.1f s, the first run of this hetla build on this machine: %d trial runs\n", t1 - t0, n
        else
            printf "demo: 2) with hetla, first: %.1f s, no trials (this machine and build were learned before)\n", t1 - t0
        printf "demo:    (trials run once per machine and hetla build; kept in HETLA_CACHE_DIR, default ~/.cache/hetla)\n"
    }'
}

# check FILE...: residuals are O(1) for a correct result; a wrong answer fails loudly.
check() {
    awk '$2 == "time=" && $1 != "TOTAL" && ($5 + 0 > 100 || $5 + 0 < 0 || $7 != 0) { bad = 1 }
         END { exit bad }' "$@"
}
${FC:-gfortran} -O2 demo/legacy_solver.f -o "$B/legacy_solver" -llapack -lblas

echo "demo: N=$N, $(nproc) cores; the same binary, as built and with hetla"
echo "demo: 1) as built:          $B/legacy_solver $N"
"$B/legacy_solver" "$N" > "$B/plain.txt"
learn "$B/learn" 1 env -u HETLA_MIN_N -u HETLA_DISABLE LD_PRELOAD="$LIB" HETLA_VERBOSE=1 "$B/legacy_solver" "$N"
echo "demo: 3) with hetla, timed: LD_PRELOAD=target/release/libhetla.so HETLA_VERBOSE=1 $B/legacy_solver $N"
env -u HETLA_MIN_N -u HETLA_DISABLE LD_PRELOAD="$LIB" HETLA_VERBOSE=1 \
    "$B/legacy_solver" "$N" > "$B/hetla.txt" 2> "$B/hetla.err"

echo
compare "$B/plain.txt" "$B/hetla.txt"
echo
echo "hetla's lines (stderr of run 3):"
sed 's/^/  /' "$B/hetla.err"
if ! grep -q '^hetla: ' "$B/hetla.err"; then
    echo "demo: hetla printed nothing: it was not preloaded" >&2
    exit 1
fi
check "$B/plain.txt" "$B/hetla.txt" ||
    { echo "demo: a residual or INFO is wrong (see above)" >&2; exit 1; }

# Part 2: the ScaLAPACK program under mpirun, the same binary as built and with hetla.
echo
mpif90 -O2 demo/legacy_pdsolver.f -o "$B/legacy_pdsolver" -lscalapack-openmpi -llapack -lblas
# mpirun refuses root without these; --oversubscribe lets MPI_NP exceed the core count, and
# yielding while idle keeps waiting ranks from spinning on a core another rank needs.
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np "$MPI_NP")
echo "demo: MPI_N=$MPI_N on $MPI_NP ranks; the same binary, as built and with hetla"
echo "demo: 1) as built:          mpirun -np $MPI_NP $B/legacy_pdsolver $MPI_N"
"${MPIRUN[@]}" "$B/legacy_pdsolver" "$MPI_N" > "$B/mpi-plain.txt"
learn "$B/mpi-learn" "$MPI_NP" env -u HETLA_MIN_N -u HETLA_DISABLE -u HETLA_NB "${MPIRUN[@]}" -x LD_PRELOAD="$LIB" \
    -x HETLA_VERBOSE=1 "$B/legacy_pdsolver" "$MPI_N"
echo "demo: 3) with hetla, timed: mpirun -np $MPI_NP -x LD_PRELOAD=target/release/libhetla.so -x HETLA_VERBOSE=1 $B/legacy_pdsolver $MPI_N"
env -u HETLA_MIN_N -u HETLA_DISABLE -u HETLA_NB "${MPIRUN[@]}" -x LD_PRELOAD="$LIB" -x HETLA_VERBOSE=1 \
    "$B/legacy_pdsolver" "$MPI_N" > "$B/mpi-hetla.txt" 2> "$B/mpi-hetla.err"
echo
grep '^LEGACY_PDSOLVER' "$B/mpi-plain.txt" | sed 's/^/  /'
compare "$B/mpi-plain.txt" "$B/mpi-hetla.txt"
echo
echo "hetla's lines (stderr of run 3, every rank):"
sed 's/^/  /' "$B/mpi-hetla.err"
if ! grep -q '^hetla: pd' "$B/mpi-hetla.err"; then
    echo "demo: hetla printed nothing for the MPI program: it was not preloaded" >&2
    exit 1
fi
check "$B/mpi-plain.txt" "$B/mpi-hetla.txt" ||
    { echo "demo: a residual or INFO of the MPI program is wrong (see above)" >&2; exit 1; }
