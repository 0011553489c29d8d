#!/usr/bin/env bats
# The positive side of the escape suite: under --mode required and the
# default policy a real build works, compiler temp files, make, moves
# between the workspace and the private temp dir and all.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
	mkdir -p "$WS/src" "$WS/out"
	cat >"$WS/src/hello.c" <<-'EOF'
	#include <stdio.h>
	int main(int argc, char **argv) {
		FILE *f = fopen(argc > 1 ? argv[1] : "/dev/stdout", "w");
		if (!f) { perror("fopen"); return 1; }
		fprintf(f, "hello from the sandbox\n");
		return fclose(f) != 0;
	}
	EOF
	printf 'hello: hello.o\n\t$(CC) -o $@ hello.o\nhello.o: src/hello.c\n\t$(CC) -c -o $@ src/hello.c\n' \
		>"$WS/Makefile"
}
teardown() { escape_teardown; }

@test "cc compiles and links in the workspace; the program runs and writes there" {
	run --separate-stderr sbx -- /bin/sh -c 'cd "$0" && make && ./hello out/result.txt' "$WS"
	assert_success
	[ "$(cat "$WS/out/result.txt")" = "hello from the sandbox" ]
	[ -x "$WS/hello" ]
}

@test "the compiler's temporary files go to the private temp dir" {
	run --separate-stderr sbx -- /bin/sh -c \
		'cd "$0" && cc -v -o "$TMPDIR/hello" src/hello.c && "$TMPDIR/hello"' "$WS"
	assert_success
	assert_output "hello from the sandbox"
	[[ "$stderr" == *" $TMPD/cc"* ]] || fail "no temp file under $TMPD in: $stderr"
}

@test "mv between the workspace and the private temp dir works both ways" {
	run --separate-stderr sbx -- /bin/sh -c '
		set -e
		cd "$0"
		cc -o "$TMPDIR/hello" src/hello.c
		mkdir "$TMPDIR/stage"
		"$TMPDIR/hello" "$TMPDIR/stage/result.txt"
		mv "$TMPDIR/hello" bin/hello
		mv "$TMPDIR/stage" out/stage
		mv out/stage/result.txt "$TMPDIR/back.txt"
		mv "$TMPDIR/back.txt" out/result.txt
		ln out/result.txt "$TMPDIR/linked.txt"' "$WS"
	assert_success
	[ "$(cat "$WS/out/result.txt")" = "hello from the sandbox" ]
	[ -x "$WS/bin/hello" ]
	[ -d "$WS/out/stage" ]
	[ "$(stat -c %h "$WS/out/result.txt")" -eq 2 ]
}

@test "without --tmp the build works in a fresh 0700 temp dir, removed afterwards" {
	run --separate-stderr sbx_fork -- /bin/sh -c '
		set -e
		echo "$TMPDIR"
		stat -c %a "$TMPDIR"
		cd "$0"
		cc -o "$TMPDIR/hello" src/hello.c
		"$TMPDIR/hello" out/result.txt' "$WS"
	assert_success
	[ "${lines[1]}" = 700 ]
	[ -n "${lines[0]}" ] && [ "${lines[0]}" != "$TMPD" ]
	[ ! -e "${lines[0]}" ]
	[ "$(cat "$WS/out/result.txt")" = "hello from the sandbox" ]
}

@test "the child's exit status passes through both paths" {
	run --separate-stderr sbx -- /bin/sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run --separate-stderr sbx_fork -- /bin/sh -c 'exit 7'
	[ "$status" -eq 7 ]
}

@test "the device nodes a build uses work" {
	run --separate-stderr sbx -- /bin/sh -c '
		set -e
		echo discarded >/dev/null
		cat /dev/null
		head -c 16 /dev/urandom | wc -c'
	assert_success
	assert_output 16
}
