#!/bin/sh
# Print the SHA-256 that names the sources of a magus tree: the hash of
# "sha256sum" lines for every C source, header, table and make fragment
# under bin/, lib/ and libexec/, plus configure.ac, Makefile.am and
# m4/magus-*.m4, sorted bytewise by path.  A build records it (BUILD-INFO's
# "source" line, magus_source_hash in the programs), so the relay can tell
# an inner build made from the sources it was itself built from.
#
#   contrib/release/source-hash.sh SRCDIR
set -eu
LC_ALL=C
export LC_ALL

[ $# -eq 1 ] || { echo "usage: source-hash.sh SRCDIR" >&2; exit 2; }
cd "$1"
{
	find bin lib libexec -type f \( -name '*.c' -o -name '*.h' -o \
		-name '*.def' -o -name '*.mk' \) 2>/dev/null
	for f in configure.ac Makefile.am m4/magus-*.m4; do
		[ -f "$f" ] && echo "$f"
	done
} | sort | while IFS= read -r f; do
	sha256sum -- "$f"
done | sha256sum | cut -d' ' -f1
