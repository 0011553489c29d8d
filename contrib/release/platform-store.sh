#!/bin/sh
# make platform-store: put a static build of this tree's magus for a
# platform into a workspace's platform store, where the relay mounts it
# read-only at /usr/local/lib/magus:
#
#   <cache.dir>/platform/<os>-<arch>/magus/
#
#   contrib/release/platform-store.sh --build-dir DIR [--root WORKSPACE]
#       [--platform OS/ARCH]
#
# The workspace is --root, else MAGUS_ROOT; its cache.dir comes from
# MAGUS_CACHE_DIR, else from `magus config list` (magus.yaml's cache.dir,
# default .magus).  The platform defaults to the host's.  The new build
# is checked, copied beside the old one and exchanged with it in one step
# (renameat2), so the relay never sees a torn build.
set -eu
LC_ALL=C
export LC_ALL

me="platform-store.sh"
die() { echo "$me: $*" >&2; exit 1; }
usage() {
	echo "usage: $me --build-dir DIR [--root WORKSPACE] [--platform OS/ARCH]" >&2
	exit 2
}

build="" root=${MAGUS_ROOT:-} platform=""
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=${2:?}; shift 2 ;;
	--root) root=${2:?}; shift 2 ;;
	--platform) platform=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$build" ] || usage
[ -n "$root" ] || die "name the workspace: make platform-store MAGUS_ROOT=DIR (or --root DIR)"
[ -d "$root" ] || die "workspace '$root' is not a directory"
build=$(cd "$build" && pwd)
root=$(cd "$root" && pwd)
magus=$build/bin-wrappers/magus
tool=$build/contrib/release/magus-release
[ -x "$magus" ] && [ -x "$tool" ] || die "build '$build' first (make)"
[ -n "$platform" ] || platform=linux/$(sed -n 's/^MAGUS_HOST_ARCH = //p' "$build/Makefile")

if [ -n "${MAGUS_CACHE_DIR:-}" ]; then
	cache=$MAGUS_CACHE_DIR
else
	cache=$("$magus" --root "$root" config list | sed -n 's/^[^	]*	cache\.dir=//p')
	[ -n "$cache" ] || die "cannot read cache.dir from 'magus --root $root config list'"
fi
case $cache in
/*) ;;
*) cache=$root/$cache ;;
esac

hash=$(sed -n 's/^const char magus_source_hash\[\] = "\([0-9a-f]*\)";$/\1/p' \
	"$build/magus-source-hash.c")
[ ${#hash} -eq 64 ] || die "no source hash in '$build/magus-source-hash.c' (run make)"
version=$("$magus" --version | sed -n 's/^magus //p')
dirname=$(echo "$platform" | tr / -)
dest=$cache/platform/$dirname/magus

mkdir -p "$cache/platform/$dirname"
tmp=$(mktemp -d "$cache/platform/$dirname/.magus.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$(dirname "$0")/inner-build.sh" --build-dir "$build" --platform "$platform" \
	--out "$tmp/inner" --source-hash "$hash"
"$tool" check -s "$hash" "$tmp/inner" "$platform" "$version" >/dev/null
chmod 755 "$tmp/inner"
"$tool" install "$tmp/inner" "$dest"
echo "$dest"
