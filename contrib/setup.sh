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

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "setup: need root (or sudo) to install: $*" >&2
		exit 1
	fi
}

# The packages of LIST-FILE (comments and blank lines aside) that are not
# installed.
missing_of() {
	missing=""
	for p in $(sed -e 's/#.*//' "$1" | tr -s ' \n' ' '); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	printf '%s' "$missing"
}

# apt_install WHAT PACKAGES...: apt-get install, once more after an update
# when the package lists are stale.
apt_install() {
	what=$1
	shift
	echo "setup: installing$what:" "$@" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! as_root apt-get install -y --no-install-recommends "$@"; then
		as_root apt-get update
		as_root apt-get install -y --no-install-recommends "$@"
	fi
}

missing=$(missing_of "$top/contrib/debian-packages.txt")
# shellcheck disable=SC2086 # word splitting is wanted
[ -z "$missing" ] || apt_install "" $missing

# On amd64, the arm64 cross build too (README.md, "The arm64 build"): its
# packages are of another dpkg architecture, which must be added first.
cross_list=$top/contrib/debian-packages-arm64.txt
if [ -f "$cross_list" ] && [ "$(dpkg --print-architecture)" = amd64 ]; then
	missing=$(missing_of "$cross_list")
	if [ -n "$missing" ]; then
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			as_root dpkg --add-architecture arm64
			as_root apt-get update
		fi
		# shellcheck disable=SC2086
		apt_install " (arm64 cross build)" $missing
	fi
fi

if [ ! -x configure ] || [ -n "$(find configure.ac Makefile.am -newer configure)" ]; then
	autoreconf -fi
fi
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
	./configure "$@"
fi
make -j"$(nproc)"
