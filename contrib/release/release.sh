#!/bin/sh
# make release: build the static release tarballs, write the release
# index and sign it (README.md, "Releases").
#
#   contrib/release/release.sh --build-dir DIR --key SECKEY --out DIR
#       [--pubkey PUBKEY] [--base-url URL] [--previous-index FILE]
#       [--platform OS/ARCH]...
#
# For each platform (default linux/amd64, plus linux/arm64 when Debian's
# aarch64 cross toolchain is installed) it writes
# magus-<version>-<os>-<arch>.tar.gz into --out; then index.json (the
# previous index's versions kept, this version's artifacts added) and
# index.json.minisig, signed in minisign's format with SECKEY (a minisign
# secret key without a password, `magus-release keygen`).  URLs in the
# index are --base-url followed by the file name, or the bare file name
# (resolved against the index's own URL) without it.  With --pubkey the
# signature is verified before the script ends.
#
# Reproducible: the tarballs depend on the sources and SOURCE_DATE_EPOCH
# only (default: the time of the last git commit).
set -eu
LC_ALL=C
export LC_ALL

me=release.sh
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "$me: $*" >&2; exit 1; }
usage() {
	echo "usage: $me --build-dir DIR --key SECKEY --out DIR [--pubkey PUBKEY]" >&2
	echo "       [--base-url URL] [--previous-index FILE] [--platform OS/ARCH]..." >&2
	exit 2
}

build="" key="" out="" pub="" base="" previous="" platforms=""
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=${2:?}; shift 2 ;;
	--key) key=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--pubkey) pub=${2:?}; shift 2 ;;
	--base-url) base=${2:?}; shift 2 ;;
	--previous-index) previous=${2:?}; shift 2 ;;
	--platform) platforms="$platforms ${2:?}"; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$build" ] && [ -n "$key" ] && [ -n "$out" ] || usage
build=$(cd "$build" && pwd)
tool=$build/contrib/release/magus-release
[ -x "$tool" ] || die "build '$build' first (make)"
[ -r "$key" ] || die "cannot read the secret key '$key'"
srcdir=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile")
version=$("$build/bin-wrappers/magus" --version | sed -n 's/^magus //p')
[ -n "$version" ] || die "cannot tell the version of '$build/bin-wrappers/magus'"
# BUILD-INFO's source hash: the one this build tree's programs carry.
hash=$(sed -n 's/^const char magus_source_hash\[\] = "\([0-9a-f]*\)";$/\1/p' \
	"$build/magus-source-hash.c")
[ ${#hash} -eq 64 ] || die "no source hash in '$build/magus-source-hash.c' (run make)"

if [ -z "$platforms" ]; then
	platforms=linux/amd64
	if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
		[ -f /usr/lib/aarch64-linux-gnu/libyaml.a ] &&
		[ -f /usr/lib/aarch64-linux-gnu/libcap.a ]; then
		platforms="$platforms linux/arm64"
	else
		echo "$me: no aarch64 cross toolchain: linux/arm64 is not built (README.md, 'The arm64 build')" >&2
	fi
fi
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$srcdir" log -1 --format=%ct 2>/dev/null) ||
		die "set SOURCE_DATE_EPOCH (not a git checkout)"
fi
export SOURCE_DATE_EPOCH

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/magus-release.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The platforms build side by side (configure runs mostly one process at
# a time), then each is checked and packed.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES || true
make -s -C "$build" distdir distdir="$work/sources" >"$work/distdir.log" 2>&1 ||
	{ tail -20 "$work/distdir.log" >&2; die "cannot copy the sources (make distdir)"; }
pids=""
for platform in $platforms; do
	dirname=$(echo "$platform" | tr / -)
	echo "$me: building magus $version for $platform" >&2
	"$here/inner-build.sh" --build-dir "$build" --platform "$platform" \
		--out "$work/$dirname" --source-hash "$hash" \
		--sources "$work/sources" &
	pids="$pids $!"
done
failed=0
for pid in $pids; do
	wait "$pid" || failed=1
done
[ "$failed" -eq 0 ] || die "a build failed (above)"

set --
for platform in $platforms; do
	dirname=$(echo "$platform" | tr / -)
	name=magus-$version-$dirname.tar.gz
	"$tool" check -s "$hash" "$work/$dirname" "$platform" "$version" >/dev/null
	"$here/pack.sh" "$work/$dirname" "$out/$name"
	set -- "$@" "$platform" "$base$name" "$out/$name"
done

if [ -n "$previous" ]; then
	"$tool" index -i "$previous" -o "$out/index.json" "$version" "$@"
else
	"$tool" index -o "$out/index.json" "$version" "$@"
fi
"$tool" sign-index -s "$key" "$out/index.json" >&2
[ -z "$pub" ] || "$tool" verify -p "$pub" "$out/index.json" >/dev/null
for f in "$out/index.json" "$out/index.json.minisig" "$@"; do
	[ -f "$f" ] && echo "$f"
done | sort -u
