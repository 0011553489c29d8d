#!/usr/bin/env bats
# The one table of diagnostics: explain, the man page, the JSON form.

load lib/common

setup() { common_setup; }
teardown() { common_teardown; }

codes() { magus explain | awk '{ print $1 }'; }

@test "explain with no code lists every code, one per line" {
	run magus explain
	assert_success
	assert_line --regexp '^MGS2012  sandbox required'
	assert_line --regexp '^MGS1001  unknown verb$'
}

@test "every listed code has a page with why and resolution" {
	for c in $(codes); do
		run magus explain "$c"
		assert_success
		assert_line --index 0 --regexp "^$c: "
		assert_line Why
		assert_line Resolution
	done
}

@test "the sandbox codes MGS2001..MGS2012 have pages before the sandbox exists" {
	for n in 2001 2002 2003 2004 2005 2006 2007 2008 2010 2012; do
		run magus explain "MGS$n"
		assert_success
	done
	run magus explain MGS2012
	assert_line "Exit status: 78"
}

@test "explain accepts lowercase and a bare number" {
	run magus explain mgs2012
	assert_success
	run magus explain 2012
	assert_success
}

@test "an unknown or malformed code is exit 2 with MGS1011" {
	for c in MGS9999 MGS12 nonsense; do
		run --separate-stderr magus explain "$c"
		[ "$status" -eq 2 ]
		assert_code MGS1011
	done
}

@test "explain -o json is one object with the table's fields" {
	run magus -o json explain MGS2012
	assert_success
	assert_output --regexp '^\{"code":"MGS2012","status":78,"summary":"[^"]+","explanation":"[^"]+","resolution":"[^"]+"\}$'
}

@test "magus-diagnostics(7) lists every code of the table" {
	local page="$MAGUS_BUILD_DIR/man/magus-diagnostics.7"
	[ -f "$page" ]
	for c in $(codes); do
		grep -q "^\.Ss $c: " "$page" || fail "$c missing from the man page"
	done
	[ "$(grep -c '^\.Ss MGS' "$page")" -eq "$(codes | wc -l)" ]
}

@test "the man pages are mandoc -T lint clean" {
	skip_unless "mandoc is not installed" command -v mandoc
	run mandoc -T lint -W warning "$MAGUS_BUILD_DIR/man/magus-diagnostics.7" \
		"$MAGUS_SRC_DIR"/man/*.[1-9]
	assert_success
	refute_output
}

@test "the verbs of magus --help are the verbs magus(1) documents" {
	local usage man
	usage=$(magus --help | awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' | sort -u)
	man=$(sed -n '/^\.Sh COMMANDS/,/^\.Sh /p' "$MAGUS_SRC_DIR/man/magus.1" |
		awk '$1 == ".It" && $2 == "Cm" { print $3 }' | sort -u)
	[ -n "$usage" ]
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
}

@test "the global flags of the usage are the flags of the man SYNOPSIS" {
	local usage man
	usage=$(magus --help | sed '/^verbs:/q' | grep -oE '(^|[[ ])-{1,2}[A-Za-z-]+' | tr -d '[ ' | sort -u)
	man=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$MAGUS_SRC_DIR/man/magus.1" |
		grep -oE 'Fl [A-Za-z-]+' | awk '{ print "-" $NF }' | sort -u)
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
}

@test "a diagnostic is one line plus an optional hint, prefixed by the program" {
	run --separate-stderr magus explain MGS0000
	[ "${#stderr_lines[@]}" -le 2 ]
	[[ "${stderr_lines[0]}" == "magus: [MGS1011] "* ]]
	[[ "${stderr_lines[1]}" == "hint: "* ]]
}
