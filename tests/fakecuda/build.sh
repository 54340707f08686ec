#!/usr/bin/env bash
# tests/fakecuda/build.sh DIR: builds the fake CUDA libraries (libcuda.so, libcublas.so,
# libcusolver.so) into DIR. Test fixture only; see tests/fakecuda/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: build.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
CC=${CC:-gcc}
FLAGS=(-std=gnu11 -O2 -g -fPIC -shared -Wall -Wextra -Werror -fvisibility=hidden -pthread)
"$CC" "${FLAGS[@]}" -Wl,-soname,libcuda.so -o "$dir/libcuda.so" "$here/cuda.c" -ldl -lm
for lib in cublas cusolver; do
    "$CC" "${FLAGS[@]}" -Wl,-soname,lib$lib.so -o "$dir/lib$lib.so" "$here/$lib.c" \
        -L"$dir" -lcuda -Wl,-rpath,'$ORIGIN'
done
