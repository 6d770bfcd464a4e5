#!/bin/sh
# build.sh: installs what is missing, then configures and builds ompdsm out
# of tree, in ./build by default.  Re-running rebuilds only what changed.
#   tools/build.sh [--dir DIR] [extra configure options...]
# DIR is relative to the source tree; configure options apply when DIR is
# configured for the first time (e.g. --dir build-san --enable-sanitizers),
# always with --enable-werror (the builds CI makes fail on a new warning),
# or when DIR was configured with other options (then it is rebuilt).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
DIR=build
if [ "${1:-}" = --dir ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--dir DIR] [configure options...]" >&2; exit 2; }
    DIR=$2
    shift 2
fi
sh "$SRC/tools/install-deps.sh"
cd "$SRC"
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p "$DIR"
cd "$DIR"
set -- --enable-werror "$@"
if [ -f Makefile ] && [ "$(./config.status --config)" != "$*" ]; then
    make -s clean
    rm Makefile
fi
[ -f Makefile ] || "$SRC/configure" --quiet "$@"
make -s -j"$(nproc)" all
make -s -j"$(nproc)" check TESTS= >/dev/null
