#!/usr/bin/env bash
# scripts/mkl.sh: prints the directory of Intel MKL's libmkl_rt, installing MKL from PyPI
# (`pip install mkl`, with its OpenMP and TBB runtimes) into a virtual environment at
# target/mkl-venv the first time. MKL_LIB_DIR=dir uses an MKL already on the machine instead.
# Exits non-zero (the pip log in target/mkl-venv.log) when MKL cannot be had. Used by the tests
# and benchmarks that run hetla over MKL (tests/backends, tests/lapack_suite.sh, bench/backends.sh).
set -euo pipefail
if [ -n "${MKL_LIB_DIR:-}" ]; then
    echo "$MKL_LIB_DIR"
    exit 0
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$root/target/mkl-venv
if ! ls "$venv"/lib/libmkl_rt.so.* >/dev/null 2>&1; then
    mkdir -p "$root/target"
    { python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q mkl; } >"$root/target/mkl-venv.log" 2>&1
fi
ls "$venv"/lib/libmkl_rt.so.* >/dev/null 2>&1
echo "$venv/lib"
