#!/usr/bin/env bash
# tests/gpu/kit.sh [DIR]: everything tests/gpu/run.sh and bench/gpu.sh need on a GPU machine that
# has no Rust toolchain and no Debian LAPACK (the lent GPU machines of this project have CUDA and
# a compiler, nothing else): built here, copied into DIR (default target/gpu-kit), stripped.
#   lib/   libhetla.so, the Debian OpenBLAS LAPACK/BLAS it forwards to, libgfortran, libtmglib
#   bin/   hetla-unit (the library's unit tests), driver and cusolver_ref (bench/)
#   lapack/ xlintstd and dtest.in (LAPACK's test suite, package liblapack-test)
set -euo pipefail
cd "$(dirname "$0")/../.."
KIT=${1:-target/gpu-kit}
rm -rf "$KIT"
mkdir -p "$KIT/lib" "$KIT/bin" "$KIT/lapack"
cargo build --release
unit=$(cargo test --release --lib --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$unit" ] || { echo "kit.sh: the unit-test binary was not found" >&2; exit 1; }
BENCH_SKIP_CARGO=1 bash bench/build.sh
${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra bench/cusolver_ref.c -ldl -o bench/out/cusolver_ref
strip -o "$KIT/lib/libhetla.so" target/release/libhetla.so
strip -o "$KIT/bin/hetla-unit" "$unit"
cp bench/out/driver bench/out/cusolver_ref "$KIT/bin/"
multi=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
for l in liblapack.so.3 libblas.so.3 libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libtmglib.so.3; do
    cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l { print $NF; exit }')" "$KIT/lib/$l"
done
ln -sf liblapack.so.3 "$KIT/lib/liblapack.so"
ln -sf libblas.so.3 "$KIT/lib/libblas.so"
cp "/usr/lib/$multi/lapack/xlintstd" "/usr/lib/$multi/lapack/dtest.in" "$KIT/lapack/"
du -sh "$KIT"
