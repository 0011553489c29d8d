#!/bin/sh
# foreign-image.sh ENGINE-URL [ARCH]: put an image of another
# architecture on the test engine at ENGINE-URL (unix:///...) and print
# its name, for the tests of the relay's emulated path.
#
# ARCH is a Go-style name (arm64, amd64); the default is the one of the
# two that is not this machine's.  The image, localhost/magus-test-ARCH:1,
# is the test image of start-engine.sh built from Debian's
# busybox-static for ARCH: a root file system packed reproducibly and
# imported through the Engine API (POST /images/create?fromSrc=-) with
# platform linux/ARCH, so the engine's inspect reports that Architecture.
# No registry is needed; the package comes from Debian's archive.  An
# image already there for ARCH is kept (idempotent).
#
# Running the image's busybox (to list its applets, and in the tests)
# needs setup-binfmt.sh first.
#
# Exit status: 0 when the image is there; 77 when this machine cannot do
# it (the package cannot be fetched, ARCH programs do not run here), which
# the tests report as a skip; 1 for any other failure.
set -eu
# rootfs_begin, rootfs_finish
# shellcheck source=tests/engine/rootfs.sh
. "$(dirname "$0")/rootfs.sh"

prog=foreign-image
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
cannot() { say "cannot make an $arch image here: $*"; exit 77; }
die() { say "$*"; exit 1; }

case $# in
1 | 2) ;;
*) echo "usage: foreign-image.sh ENGINE-URL [ARCH]" >&2; exit 2 ;;
esac
case $1 in
unix:///*) sock=${1#unix://} ;;
*) echo "foreign-image.sh: '$1': a unix:///PATH URL" >&2; exit 2 ;;
esac
case $(uname -m) in
x86_64) host=amd64 ;;
aarch64) host=arm64 ;;
*) host=$(uname -m) ;;
esac
if [ $# -eq 2 ]; then
	arch=$2
elif [ "$host" = amd64 ]; then
	arch=arm64
else
	arch=amd64
fi
case $arch in
arm64 | amd64) ;;
*) echo "foreign-image.sh: '$arch': arm64 or amd64" >&2; exit 2 ;;
esac
image=localhost/magus-test-$arch:1

api() {
	curl -sS -m 60 --unix-socket "$sock" "$@"
}

# Already there, for the right architecture?
have=$(api -o /dev/null -w '%{http_code}' \
	"http://d/v1.41/images/$image/json") || die "engine at '$sock' does not answer"
if [ "$have" = 200 ]; then
	got=$(api "http://d/v1.41/images/$image/json" |
		sed -n 's/.*"Architecture":"\([^"]*\)".*/\1/p')
	[ "$got" = "$arch" ] ||
		die "'$image' is on the engine for '$got', not $arch; remove it"
	echo "$image"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/magus-foreign.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- busybox-static for ARCH, from Debian's archive ---------------------
if ! dpkg --print-foreign-architectures | grep -qx "$arch" &&
	[ "$(dpkg --print-architecture)" != "$arch" ]; then
	[ "$(id -u)" -eq 0 ] || cannot "dpkg has no $arch architecture and this is not root"
	say "adding the $arch architecture to dpkg"
	dpkg --add-architecture "$arch" ||
		cannot "dpkg --add-architecture $arch failed"
	apt-get -o DPkg::Lock::Timeout=300 update >&2 ||
		cannot "apt-get update failed"
fi
# apt's own download user cannot write a private directory of root's.
(cd "$work" && apt-get -o APT::Sandbox::User=root download \
	"busybox-static:$arch" >/dev/null 2>"$work/apt.err") ||
	{ apt-get -o DPkg::Lock::Timeout=300 update >&2 &&
		(cd "$work" && apt-get -o APT::Sandbox::User=root download \
			"busybox-static:$arch" >/dev/null 2>"$work/apt.err"); } ||
	cannot "apt-get download busybox-static:$arch: $(tail -n 1 "$work/apt.err")"
dpkg-deb -x "$work"/busybox-static_*_"$arch".deb "$work/pkg" ||
	die "cannot unpack busybox-static:$arch"
bb=$work/pkg/bin/busybox
[ -x "$bb" ] || die "busybox-static:$arch has no /bin/busybox"
applets=$("$bb" --list 2>"$work/run.err") ||
	cannot "its busybox does not run here (run setup-binfmt.sh first): $(cat "$work/run.err")"

# ---- the root file system, as start-engine.sh makes it --------------------
rf=$work/rootfs
rootfs_begin "$rf" "$bb"
for a in $applets; do
	[ "$a" = busybox ] || ln -s /usr/bin/busybox "$rf/bin/$a"
done
rootfs_finish "$rf" "$work/rootfs.tar"

# ---- the import: platform sets the image's Os and Architecture -----------
# changes: CMD ["/bin/sh"] and the PATH of start-engine.sh's image.
cmd='CMD%20%5B%22%2Fbin%2Fsh%22%5D'
path='ENV%20PATH%3D%2Fusr%2Flocal%2Fsbin%3A%2Fusr%2Flocal%2Fbin%3A%2Fusr%2Fsbin%3A%2Fusr%2Fbin%3A%2Fsbin%3A%2Fbin'
api -X POST -H 'Content-Type: application/x-tar' \
	--data-binary @"$work/rootfs.tar" -o "$work/import.out" \
	"http://d/v1.41/images/create?fromSrc=-&repo=$image&platform=linux/$arch&changes=$cmd&changes=$path" ||
	die "the import failed"
if grep -q '"error' "$work/import.out"; then
	die "the engine refused the import: $(cat "$work/import.out")"
fi
got=$(api "http://d/v1.41/images/$image/json" |
	sed -n 's/.*"Architecture":"\([^"]*\)".*/\1/p')
[ "$got" = "$arch" ] ||
	die "imported '$image' reports Architecture '$got', not $arch (the engine ignored platform)"
say "imported $image for linux/$arch"
echo "$image"
