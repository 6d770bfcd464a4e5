#!/bin/sh
# build.sh: installs what is missing, then configures and builds ompdsm in
# ./build (out of tree).  Re-running rebuilds only what changed.
#   tools/build.sh [extra configure options...]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
sh "$SRC/tools/install-deps.sh"
cd "$SRC"
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure --quiet "$@"
make -s -j"$(nproc)" all
make -s -j"$(nproc)" check TESTS= >/dev/null
