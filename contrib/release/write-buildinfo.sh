#!/bin/sh
# Write BUILD-INFO for the inner build in DIR (lib/innerbuild.h describes
# the format): the version, the platform, the source hash, and one line
# with the SHA-256, size and path of every file below bin/ and libexec/,
# sorted bytewise by path.
#
#   contrib/release/write-buildinfo.sh DIR VERSION OS/ARCH SOURCE-SHA256
set -eu
LC_ALL=C
export LC_ALL

[ $# -eq 4 ] || {
	echo "usage: write-buildinfo.sh DIR VERSION OS/ARCH SOURCE-SHA256" >&2
	exit 2
}
dir=$1 version=$2 platform=$3 source=$4
case $source in
*[!0-9a-f]* | "") echo "write-buildinfo.sh: bad source hash '$source'" >&2; exit 2 ;;
esac
[ ${#source} -eq 64 ] || { echo "write-buildinfo.sh: bad source hash '$source'" >&2; exit 2; }
[ -f "$dir/bin/magus" ] || { echo "write-buildinfo.sh: no '$dir/bin/magus'" >&2; exit 1; }

cd "$dir"
tmp=BUILD-INFO.tmp.$$
trap 'rm -f "$tmp"' EXIT
{
	echo "magus-build-info 1"
	echo "version $version"
	echo "platform $platform"
	echo "source $source"
	find bin libexec -type f | sort | while IFS= read -r f; do
		h=$(sha256sum <"$f" | cut -c1-64)
		printf 'file %s %s %s\n' "$h" "$(wc -c <"$f" | tr -d ' ')" "$f"
	done
} >"$tmp"
chmod 644 "$tmp"
mv "$tmp" BUILD-INFO
trap - EXIT
