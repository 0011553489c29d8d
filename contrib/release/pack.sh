#!/bin/sh
# Pack an inner build into the release tarball, reproducibly: the same
# directory gives the same bytes (entries sorted by name, every mtime
# SOURCE_DATE_EPOCH, owner and group 0 by number, modes normalized, ustar,
# gzip without a name or a time stamp).
#
#   SOURCE_DATE_EPOCH=N contrib/release/pack.sh INNERDIR OUT.tar.gz
set -eu
LC_ALL=C
export LC_ALL

[ $# -eq 2 ] || { echo "usage: pack.sh INNERDIR OUT.tar.gz" >&2; exit 2; }
: "${SOURCE_DATE_EPOCH:?pack.sh: set SOURCE_DATE_EPOCH (seconds since 1970) for a reproducible tarball}"
case $SOURCE_DATE_EPOCH in
*[!0-9]* | "") echo "pack.sh: SOURCE_DATE_EPOCH '$SOURCE_DATE_EPOCH' is not a number" >&2; exit 2 ;;
esac
inner=$1 out=$2
[ -f "$inner/BUILD-INFO" ] || { echo "pack.sh: no '$inner/BUILD-INFO'" >&2; exit 1; }

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
tar --format=ustar --sort=name --mtime="@$SOURCE_DATE_EPOCH" \
	--owner=0 --group=0 --numeric-owner --mode='a+rX,u+w,go-w' \
	-C "$inner" -cf - BUILD-INFO bin libexec | gzip -9n >"$tmp"
mv "$tmp" "$out"
trap - EXIT
