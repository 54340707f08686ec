#!/usr/bin/env bash
# Legacy-style workspace: DGETRI, DORGQR, DORMQR with LWORK = N through hetla and through
# OpenBLAS alone, interleaved, medians (bench/workspace.c). `N=4000 REPS=3 bench/workspace.sh`;
# writes bench/out/workspace.csv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bench/build.sh
${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra -Iinclude bench/workspace.c -L"$ROOT/target/release" -Wl,--no-as-needed \
    -Wl,-rpath,"$ROOT/target/release" -lhetla -llapack -lblas -lm -ldl -o bench/out/workspace
unset HETLA_VERBOSE HETLA_TRACE
bench/out/workspace "${N:-4000}" "${REPS:-3}" | tee bench/out/workspace.csv
