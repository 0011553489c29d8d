#!/usr/bin/env bats
# magus-sandbox-exec's policy: what --print-policy says, that it is what
# the kernel applies, and the input it refuses.

load lib/common
load lib/sandbox

setup() { sandbox_setup; }
teardown() { sandbox_teardown; }

@test "print-policy names the mode, the ABI, and each rule with its real path" {
	need_abi 1
	run --separate-stderr sbx --mode required --print-policy -- true
	assert_success
	assert_line "mode          required"
	assert_line "workspace     $WS"
	assert_line --regexp "^landlock      ABI $ABI found, ABI [1-7] used"
	assert_line --regexp "^  read,write,exec,refer,truncate +$WS \(workspace\)$"
	assert_line --regexp '^  read,exec +/usr \(system\)$'
	assert_line --regexp '^  read,exec +/etc \(system\)$'
	assert_line --regexp '^  read +/proc \(system\)$'
	assert_line --regexp '^  read +/sys \(system\)$'
	assert_line --regexp '^  read,write +/dev/null \(device\)$'
	assert_line --regexp '^  read +/dev/urandom \(device\)$'
	# /dev/tty takes ioctls only where it names a terminal (a make check
	# started from one); under CI it has nothing behind it.
	if (: </dev/tty) 2>/dev/null; then
		assert_line --regexp '^  read,write,ioctl +/dev/tty \(device\)$'
	else
		assert_line --regexp '^  read,write +/dev/tty \(device\)$'
	fi
	# Not every terminal: only the caller's own, and here there is none.
	refute_line --partial /dev/pts
	assert_line --regexp '^  read,write,exec,refer,truncate +\(made at run time, removed after\) \(private temp\)$'
	assert_line --regexp '^command +/usr/bin/true$'
	# Nothing of the home directory or the shared /tmp.
	refute_line --partial " $HOME "
	refute_line --regexp ' /tmp \('
}

@test "the caller's own terminal is granted, and no other" {
	skip_unless "script(1) (Debian bsdutils) is not installed" command -v script
	run script -qec "env -i PATH=$SBX_PATH HOME=$HOME $SBX --root $WS --mode required --print-policy -- true; tty" /dev/null
	assert_success
	tty=$(tr -d '\r' <<<"${lines[-1]}")
	[[ "$tty" == /dev/pts/* ]]
	[ "$(tr -d '\r' <<<"$output" | grep -c ' /dev/pts/')" -eq 1 ]
	tr -d '\r' <<<"$output" | grep -qE "^  read,write,ioctl +$tty \(terminal\)$"
	tr -d '\r' <<<"$output" | grep -qE '^  read,write,ioctl +/dev/tty \(device\)$'
	tr -d '\r' <<<"$output" | grep -qE '^terminal +TIOCSTI and TIOCLINUX refused'
}

@test "print-policy with --tmp names the private temp dir, and makes nothing" {
	run --separate-stderr sbx --mode required --tmp "$TMPD" --print-policy -- true
	assert_success
	assert_line "private temp  $TMPD"
	assert_line --regexp "^  read,write,exec,refer,truncate +$TMPD \(private temp\)$"
	[ -z "$(ls -A "$TMPD")" ]
	# Without --tmp, no temp dir was made either.
	mkdir "$T/tmproot"
	SBX_ENV="TMPDIR=$T/tmproot" run sbx --mode required --print-policy -- true
	assert_success
	[ -z "$(ls -A "$T/tmproot")" ]
}

@test "print-policy -o json is one object with the rights by their kernel names" {
	need_abi 1
	SBX_ENV="MAGUS_OUTPUT=json AWS_SECRET_ACCESS_KEY=$SECRET" run --separate-stderr \
		sbx --mode best-effort --tmp "$TMPD" --network none --print-policy -- true
	assert_success
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == '{"mode":"best-effort",'* ]]
	[[ "$output" == *"\"abi_found\":$ABI,"* ]]
	[[ "$output" == *"{\"access\":[\"execute\",\"write_file\",\"read_file\",\"read_dir\","*"\"path\":\"$WS\",\"what\":\"workspace\"}"* ]]
	[[ "$output" == *'{"access":["write_file","read_file"],"path":"/dev/null","what":"device"}'* ]]
	[[ "$output" == *'"network":{"mode":"none"'* ]]
	[[ "$output" == *'"stripped":["MAGUS_OUTPUT","AWS_SECRET_ACCESS_KEY"]'* ]]
	[[ "$output" != *"$SECRET"* ]]
	if [ "$ABI" -ge 6 ]; then
		[[ "$output" == *'"scopes":["abstract_unix_socket","signal"]'* ]]
		[[ "$output" == *'"denied":["bind_tcp","connect_tcp"]'* ]]
		[[ "$output" == *'"not_enforced":[]'* ]]
	fi
	# The JSON parses.
	skip_unless "python3 is not installed" command -v python3
	python3 -c 'import json, sys; json.loads(sys.stdin.read())' <<<"$output"
}

@test "the policy printed is the policy applied: inside yes, outside no" {
	need_abi 3
	echo inside >"$WS/file"
	expect_allowed read "$WS/file"
	expect_allowed write "$WS/new"
	expect_allowed read /etc/passwd
	expect_allowed write /dev/null
	expect_denied EACCES read "$OUT/file"
	expect_denied EACCES read "$HOME/.ssh/id_rsa"
	expect_denied EACCES write "$OUT/new"
	expect_denied EACCES write /etc/magus-sandbox-test
	expect_denied EACCES truncate "$OUT/file"
	[ "$(cat "$OUT/file")" = outside ]
	[ ! -e "$OUT/new" ] && [ ! -e /etc/magus-sandbox-test ]
	# Unconfined, the same calls work: the denials are the sandbox's.
	run probe off -- read "$HOME/.ssh/id_rsa"
	assert_output ok
}

@test "the private temp dir has the workspace's rights: a rename between them works" {
	need_abi 2
	echo one >"$WS/a"
	expect_allowed rename "$WS/a" "$TMPD/a"
	expect_allowed rename "$TMPD/a" "$WS/b"
	[ "$(cat "$WS/b")" = one ]
	expect_allowed link "$WS/b" "$TMPD/c"
	# Out of a grant without exec into the workspace, a file would gain
	# exec: refused (refer), and the file stays where it was.
	mkdir -p "$OUT/rw"
	echo two >"$OUT/rw/x"
	run --separate-stderr probe required --allow "rw:$OUT/rw" -- rename "$OUT/rw/x" "$WS/x"
	assert_output EXDEV
	[ -e "$OUT/rw/x" ] && [ ! -e "$WS/x" ]
}

@test "--allow grants exactly its mode; exec is never implied" {
	need_abi 3
	mkdir -p "$OUT/ro" "$OUT/rw" "$OUT/rx"
	echo r >"$OUT/ro/f"
	cp "$PROBE_BIN" "$OUT/ro/probe"
	cp "$PROBE_BIN" "$OUT/rx/probe"
	run --separate-stderr probe required --allow "ro:$OUT/ro" -- read "$OUT/ro/f"
	assert_output ok
	run --separate-stderr probe required --allow "$OUT/ro" -- write "$OUT/ro/g"
	assert_output EACCES
	run --separate-stderr probe required --allow "rw:$OUT/rw" -- write "$OUT/rw/g"
	assert_output ok
	[ -e "$OUT/rw/g" ]
	# ro: the program is readable but not executable (MGS2007, exit 126).
	run --separate-stderr sbx --mode required --allow "ro:$OUT/ro" -- "$OUT/ro/probe" abi
	[ "$status" -eq 126 ]
	assert_code MGS2007
	run --separate-stderr sbx --mode required --allow "rx:$OUT/rx" -- "$OUT/rx/probe" abi
	assert_success
	assert_output "$ABI"
}

@test "--allow expands ~ and resolves symlinks once: the rule names the real path" {
	mkdir -p "$HOME/.cache/tool" "$OUT/real"
	ln -s "$OUT/real" "$OUT/link"
	run --separate-stderr sbx --mode required --allow "ro:~/.cache/tool" \
		--allow "rw:$OUT/link" --print-policy -- true
	assert_success
	assert_line --regexp "^  read +$HOME/.cache/tool \(ro:~/.cache/tool\)$"
	assert_line --regexp "^  read,write,refer,truncate +$OUT/real \(rw:$OUT/link\)$"
	refute_line --partial "$OUT/link "
}

@test "every way of naming a path through links resolves to its real path" {
	# The short way (a link as the last component, followed by its
	# text) and the long way (a link further up, "..", "." or a
	# trailing slash) must name the same real paths.
	mkdir -p "$OUT/d/r1" "$OUT/d/r2" "$OUT/d/r3" "$OUT/d/r4/sub" "$OUT/e"
	ln -s r1 "$OUT/d/rel"                # relative, last component
	ln -s r2 "$OUT/d/rel2"
	ln -s "$OUT/d/rel2" "$OUT/d/chain"   # a link to a link
	ln -s ../d/r3 "$OUT/e/up"            # "..": the long way
	ln -s "$OUT/d" "$OUT/e/dir"          # a link further up
	run --separate-stderr sbx --mode required \
		--allow "ro:$OUT/d/rel" --allow "rx:$OUT/d/chain" \
		--allow "rw:$OUT/e/up" --allow "rwx:$OUT/e/dir/r4/./sub/" \
		--print-policy -- true
	assert_success
	assert_line --regexp "^  +read +$OUT/d/r1 \(ro:$OUT/d/rel\)$"
	assert_line --regexp "^  +read,exec +$OUT/d/r2 \(rx:$OUT/d/chain\)$"
	assert_line --regexp "^  +read,write,refer,truncate +$OUT/d/r3 \(rw:$OUT/e/up\)$"
	assert_line --regexp "^  +read,write,exec,refer,truncate +$OUT/d/r4/sub \(rwx:$OUT/e/dir/r4/./sub/\)$"
	# A loop of links is refused, naming the path.
	ln -s loop2 "$OUT/loop1"
	ln -s loop1 "$OUT/loop2"
	run --separate-stderr sbx --mode required --allow "ro:$OUT/loop1" \
		--print-policy -- true
	assert_failure 2
	assert_code MGS2004
	[[ "$stderr" == *"$OUT/loop1"* ]]
}

@test "a rule on a file carries only file rights" {
	need_abi 3
	echo data >"$OUT/one-file"
	run --separate-stderr sbx --mode required --allow "rwx:$OUT/one-file" --print-policy -- true
	assert_success
	assert_line --regexp "^  read,write,exec,truncate +$OUT/one-file \(rwx:$OUT/one-file\)$"
	# And the kernel accepts it: the file is readable, its directory not.
	expect_denied EACCES read "$OUT/file"
	run --separate-stderr probe required --allow "rw:$OUT/one-file" -- read "$OUT/one-file"
	assert_output ok
}

@test "PATH directories are granted read and exec, but never / or one holding HOME or /tmp" {
	mkdir -p "$T/tools/bin"
	SBX_PATH=$SBX_PATH:$T/tools/bin:/:$(dirname "$HOME"):/tmp:relative run --separate-stderr \
		sbx --mode required --print-policy -- true
	assert_success
	assert_line --regexp "^  read,exec +$T/tools/bin \(PATH\)$"
	assert_line --regexp "^  not granted +PATH entry '/': it is the whole file system$"
	assert_line --regexp "^  not granted +PATH entry '$(dirname "$HOME")': it holds the home directory$"
	# (HOME is itself beneath /tmp in this suite.)
	assert_line --regexp "^  not granted +PATH entry '/tmp': it holds the (shared /tmp|home directory)$"
	assert_line --regexp "^  not granted +PATH entry 'relative': it is relative$"
}

@test "rules an ancestor already covers are merged away (/bin is /usr/bin)" {
	run --separate-stderr sbx --mode required --print-policy -- true
	assert_success
	if [ "$(readlink -f /bin)" = /usr/bin ]; then
		refute_line --regexp ' /usr/bin \('
		refute_line --regexp ' /bin \('
	fi
	[ "$(grep -c " $WS (workspace)" <<<"$output")" -eq 1 ]
}

@test "a relative --allow path: MGS2004, exit 2, nothing runs" {
	run --separate-stderr sbx --mode required --allow rw:src -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2004
	[[ "$stderr" == *"'rw:src'"* ]]
	[ ! -e "$WS/ran" ]
}

@test "a missing --allow path: MGS2004, exit 2, nothing runs" {
	run --separate-stderr sbx --mode required --allow "ro:$T/nope" -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2004
	[[ "$stderr" == *"$T/nope"* ]]
	[ ! -e "$WS/ran" ]
}

@test "an unknown --allow mode: MGS2004, exit 2, also in mode off" {
	for mode in off best-effort required; do
		run --separate-stderr sbx --mode "$mode" --allow "w:$OUT" -- touch "$WS/ran"
		[ "$status" -eq 2 ]
		assert_code MGS2004
		[[ "$stderr" == *"unknown mode 'w'"* ]]
	done
	[ ! -e "$WS/ran" ]
}

@test "an --allow that would grant a socket named in the environment: MGS2004" {
	mkdir -p "$OUT/agent"
	SBX_ENV="SSH_AUTH_SOCK=$OUT/agent/sock" run --separate-stderr \
		sbx --mode required --allow "ro:$OUT" -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2004
	[[ "$stderr" == *SSH_AUTH_SOCK* ]]
	[ ! -e "$WS/ran" ]
}

@test "a root that is /, holds HOME or holds /tmp: MGS2014, exit 2" {
	for root in / "$(dirname "$HOME")" /tmp; do
		run --separate-stderr env -i PATH="$SBX_PATH" HOME="$HOME" \
			"$SBX" --mode required --root "$root" -- touch "$WS/ran"
		[ "$status" -eq 2 ]
		assert_code MGS2014
	done
	[ ! -e "$WS/ran" ]
}

@test "a missing --root: MGS1012; no --root: MGS1002" {
	run --separate-stderr env -i PATH="$SBX_PATH" "$SBX" --mode required --root "$T/nope" -- true
	[ "$status" -eq 2 ]
	assert_code MGS1012
	run --separate-stderr env -i PATH="$SBX_PATH" "$SBX" --mode required -- true
	[ "$status" -eq 2 ]
	assert_code MGS1002
}

@test "a --tmp that is not private: MGS2004, exit 2" {
	mkdir -m 0755 "$T/open"
	run --separate-stderr sbx --mode required --tmp "$T/open" -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2004
	run --separate-stderr sbx --mode required --tmp "$T/missing" -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2004
	[ ! -e "$WS/ran" ]
}

@test "usage errors: exit 2 with MGS1002, the option named" {
	run --separate-stderr sbx --mode required --bogus -- true
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[[ "$stderr" == *"'--bogus'"* ]]
	run --separate-stderr sbx --mode required true
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr sbx --mode required --
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr sbx --mode required --network tcp -- true
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr sbx --mode
	[ "$status" -eq 2 ]
	assert_code MGS1002
}

@test "a command outside every exec grant: MGS2007, exit 126, before it starts" {
	cp "$PROBE_BIN" "$OUT/dropped"
	run --separate-stderr sbx --mode required -- "$OUT/dropped" abi
	[ "$status" -eq 126 ]
	assert_code MGS2007
	refute_output
}

@test "a command not found: MGS2016, exit 127" {
	run --separate-stderr sbx --mode required -- no-such-command-here
	[ "$status" -eq 127 ]
	assert_code MGS2016
	run --separate-stderr sbx --mode off -- no-such-command-here
	[ "$status" -eq 127 ]
	assert_code MGS2016
}

@test "a command that cannot be executed: MGS2017, exit 126" {
	printf 'not a program\n' >"$WS/not-exec"
	chmod 0644 "$WS/not-exec"
	run --separate-stderr sbx --mode required -- "$WS/not-exec"
	[ "$status" -eq 126 ]
	assert_code MGS2017
}
