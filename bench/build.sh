#!/usr/bin/env bash
# Builds libhetla (release) and the benchmark driver. Sourced or run by the other bench scripts.
# The driver is linked with -lhetla ahead of -llapack, as a relinked application would be, so
# its LAPACK calls reach hetla; OpenBLAS's own symbols are taken at run time from a copy loaded
# with dlmopen into a namespace of its own (see the comment at the top of driver.c).
# Set BENCH_SKIP_CARGO=1 to reuse an existing target/release/libhetla.so.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "${BENCH_SKIP_CARGO:-0}" != 1 ]; then
    cargo build --release
fi
mkdir -p bench/out
${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra -Iinclude bench/driver.c \
    -L"$ROOT/target/release" -Wl,--no-as-needed -Wl,-rpath,"$ROOT/target/release" \
    -lhetla -llapack -lblas -lm -ldl -o bench/out/driver
