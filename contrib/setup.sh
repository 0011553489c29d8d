#!/bin/sh
# Set up a fresh Debian 12 machine to build magus, and build it.
#
#   ./contrib/setup.sh [CONFIGURE-ARGS...]
#
# Installs the Debian packages the build and the tests need (idempotent;
# through sudo when not root), then runs autoreconf, configure and make in
# the source tree.  Afterwards bin-wrappers/magus runs magus uninstalled.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

packages=$(sed -e 's/#.*//' "$top/contrib/debian-packages.txt" | tr -s ' \n' ' ')

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "setup: need root (or sudo) to install: $packages" >&2
		exit 1
	fi
}

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # word splitting is wanted
	if ! as_root apt-get install -y --no-install-recommends $missing; then
		as_root apt-get update
		# shellcheck disable=SC2086
		as_root apt-get install -y --no-install-recommends $missing
	fi
fi

# On amd64, the arm64 cross build too (README.md, "The arm64 build"): its
# packages are of another dpkg architecture, which must be added first.
cross_list=$top/contrib/debian-packages-arm64.txt
if [ -f "$cross_list" ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	cross=$(sed -e 's/#.*//' "$cross_list" | tr -s ' \n' ' ')
	missing=""
	for p in $cross; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "setup: installing (arm64 cross build):$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			as_root dpkg --add-architecture arm64
			as_root apt-get update
		fi
		# shellcheck disable=SC2086 # word splitting is wanted
		if ! as_root apt-get install -y --no-install-recommends $missing; then
			as_root apt-get update
			# shellcheck disable=SC2086
			as_root apt-get install -y --no-install-recommends $missing
		fi
	fi
fi

if [ ! -x configure ] || [ -n "$(find configure.ac Makefile.am -newer configure)" ]; then
	autoreconf -fi
fi
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	./configure "$@"
fi
make -j"$(nproc)"
