#!/usr/bin/env bats
# magus-sandbox-exec as a program: what it links, its usage and its man
# page.

load lib/common
load lib/sandbox

setup() { sandbox_setup; }
teardown() { sandbox_teardown; }

# True when ELF file $1 uses libcap: it is a NEEDED library, or (linked
# statically) its symbol table holds libcap's functions.
uses_libcap() {
	readelf -d "$1" | grep -q 'NEEDED.*libcap\.so' ||
		readelf -sW "$1" | grep -qE ' (cap_set_proc|cap_drop_bound)$'
}

@test "magus-sandbox-exec links libcap; the front does not, and the helper links no libyaml" {
	helper=$(readlink -f "$SBX")
	uses_libcap "$helper"
	! uses_libcap "$MAGUS_BUILD_DIR/bin/magus"
	run readelf -d "$helper"
	refute_output --partial libyaml
	refute_output --partial libcurl
	run readelf -sW "$helper"
	refute_output --regexp ' yaml_parser_initialize$'
}

@test "--help prints the usage on stdout and exits 0" {
	run --separate-stderr "$SBX" --help
	assert_success
	[[ "${lines[0]}" == "usage: magus-sandbox-exec "* ]]
	[ -z "$stderr" ]
}

@test "usage() mirrors the man page SYNOPSIS" {
	local usage man
	usage=$("$SBX" --help | grep -oE -- '[[ ]--?[a-z][a-z-]*|[a-z-]+(\|[a-z-]+)+' |
		tr -d '[ ' | tr '|' '\n' | sort -u)
	man=$(man_synopsis_tokens "$MAGUS_SRC_DIR/man/magus-sandbox-exec.1")
	[ -n "$usage" ]
	[ "$usage" = "$man" ] || fail "usage: [$(echo $usage)] man: [$(echo $man)]"
	# And the placeholders, in the same order.
	usage=$("$SBX" --help | grep -oE '[A-Z][A-Z:]+' | tr '\n' ' ')
	man=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$MAGUS_SRC_DIR/man/magus-sandbox-exec.1" |
		grep -oE 'Ar [A-Z]+( : Ns Ar [A-Z]+)?' | sed 's/Ar //g; s/ : Ns /:/' | tr '\n' ' ')
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
}

@test "the man page has the sections a program needs, and the does-not-block list" {
	page=$MAGUS_SRC_DIR/man/magus-sandbox-exec.1
	for s in SYNOPSIS DESCRIPTION ENVIRONMENT 'EXIT STATUS' DIAGNOSTICS 'SEE ALSO' CAVEATS; do
		grep -q "^\.Sh $s\$" "$page" || fail "no $s section"
	done
	grep -q 'What the sandbox does not block' "$page"
	grep -q 'Network egress' "$page"
	grep -q 'Secrets that magus itself holds in memory' "$page"
	grep -q 'control file' "$page"
	# Every code the helper can print is listed under DIAGNOSTICS.
	for c in $(grep -ohE '(diag|die_mgs)\([0-9]{4}' "$MAGUS_SRC_DIR"/libexec/sandbox-exec/*.c |
		grep -oE '[0-9]{4}' | sort -u); do
		grep -q "^\.It MGS$c\$" "$page" || fail "MGS$c is not in DIAGNOSTICS"
	done
}

@test "the man pages are mandoc -T lint clean" {
	skip_unless "mandoc is not installed" command -v mandoc
	run mandoc -T lint -W warning "$MAGUS_SRC_DIR/man/magus-sandbox-exec.1" \
		"$MAGUS_SRC_DIR/man/magus.1" "$MAGUS_SRC_DIR/man/magus.yaml.5"
	assert_success
	refute_output
}

@test "every fd the helper opens is close-on-exec: the command inherits only the caller's" {
	run sbx --mode off -- /bin/ls /proc/self/fd
	assert_success
	unconfined=$output
	run sbx --mode required -- /bin/ls /proc/self/fd
	assert_success
	[ "$output" = "$unconfined" ]
	run sbx --mode required --tmp "$TMPD" -- /bin/ls /proc/self/fd
	assert_success
	[ "$output" = "$unconfined" ]
}

@test "TIOCSTI is refused by its low 32 bits: high bits set do not slip past the filter" {
	skip_unless "script(1) (Debian bsdutils) is not installed" command -v script
	# Unconfined, the kernel takes the request with the high bits set.
	run script -qec "$PROBE_BIN tiocsti-high" /dev/null
	[[ "$output" == *ok* ]]
	run script -qec "env -i PATH=$SBX_PATH HOME=$HOME $SBX --root $WS --mode required --tmp $TMPD -- $WS/probe tiocsti-high" /dev/null
	[[ "$output" == *EPERM* ]]
	# Without Landlock as well: the filter is part of every confining mode.
	run script -qec "env -i PATH=$SBX_PATH HOME=$HOME MAGUS_LANDLOCK_ABI_MAX=0 $SBX --root $WS --mode best-effort --tmp $TMPD -- $WS/probe tiocsti-high" /dev/null
	[[ "$output" == *EPERM* ]]
}
