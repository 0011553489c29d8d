#!/usr/bin/env bats
# The build's shape: the layout, the linked libraries, the banned functions.

load lib/common

setup() { common_setup; }
teardown() { common_teardown; }

@test "the top level has the layout the brief names" {
	for d in bin libexec lib man tests contrib bench .ci; do
		[ -d "$MAGUS_SRC_DIR/$d" ] || fail "missing $d/"
	done
	for f in configure.ac Makefile.am README.md .ci/run; do
		[ -f "$MAGUS_SRC_DIR/$f" ] || fail "missing $f"
	done
	[ -x "$MAGUS_SRC_DIR/.ci/run" ]
}

@test "the front links neither libcurl nor libcap" {
	run readelf -d "$MAGUS_BUILD_DIR/bin/magus"
	assert_success
	refute_output --partial libcurl
	refute_output --partial libcap
}

@test "banned functions do not appear in the sources" {
	run grep -rnwE 'strcpy|strcat|sprintf|vsprintf|strtok|gets' \
		--include='*.c' "$MAGUS_SRC_DIR/bin" "$MAGUS_SRC_DIR/lib" \
		"$MAGUS_SRC_DIR/libexec"
	# banned.h itself names them; a match elsewhere is a use.
	refute_output
}

@test "banned.h makes a use of strcpy a compile error" {
	cat >"$T/b.c" <<-'EOC'
	#include "compat.h"
	int main(void) { char b[4]; strcpy(b, "x"); return b[0]; }
	EOC
	run ${CC:-cc} -c -I"$MAGUS_SRC_DIR/lib" -I"$MAGUS_BUILD_DIR" "$T/b.c" -o "$T/b.o"
	assert_failure
	assert_output --partial strcpy_is_banned
}

@test "every header compiles on its own" {
	for h in "$MAGUS_SRC_DIR"/lib/*.h "$MAGUS_SRC_DIR"/bin/*.h; do
		printf '#include "%s"\n' "$h" >"$T/h.c"
		${CC:-cc} -fsyntax-only -Wall -Werror -I"$MAGUS_SRC_DIR/lib" \
			-I"$MAGUS_BUILD_DIR" -I"$MAGUS_SRC_DIR/bin" "$T/h.c" ||
			fail "$h does not compile alone"
	done
}
