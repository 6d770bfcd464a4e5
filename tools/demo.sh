#!/bin/sh
# demo.sh: the main job.  Installs what is missing, builds, and runs the DSM
# on several local nodes, printing a table of results.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
sh "$SRC/tools/build.sh"
exec sh "$SRC/benchmarks/micro/run.sh" "$SRC/build"
