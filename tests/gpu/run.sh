#!/usr/bin/env bash
# tests/gpu/run.sh [KIT]: hetla's CUDA paths on a machine with a real NVIDIA GPU, from the kit that
# tests/gpu/kit.sh built (default target/gpu-kit; the GPU machine needs no Rust toolchain).
# Not part of scripts/test.sh: CI has no GPU. Steps, each under its own time limit:
#   env     the GPU, the driver and where the CUDA libraries are (added to LD_LIBRARY_PATH)
#   smoke   one verbose dpotrf/dgetrf/dgeqrf of n = 3000 on the GPU (HETLA_HOST_SHARE=0), checked
#           against OpenBLAS by bench/out/driver
#   unit    the library's unit tests with every configuration on the GPUs (HETLA_TEST_GPUS=all),
#           less the tests that assert their own device set (as scripts/test.sh skips them)
#   ffi     ffi-tests/run.sh (C call sites; needs gcc there), every tile call on the GPU
#   bench   bench/gpu.sh from the kit's programs (BENCH_PREBUILT=1): cpu, gpu, cpu+gpu, auto,
#           OpenBLAS and cuSOLVER GFLOP/s at GPU_BENCH_SIZES (default 4000: on the H100, the four
#           modes at 8000 did not fit in four minutes), 3 samples each
#   trace   HETLA_TRACE of one dgetrf and one dgeqrf of n = 4000 forced on the GPU:
#           target/gpu-run/trace-ROUTINE.json, where the time goes (chrome://tracing, Perfetto)
#   solver  the whole-call solver way on the GPU: the library's solver_tests with the GPU
#           (HETLA_TEST_GPUS=all), and dpotrf, dgetrf, dgeqrf of n = 3000 with HETLA_SOLVER=force
#           checked against OpenBLAS by bench/out/driver, each line `path=solver dev=cuda0`
#   nb      the device tile B swept (GPU_NB_LIST, default "256 384 512"): dpotrf, dgetrf, dgeqrf at
#           GPU_NB_SIZES (default 4000 8000) forced on the GPU with HETLA_DEVICE_NB=B, 2 samples
#           each against OpenBLAS: target/gpu-run/nb-B.csv and a table (not in the default steps)
#   lapack  tests/lapack_suite.sh with LAPACK_SUITE_CUDA=1: xlintstd with every call on tiles,
#           on the host and on the GPU
# GPU_STEPS picks steps (default "smoke bench trace unit lapack ffi"). A failed smoke stops the run (the
# later steps would not be on the GPU). GPU_DEADLINE_S (default 900) bounds the whole run: each
# step's time limit is cut to what is left of it, and a step with under 30 s left is not started,
# so a lease of a few minutes ends with every log written. Logs under target/gpu-run/.
# On an AVX-512 CPU without OPENBLAS_CORETYPE, SkylakeX is set: Debian's OpenBLAS 0.3.21 took the
# H100 machine's "Intel(R) Xeon(R) Processor" for a Prescott (DGEMM 103 GFLOP/s on 16 cores, 583
# with SkylakeX), which would make OpenBLAS, and hetla's host kernels, look far slower than they are.
set -uo pipefail
cd "$(dirname "$0")/../.."
KIT=$(cd "${1:-target/gpu-kit}" && pwd)
LOGS=target/gpu-run
mkdir -p "$LOGS" target/release bench/out
# A new file renamed over the old one: a process that has the old one mapped keeps it (copying
# over it in place crashed a test suite running from it with SIGBUS).
cp "$KIT/lib/libhetla.so" target/release/.libhetla.so.kit && mv -f target/release/.libhetla.so.kit target/release/libhetla.so
cp "$KIT/bin/driver" "$KIT/bin/cusolver_ref" bench/out/
STEPS=${GPU_STEPS:-smoke bench trace unit lapack ffi}
END=$(($(date +%s) + ${GPU_DEADLINE_S:-900}))
limit() { # SECONDS: that, or what is left of the deadline when less
    local left=$((END - $(date +%s)))
    [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}

echo "== env"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4
# The toolkit's folders first, then the driver's, then pip's nvidia-* wheels (deep under /opt).
cudirs=$({ find /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/nvidia/lib64 /usr/lib \
    -maxdepth 7 \( -name 'libcublas.so*' -o -name 'libcusolver.so*' -o -name 'libcuda.so*' \) 2>/dev/null
    find /opt -maxdepth 11 \( -name 'libcublas.so*' -o -name 'libcusolver.so*' \) 2>/dev/null; } |
    xargs -r -n1 dirname | grep -v '/stubs$' | awk '!seen[$0]++' | paste -sd: -)
echo "CUDA library folders: $cudirs"
export LD_LIBRARY_PATH="$KIT/lib${cudirs:+:$cudirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "gcc: $(command -v gcc || echo missing); cores: $(nproc)"
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -q -m1 avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset, OpenBLAS detects the CPU}"
unset HETLA_VERBOSE HETLA_TRACE HETLA_EMULATE_GPUS HETLA_HOST_SHARE HETLA_NB HETLA_MIN_N

passed=0
failed=0
result() { # NAME RC
    if [ "$2" -eq 0 ]; then echo "[PASS] gpu $1"; passed=$((passed + 1)); else echo "[FAIL] gpu $1 (exit $2)"; failed=$((failed + 1)); fi
}
for s in $STEPS; do
    t0=$(date +%s)
    if [ $((END - t0)) -lt 30 ]; then
        echo "[SKIP] gpu $s: under 30 s left of GPU_DEADLINE_S"
        continue
    fi
    case $s in
    smoke)
        HETLA_VERBOSE=1 HETLA_MIN_N=0 HETLA_GPUS=all HETLA_DEVICE_FORCE=1 HETLA_HOST_SHARE=0 BENCH_WARM=0 timeout "$(limit 120)" \
            bench/out/driver --routines dpotrf,dgetrf,dgeqrf --sizes 3000 --reps 1 --out "$LOGS/smoke.csv" \
            >"$LOGS/smoke.log" 2>&1
        rc=$?
        grep -E '^hetla: (cuda|no CUDA|no usable)|panick' "$LOGS/smoke.log" | sort -u | head -n 6
        cat "$LOGS/smoke.csv" 2>/dev/null
        for r in dpotrf dgetrf dgeqrf; do # each routine ran, and on the GPU
            line=$(grep "^hetla: $r " "$LOGS/smoke.log" | tail -n 1)
            echo "${line:-hetla: $r: no line}" | cut -c1-220
            [ "$rc" -eq 0 ] && ! echo "$line" | grep -q 'dev=cuda0' && rc=3
        done
        grep -q panicked "$LOGS/smoke.log" && rc=4
        result smoke "$rc"
        if [ "$rc" -ne 0 ]; then
            tail -n 20 "$LOGS/smoke.log"
            echo "gpu: the smoke step failed, so the later steps would not run on the GPU; stopping"
            break
        fi
        ;;
    bench)
        BENCH_PREBUILT=1 BENCH_SIZES="${GPU_BENCH_SIZES:-4000}" BENCH_REPS=${BENCH_REPS:-3} \
            BENCH_WARM=${BENCH_WARM:-2} timeout "$(limit 240)" bash bench/gpu.sh >"$LOGS/bench.log" 2>&1
        rc=$?
        tail -n 16 "$LOGS/bench.log"
        result bench "$rc"
        ;;
    trace)
        rc=0
        for r in dgetrf dgeqrf; do
            HETLA_TRACE="$LOGS/trace-$r.json" HETLA_VERBOSE=1 HETLA_MIN_N=0 HETLA_GPUS=all HETLA_HOST_SHARE=0 HETLA_DEVICE_FORCE=1 \
                BENCH_WARM=0 timeout "$(limit 60)" bench/out/driver --routines $r --sizes 4000 --reps 1 \
                --out "$LOGS/trace-$r.csv" >"$LOGS/trace-$r.log" 2>&1 || rc=$?
            line=$(grep "^hetla: $r .*n=4000" "$LOGS/trace-$r.log" | tail -n 1)
            echo "${line:-hetla: $r: no line}" | cut -c1-220
            [ -s "$LOGS/trace-$r.json" ] || rc=5
            echo "$line" | grep -q 'dev=cuda0' || rc=3
        done
        result trace "$rc"
        ;;
    unit)
        skips=()
        while read -r t; do [ -n "$t" ] && [ "${t#\#}" = "$t" ] && skips+=(--skip "$t"); done <tests/gpu/own_devices.txt
        HETLA_TEST_GPUS=all timeout "$(limit 200)" "$KIT/bin/hetla-unit" --exact "${skips[@]}" >"$LOGS/unit.log" 2>&1
        rc=$?
        grep -E '^test result|FAILED|panicked' "$LOGS/unit.log" | head -n 30
        result unit "$rc"
        ;;
    ffi)
        HETLA_GPUS=all HETLA_DEVICE_FORCE=1 HETLA_DEVICE_NB=16 HETLA_HOST_SHARE=0 FFI_TIMEOUT=60 \
            FFI_RSS_N=480 FFI_RSS_CALLS=120 LIBRARY_PATH="$KIT/lib" timeout "$(limit 200)" bash ffi-tests/run.sh >"$LOGS/ffi.log" 2>&1
        rc=$?
        grep -E '^\[FAIL\]|^ffi-tests:' "$LOGS/ffi.log" | head -n 30
        cat ffi-tests/build/logs/*.err 2>/dev/null | grep -m 3 -E 'dev=cuda0' | cut -c1-200
        result ffi "$rc"
        ;;
    solver)
        HETLA_TEST_GPUS=all timeout "$(limit 60)" "$KIT/bin/hetla-unit" solver_tests >"$LOGS/solver-unit.log" 2>&1
        rc=$?
        grep -E '^test result|FAILED|panicked' "$LOGS/solver-unit.log" | head -n 10
        HETLA_VERBOSE=1 HETLA_MIN_N=0 HETLA_GPUS=all HETLA_SOLVER=force BENCH_WARM=0 timeout "$(limit 90)" \
            bench/out/driver --routines dpotrf,dgetrf,dgeqrf --sizes 3000 --reps 2 --out "$LOGS/solver.csv" \
            >"$LOGS/solver.log" 2>&1 || rc=$?
        cat "$LOGS/solver.csv" 2>/dev/null
        for r in dpotrf dgetrf dgeqrf; do
            line=$(grep "^hetla: $r .*n=3000" "$LOGS/solver.log" | tail -n 1)
            echo "${line:-hetla: $r: no line}" | cut -c1-200
            echo "$line" | grep -q 'path=solver dev=cuda0' || rc=3
        done
        result solver "$rc"
        ;;
    nb)
        rc=0
        echo "| B | routine | n | gpu GFLOP/s | OpenBLAS GFLOP/s |"
        for b in ${GPU_NB_LIST:-256 384 512}; do
            HETLA_MIN_N=0 HETLA_GPUS=all HETLA_DEVICE_FORCE=1 HETLA_HOST_SHARE=0 HETLA_DEVICE_NB=$b \
                timeout "$(limit 120)" bench/out/driver --routines dpotrf,dgetrf,dgeqrf \
                --sizes "$(echo ${GPU_NB_SIZES:-4000 8000} | tr ' ' ,)" --reps 2 --warm 1 --dgemm-n 0 \
                --out "$LOGS/nb-$b.csv" >"$LOGS/nb-$b.log" 2>&1 || rc=$?
            awk -F, -v b="$b" 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", b, $1, $2, $9, $10 }' "$LOGS/nb-$b.csv" 2>/dev/null
        done
        result nb "$rc"
        ;;
    lapack)
        LAPACK_TEST_DIR="$KIT/lapack" LAPACK_SUITE_CUDA=1 HETLA_DEVICE_NB=16 HETLA_HOST_SHARE=0 \
            LAPACK_SUITE_TIMEOUT=100 timeout "$(limit 220)" bash tests/lapack_suite.sh >"$LOGS/lapack.log" 2>&1
        rc=$?
        grep -E '^\[FAIL\]|^lapack-suite:|    \|' "$LOGS/lapack.log" | head -n 40
        result lapack "$rc"
        ;;
    *) echo "unknown step $s"; result "$s" 1 ;;
    esac
    echo "== $s took $(($(date +%s) - t0)) s"
done
echo "gpu: $passed passed, $failed failed"
[ $failed -eq 0 ]
