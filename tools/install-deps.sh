#!/bin/sh
# install-deps.sh: installs the Debian packages ompdsm needs to build, test
# and benchmark.  Safe to run again: packages already present are skipped
# without touching the network.  Needs root (or sudo).
set -eu
PKGS="gcc make autoconf automake libtool pkg-config libucx-dev ucx-utils
      libpmix-dev openmpi-bin libopenmpi-dev procps iproute2 gnuplot-nox"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing:$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
