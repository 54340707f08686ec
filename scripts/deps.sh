#!/usr/bin/env bash
# scripts/deps.sh: install what hetla's build, tests and benchmarks need on a Debian machine.
#
# Idempotent: packages already installed are left alone, and when every package is present the
# script does not touch apt at all (so it also works offline). Otherwise it runs `apt-get update`
# first, then installs the missing packages non-interactively. It uses sudo only when not root.
# Finally it checks that a Rust toolchain is on PATH, with rustfmt and clippy when called with
# --lint (scripts/test.sh does; the demo does not need them). It does not install
# a toolchain: rustup downloads are outside what Debian packages provide.
set -euo pipefail

PACKAGES=(
    gcc g++ libc6-dev gfortran pkg-config binutils patchelf valgrind
    libopenblas-dev liblapack-dev liblapack-test libblas3 libblis-pthread-dev python3-venv
    openmpi-bin libopenmpi-dev libscalapack-openmpi-dev scalapack-mpi-test
    python3-matplotlib
)

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
else
    SUDO=(sudo)
fi

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -q
    "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    echo "deps: all ${#PACKAGES[@]} Debian packages present"
fi

# The Rust toolchain: cargo, plus (with --lint, as scripts/test.sh asks) the rustfmt and clippy
# components that the test command runs. The demo needs only cargo.
if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "deps: no Rust toolchain found (cargo not on PATH); install one with rustup" >&2
    exit 1
fi
for sub in fmt clippy; do
    [ "${1:-}" = --lint ] || break
    if ! cargo "$sub" --version >/dev/null 2>&1; then
        echo "deps: 'cargo $sub' is missing; add it with: rustup component add ${sub/fmt/rustfmt}" >&2
        exit 1
    fi
done
echo "deps: $(cargo --version)"
