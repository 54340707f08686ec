#!/usr/bin/env bash
# The README's first command: from a fresh Debian machine to the demo.
#   1. installs the Debian packages hetla needs (scripts/deps.sh),
#   2. builds libhetla.so (cargo build --release),
#   3. runs an unmodified legacy Fortran program twice, with the system LAPACK and with hetla
#      preloaded, and prints both times and residuals (demo/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# A toolchain installed by rustup is found by deps.sh through ~/.cargo/env; use it here too.
[ -f "$HOME/.cargo/env" ] && ! command -v cargo >/dev/null 2>&1 && . "$HOME/.cargo/env"
cargo build --release
bash demo/run.sh "$@"
