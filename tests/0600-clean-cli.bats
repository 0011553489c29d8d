#!/usr/bin/env bats
# magus-clean's command line, its man page, and the porcelain verb
# `magus clean`.

load lib/common
load lib/clean

setup() {
	common_setup
	clean_ws
}

teardown() { common_teardown; }

# The option words of a man page's first SYNOPSIS block (up to .Pp).
man_synopsis_options() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.\(Pp\|Sh DESC\)/p' "$1" |
		grep -oE 'Fl -?[a-z-]+' | awk '{ print "-" $2 }' | sort -u
}

@test "the usage's options are the man page SYNOPSIS's" {
	local usage man
	usage=$("$CLEAN" --help | sed '/^$/q' | grep -oE -- '(^|[[{ ])--?[a-z-]+' |
		tr -d '[{ ' | sort -u)
	man=$(man_synopsis_options "$MAGUS_SRC_DIR/man/magus-clean.1")
	[ -n "$usage" ]
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
	# And every long option the usage describes is one getopt takes.
	local o
	for o in $("$CLEAN" --help | grep -oE -- '--[a-z-]+' | sort -u); do
		[ "$o" = --help ] && continue
		run --separate-stderr "$CLEAN" "$o"
		[[ $stderr != *"unknown option"* ]] || fail "$o is not taken"
	done
}

@test "the man pages are mandoc -T lint clean" {
	skip_unless "mandoc is not installed" command -v mandoc
	run mandoc -T lint -W warning "$MAGUS_SRC_DIR/man/magus-clean.1" \
		"$MAGUS_SRC_DIR/man/magus.1"
	assert_success
	refute_output
}

@test "magus --help's verbs are magus(1)'s COMMANDS" {
	local help man
	help=$(magus --help | sed -n '/^verbs:/,/^$/p' | awk '/^  [a-z]/ { print $1 }' | sort -u)
	man=$(sed -n '/^\.Sh COMMANDS/,/^\.Sh /p' "$MAGUS_SRC_DIR/man/magus.1" |
		awk '/^\.It Cm / { print $3 }' | sort -u)
	[ -n "$help" ]
	[ "$help" = "$man" ] || fail "magus --help: [$help] magus.1: [$man]"
	grep -qx clean <<<"$help"
}

@test "--help prints the usage on stdout and exits 0" {
	run --separate-stderr "$CLEAN" --help
	assert_success
	assert_line --index 0 --partial "usage: magus-clean --root DIR"
	[ -z "$stderr" ]
}

@test "refusals of the command line: exit 2, MGS6001, nothing removed" {
	mkstore linux-arm64
	local args
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		run --separate-stderr "$CLEAN" $args
		[ "$status" -eq 2 ] || fail "'$args': status $status"
		assert_code MGS6001
		[ -z "$output" ] || fail "'$args' printed: $output"
	done <<-EOF
	--all
	--root $WS
	--root $WS --all --platform linux/arm64
	--root $WS --platform linux
	--root $WS --platform linux/sparc
	--root $WS --platform
	--root $WS --all --bogus
	--root $WS --all -x
	--root $WS --all stray
	--root $WS --all -o yaml
	--root $T/nonexistent --all
	--root $WS/magus.yaml --all
	EOF
	[ -f "$WS/.magus/platform/linux-arm64/home/.profile" ]
}

@test "magus-clean links libcurl; the front does not" {
	skip_unless "readelf is not installed" command -v readelf
	readelf -d "$CLEAN" | grep -q 'libcurl'
	run -1 grep -q libcurl < <(readelf -d "$MAGUS_BUILD_DIR/bin/magus")
}

@test "magus clean: the verb's flags, its refusals, and help" {
	mkstore linux-arm64
	cd "$WS"
	run --separate-stderr magus clean
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus clean --platform linux/arm64 --all
	[ "$status" -eq 2 ]
	assert_code MGS1002
	# Global flags after the verb are the verb's unknown flags.
	run --separate-stderr magus clean --all --root "$WS"
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[[ $stderr == *"global flags must precede the verb"* ]]
	run --separate-stderr magus clean --all --container-api unix:///x.sock
	[ "$status" -eq 2 ]
	run --separate-stderr magus clean --platform
	[ "$status" -eq 2 ]
	# A platform the helper refuses.
	run --separate-stderr magus clean --platform linux
	[ "$status" -eq 2 ]
	assert_code MGS6001
	[ -d "$WS/.magus/platform/linux-arm64" ]
	run magus help clean
	assert_success
	assert_output --partial "clean {--platform OS/ARCH | --all} [--dry-run]"
	run magus clean --help
	assert_success
	assert_output --partial "See magus-clean(1)"
}

@test "magus clean without an engine: the stores of the workspace found from a subdirectory" {
	mkstore linux-arm64
	mkstore linux-amd64
	mkdir -p "$WS/src"
	cd "$WS/src"
	run --separate-stderr magus clean --platform=linux/amd64 --dry-run
	assert_success
	assert_line "would remove store $WS/.magus/platform/linux-amd64: platform store"
	assert_code MGS6006
	run --separate-stderr magus clean --all
	assert_success
	[ ! -e "$WS/.magus/platform/linux-arm64" ] && [ ! -e "$WS/.magus/platform/linux-amd64" ]
	# -C and --root are the front's, before the verb.
	mkstore linux-arm64
	cd /
	run --separate-stderr magus -C "$WS/src" clean --platform linux/arm64
	assert_success
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
}

@test "every clean code has a page" {
	local c
	for c in 6001 6002 6003 6004 6005 6006; do
		run magus explain "MGS$c"
		assert_success
		assert_output --partial "MGS$c"
	done
}
