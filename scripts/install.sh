#!/usr/bin/env bash
# scripts/install.sh: installs hetla under a prefix.
#
#   bash scripts/install.sh --prefix DIR      (default prefix: /usr/local)
#
# Builds the release library when it is missing or older than the sources, then installs
#   DIR/lib/libhetla.so.0          stripped, SONAME libhetla.so.0
#   DIR/lib/libhetla.so            link to it (for -lhetla)
#   DIR/include/hetla.h            the C/C++ header
#   DIR/lib/pkgconfig/hetla.pc     `pkg-config --cflags --libs hetla`: -I, -L, an rpath and -lhetla
#                                  (put the system LAPACK/ScaLAPACK after it: hetla forwards to them)
#   DIR/bin/hetla-run              runs a command with hetla preloaded: `hetla-run ./prog`,
#                                  `hetla-run mpirun -np 4 ./prog` (`hetla-run --help`)
# Needs: cargo (for the build), strip (binutils), patchelf.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
while [ $# -gt 0 ]; do
    case "$1" in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for tool in strip patchelf; do
    command -v "$tool" >/dev/null || { echo "install.sh: $tool is missing (Debian: apt-get install binutils patchelf)" >&2; exit 1; }
done

lib=target/release/libhetla.so
if [ ! -f "$lib" ] || [ -n "$(find src include Cargo.toml build.rs -newer "$lib" -print -quit)" ]; then
    [ -f "$HOME/.cargo/env" ] && ! command -v cargo >/dev/null && . "$HOME/.cargo/env"
    cargo build --release
fi
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)

mkdir -p "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/bin"
prefix=$(cd "$prefix" && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cp "$lib" "$tmp"
strip --strip-debug "$tmp"
patchelf --set-soname libhetla.so.0 "$tmp"
install -m 755 "$tmp" "$prefix/lib/libhetla.so.0"
ln -sf libhetla.so.0 "$prefix/lib/libhetla.so"
install -m 644 include/hetla.h "$prefix/include/hetla.h"

cat >"$prefix/lib/pkgconfig/hetla.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: hetla
Description: LAPACK and ScaLAPACK factorizations as tile algorithms on every core, GPU and MPI rank
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lhetla
EOF

cat >"$prefix/bin/hetla-run" <<EOF
#!/bin/sh
# Runs a command with hetla preloaded (installed by hetla's scripts/install.sh). Under a local
# mpirun the ranks inherit the setting: hetla-run mpirun -np 4 ./prog
usage() {
    cat <<'USAGE'
hetla-run: run a command with hetla preloaded, the program unchanged.

usage: hetla-run COMMAND [ARGS...]
       hetla-run -h | --help

The command, and every process it starts, loads hetla ahead of the libraries it was linked
with: its LAPACK and ScaLAPACK calls that hetla runs (dpotrf, dgetrf, dgeqrf, ...) go to hetla's
tile algorithms on every core and GPU, and every other call to the system's LAPACK as before.
Under a local mpirun every rank inherits it. An LD_PRELOAD already set is kept, after hetla.

examples:
  hetla-run ./my_solver
  hetla-run mpirun -np 4 ./my_pd_solver
  HETLA_VERBOSE=1 hetla-run ./my_solver    one line per call on stderr: path, time, GFLOP/s

Settings are HETLA_* environment variables (docs/configuration.md in hetla's sources).
USAGE
}
case "\${1:-}" in
-h | --help) usage; exit 0 ;;
"") usage >&2; exit 2 ;;
esac
LD_PRELOAD="$prefix/lib/libhetla.so.0\${LD_PRELOAD:+:\$LD_PRELOAD}"
export LD_PRELOAD
exec "\$@"
EOF
chmod 755 "$prefix/bin/hetla-run"

echo "hetla $version installed under $prefix:"
echo "  $prefix/lib/libhetla.so.0 ($(du -h "$prefix/lib/libhetla.so.0" | cut -f1)), include/hetla.h, lib/pkgconfig/hetla.pc, bin/hetla-run"
echo "  relink:  cc prog.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs hetla) -llapack"
echo "  preload: $prefix/bin/hetla-run ./prog"
