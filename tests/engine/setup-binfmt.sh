#!/bin/sh
# setup-binfmt.sh [ARCH]: let this machine run programs of another
# architecture through qemu-user, in containers too, for the tests of the
# relay's emulated path (tests/0290-relay-emulated.bats).
#
# ARCH is a Go-style name (arm64, amd64); the default is the one of the
# two that is not this machine's.  Idempotent: an interpreter registered
# already, with the F flag, is left as it is.
#
# Exit status: 0 when ARCH runs here (registered now or before); 77 when
# this machine cannot do it (not root, no binfmt_misc in the kernel,
# qemu-user-static cannot be installed), which the tests report as a
# skip; 1 for any other failure, such as a registration without the F
# flag that this script will not replace.
#
# What it does, and why:
# - Installs qemu-user-static when missing (contrib/debian-packages.txt
#   lists it too).  Its statically linked interpreters need no library
#   inside an image.
# - Mounts binfmt_misc at /proc/sys/fs/binfmt_misc when it is not
#   mounted: a machine without systemd has no unit that does it.
# - Registers qemu-ARCH from the line the package ships in
#   /usr/lib/binfmt.d, with the F (fix-binary) flag: the kernel opens the
#   interpreter once, here, so a container whose root has no
#   /usr/libexec/qemu-binfmt can still run the image's programs.
# Nothing is ever unregistered: the registration outlives this script,
# as binfmt-support's does.
set -eu

prog=setup-binfmt
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
cannot() { say "cannot run $arch programs here: $*"; exit 77; }
die() { say "$*"; exit 1; }

[ $# -le 1 ] || { echo "usage: setup-binfmt.sh [ARCH]" >&2; exit 2; }
case $(uname -m) in
x86_64) host=amd64 ;;
aarch64) host=arm64 ;;
*) host=$(uname -m) ;;
esac
if [ $# -eq 1 ]; then
	arch=$1
elif [ "$host" = amd64 ]; then
	arch=arm64
else
	arch=amd64
fi
case $arch in
arm64) qarch=aarch64 ;;
amd64) qarch=x86_64 ;;
*) echo "setup-binfmt.sh: '$arch': arm64 or amd64" >&2; exit 2 ;;
esac
[ "$arch" != "$host" ] || { say "$arch is this machine's own architecture"; exit 0; }

name=qemu-$qarch
dir=/proc/sys/fs/binfmt_misc
conf=/usr/lib/binfmt.d/$name.conf

# An entry already there: enabled with F is what we want; anything else
# belongs to someone else's setup and is not overwritten.
registered() {
	[ -f "$dir/$name" ] || return 1
	grep -qx enabled "$dir/$name" ||
		die "'$dir/$name' is registered but disabled (echo 1 >'$dir/$name' enables it)"
	grep -q '^flags: .*F' "$dir/$name" ||
		die "'$dir/$name' is registered without the F flag, so containers cannot use it (echo -1 >'$dir/$name' removes it; then run this again)"
	return 0
}

[ "$(id -u)" -eq 0 ] || cannot "registering an interpreter needs root (this is uid $(id -u))"

if [ ! -f "$dir/register" ]; then
	grep -qw binfmt_misc /proc/filesystems ||
		cannot "the kernel has no binfmt_misc (CONFIG_BINFMT_MISC)"
	mount -t binfmt_misc binfmt_misc "$dir" ||
		cannot "cannot mount binfmt_misc on '$dir'"
	say "mounted binfmt_misc on $dir"
fi

if registered; then
	say "$name is registered already ($(sed -n 's/^interpreter //p' "$dir/$name"))"
	exit 0
fi

if [ ! -f "$conf" ]; then
	say "installing: qemu-user-static"
	export DEBIAN_FRONTEND=noninteractive
	apt="apt-get -o DPkg::Lock::Timeout=300 -y --no-install-recommends"
	$apt install qemu-user-static >&2 ||
		{ apt-get -o DPkg::Lock::Timeout=300 update >&2 &&
			$apt install qemu-user-static >&2; } ||
		cannot "qemu-user-static could not be installed"
	[ -f "$conf" ] || die "qemu-user-static has no '$conf'"
fi

# :name:type:offset:magic:mask:interpreter:flags, one line; the flags
# get an F when the package's line lacks one.
line=$(grep -v '^#' "$conf" | grep "^:$name:" | head -n 1)
[ -n "$line" ] || die "no registration line in '$conf'"
interp=$(printf '%s\n' "$line" | cut -d: -f7)
[ -x "$interp" ] || die "the interpreter '$interp' of '$conf' is missing"
flags=$(printf '%s\n' "$line" | cut -d: -f8)
case $flags in
*F*) ;;
*) line=${line%"$flags"}${flags}F ;;
esac

# Another run may register it between our check and our write: the
# kernel then refuses ours (EEXIST), and the entry is there.
if ! printf '%s' "$line" >"$dir/register" 2>/dev/null; then
	registered || die "the kernel refused the registration of $name"
fi
registered || die "$name did not appear in '$dir' after registering"
say "registered $name ($interp, flags $(sed -n 's/^flags: //p' "$dir/$name"))"
