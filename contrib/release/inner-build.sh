#!/bin/sh
# Build the inner magus (bin/magus and the INNER_HELPERS, statically
# linked) for one platform, from the sources of a configured build tree.
#
#   contrib/release/inner-build.sh --build-dir DIR --platform OS/ARCH \
#       --out DIR [--source-hash SHA256] [--sources DISTDIR]
#
# The sources are copied with `make distdir` (or from DISTDIR, a copy made
# that way already) into a private directory and
# configured there with --enable-static-programs (and --host=TRIPLET for
# another architecture: Debian's cross compiler and the -dev packages of
# that architecture, see README.md), then `make inner-build` lays out the
# result.  Build paths are mapped away (-ffile-prefix-map) and nothing
# records a time, so the same sources give the same bytes.  The source
# hash written into BUILD-INFO defaults to that of the copy; platform-store
# passes the one the build tree's own programs were compiled with.
set -eu
LC_ALL=C
export LC_ALL

me=inner-build.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() {
	echo "usage: $me --build-dir DIR --platform OS/ARCH --out DIR [--source-hash SHA256] [--sources DISTDIR]" >&2
	exit 2
}

build="" platform="" out="" hash="" sources=""
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=${2:?}; shift 2 ;;
	--platform) platform=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--source-hash) hash=${2:?}; shift 2 ;;
	--sources) sources=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$build" ] && [ -n "$platform" ] && [ -n "$out" ] || usage
[ -f "$build/Makefile" ] || die "'$build' is not a configured magus build tree"
build=$(cd "$build" && pwd)

host_arch=$(sed -n 's/^MAGUS_HOST_ARCH = //p' "$build/Makefile")
case $platform in
linux/amd64) triplet=x86_64-linux-gnu ;;
linux/arm64) triplet=aarch64-linux-gnu ;;
*) die "no inner build for '$platform' (linux/amd64 and linux/arm64 are built)" ;;
esac
hostflag=""
if [ "linux/$host_arch" != "$platform" ]; then
	command -v "$triplet-gcc" >/dev/null 2>&1 ||
		die "no cross compiler '$triplet-gcc' for $platform (see README.md, 'The arm64 build')"
	hostflag="--host=$triplet"
	PKG_CONFIG_LIBDIR=/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig
	PKG_CONFIG_PATH=""
	export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH
fi

# A make that runs this script must not hand its job server down.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES || true

work=$(mktemp -d "${TMPDIR:-/tmp}/magus-inner.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/build.log

# A private copy: the source tree may itself be configured in place.
if [ -n "$sources" ]; then
	cp -R "$sources" "$work/src"
else
	make -s -C "$build" distdir distdir="$work/src" >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "cannot copy the sources (make distdir)"; }
fi
cd "$work/src"
# shellcheck disable=SC2086 # hostflag is one word or none
./configure $hostflag --enable-static-programs --prefix=/usr/local/lib/magus \
	CFLAGS="-O2 -g0 -ffile-prefix-map=$work=/magus-build" >>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; die "configure failed for $platform (log above)"; }
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" inner-build INNER_DIR="$work/inner" INNER_SOURCE_HASH="$hash" \
	>>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; die "make inner-build failed for $platform (log above)"; }

grep "^inner-build: helper" "$log" >&2 || true
rm -rf "$out.tmp.$$"
mkdir -p "$(dirname "$out")"
cp -R "$work/inner" "$out.tmp.$$"
rm -rf "$out"
mv "$out.tmp.$$" "$out"
