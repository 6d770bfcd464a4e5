#!/bin/sh
# check.sh: the test command.  Installs what is missing, builds, and runs
# every test; the last line is "N passed, N failed".
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
sh "$SRC/tools/build.sh"
exec sh "$SRC/tests/run-tests.sh" "$SRC/build"
