#!/usr/bin/env bash
# GPU benchmark, for a machine with an NVIDIA GPU and its driver (libcuda) plus cuBLAS/cuSOLVER
# libraries (no CUDA toolkit or headers needed). Run three times so far (two H100s, one H200) through
# tests/gpu/run.sh (bench/results/gpu.md); on a machine without a GPU it stops at once with a
# message saying what is missing.
#
#   bench/gpu.sh                          dpotrf, dgetrf, dgeqrf at n = 2000 4000 8000 12000
#   BENCH_SIZES="4000 8000" bench/gpu.sh  other sizes (BENCH_ROUTINES likewise)
#
# For each routine and size, GFLOP/s side by side (medians of bench/out/driver's repetitions,
# the whole LAPACK call including hetla's copies to and from the GPU):
#   cpu        hetla with HETLA_GPUS=none (every core, no device)
#   gpu        hetla with HETLA_HOST_SHARE=0 (every device-capable tile column on the GPUs)
#   cpu+gpu    hetla with the host share from measured rates (the hybrid of seeds 000/001)
#   auto       hetla as a user gets it: no HETLA_MIN_N, the learner from an empty cache (its
#              trials are the driver's warm-up calls, GPU_AUTO_WARM = 18: twelve, and up to four
#              more where two ways are close), and the way it settled on: tiles (with the
#              GPUs), tiles:host (the CPU alone), solver (whole on cuSOLVER) or forward:learned
#              ("mixed": still trying)
#   openblas   the backend alone (from the cpu run)
#   cusolver   cuSOLVER alone on GPU 0: end to end (copy in, factor, copy out), and device-resident
# GPU_MODES picks hetla's modes (default "cpu gpu hybrid auto"; OpenBLAS comes with each), and
# GPU_CUSOLVER=0 leaves cuSOLVER out: e.g. GPU_MODES=auto GPU_CUSOLVER=0 BENCH_SIZES=8000 for the
# learner alone at a size where the four modes do not fit a lease.
# Writes bench/out/gpu.csv and bench/out/gpu.md (the table), and prints the table.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# ---- is there a GPU? --------------------------------------------------------------------------
have_lib() { ldconfig -p 2>/dev/null | grep -q "$1" || [ -n "$(find $(echo "${LD_LIBRARY_PATH:-}" | tr : " ") /usr/local/cuda*/lib64 -maxdepth 1 -name "$1*" 2>/dev/null | head -n1)" ]; }
missing=()
have_lib libcuda.so || missing+=("libcuda (the NVIDIA driver)")
have_lib libcublas.so || missing+=("libcublas")
have_lib libcusolver.so || missing+=("libcusolver")
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench/gpu.sh: no usable NVIDIA GPU here: missing ${missing[*]}." >&2
    echo "bench/gpu.sh: run it on a GPU machine (driver + CUDA 11/12/13 libraries); nothing was measured." >&2
    exit 2
fi
if command -v nvidia-smi >/dev/null 2>&1 && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "bench/gpu.sh: nvidia-smi finds no GPU; nothing was measured." >&2
    exit 2
fi

# ---- build ------------------------------------------------------------------------------------
# BENCH_PREBUILT=1 uses bench/out/driver and bench/out/cusolver_ref as they are (built on another
# machine of the same architecture; libhetla.so then comes from LD_LIBRARY_PATH).
if [ "${BENCH_PREBUILT:-0}" != 1 ]; then
    bench/build.sh
    ${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra bench/cusolver_ref.c -ldl -o bench/out/cusolver_ref
fi
OUT=bench/out
ROUTINES=${BENCH_ROUTINES:-dpotrf,dgetrf,dgeqrf}
SIZES=${BENCH_SIZES:-2000 4000 8000 12000}
unset HETLA_VERBOSE HETLA_TRACE HETLA_EMULATE_GPUS HETLA_HOST_SHARE
export HETLA_MIN_N=0

# The devices must really be used: one verbose call per mode, its dev= field shown.
# One call forced onto the GPUs (HETLA_DEVICE_FORCE: the cost model may rightly keep a call on the
# host, which would prove nothing here).
echo "== devices seen by hetla"
seen=$(HETLA_VERBOSE=1 HETLA_GPUS=all HETLA_DEVICE_FORCE=1 HETLA_HOST_SHARE=0 BENCH_WARM=0 bench/out/driver --routines dpotrf \
    --sizes 4000 --reps 1 --out /dev/null 2>&1 || true)
echo "$seen" | grep -E '^hetla: (cuda|no CUDA|no usable|dpotrf .*dev=)' | sort -u | head -n 8 || true
if ! echo "$seen" | grep -q 'dev=cuda'; then
    echo "bench/gpu.sh: hetla did not use a CUDA device (see the lines above); the gpu columns would be CPU figures, stopping." >&2
    exit 3
fi

MODES=${GPU_MODES:-cpu gpu hybrid auto}
run_mode() { # MODE ENV...: driver CSV for this mode (a header alone when GPU_MODES leaves it out)
    local mode=$1
    shift
    if ! echo " $MODES " | grep -q " $mode "; then
        echo "routine,n,nb,path" >"$OUT/gpu_$mode.csv"
        return
    fi
    env "$@" bench/out/driver --routines "$ROUTINES" --sizes "$(echo $SIZES | tr ' ' ',')" --out "$OUT/gpu_$mode.csv"
}
run_mode cpu HETLA_GPUS=none
run_mode gpu HETLA_GPUS=all HETLA_HOST_SHARE=0
run_mode hybrid HETLA_GPUS=all
auto_cache=$(mktemp -d)
run_mode auto -u HETLA_MIN_N HETLA_GPUS=all HETLA_CACHE_DIR="$auto_cache" BENCH_WARM="${GPU_AUTO_WARM:-18}"
rm -rf "$auto_cache"

: > "$OUT/gpu_cusolver.csv"
if [ "${GPU_CUSOLVER:-1}" = 1 ]; then
    for r in $(echo "$ROUTINES" | tr ',' ' '); do
        for n in $SIZES; do
            bench/out/cusolver_ref "$r" "$n" 3 >> "$OUT/gpu_cusolver.csv" || echo "$r,$n,nan,nan,nan,nan,fail" >> "$OUT/gpu_cusolver.csv"
        done
    done
fi

# ---- table ------------------------------------------------------------------------------------
# driver CSV: routine,n,nb,path,reps,batch,hetla_median_s,openblas_median_s,hetla_gflops,
#             openblas_gflops,...,check (last column)
awk -F, -v out="$OUT/gpu.csv" '
    BEGIN { mode[1] = "cpu"; mode[2] = "gpu"; mode[3] = "cpu+gpu"; mode[4] = "auto" }
    FNR == 1 { file++ }
    file <= 4 && FNR > 1 {
        k = $1 "," $2; g[file, k] = $9
        if ($NF != "ok") chk[k] = chk[k] " " mode[file] ":" $NF
        if (!(k in ob)) { ob[k] = $10; keys[++nk] = k }
        if (file == 4) way[k] = $4
    }
    file == 5 { k = $1 "," $2; cst[k] = $5; csd[k] = $6 }
    END {
        print "routine,n,cpu_gflops,gpu_gflops,hybrid_gflops,auto_gflops,auto_path,openblas_gflops,cusolver_total_gflops,cusolver_device_gflops,check" > out
        printf "| routine | n | cpu | gpu | cpu+gpu | auto | auto path | OpenBLAS | cuSOLVER (with copies) | cuSOLVER (on device) | checks |\n"
        printf "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|\n"
        for (i = 1; i <= nk; i++) {
            k = keys[i]; split(k, p, ",")
            c = (chk[k] == "") ? "ok" : chk[k]
            print k "," g[1, k] "," g[2, k] "," g[3, k] "," g[4, k] "," way[k] "," ob[k] "," cst[k] "," csd[k] "," c > out
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], g[1, k], g[2, k], g[3, k], g[4, k], way[k], ob[k], cst[k], csd[k], c
        }
    }' "$OUT/gpu_cpu.csv" "$OUT/gpu_gpu.csv" "$OUT/gpu_hybrid.csv" "$OUT/gpu_auto.csv" "$OUT/gpu_cusolver.csv" | tee "$OUT/gpu.md"
{
    echo
    echo "GFLOP/s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || echo 'GPU name unknown'),"
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} | tee -a "$OUT/gpu.md"
echo "bench/gpu.sh: wrote $OUT/gpu.csv and $OUT/gpu.md"
