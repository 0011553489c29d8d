#!/usr/bin/env bats
# magus describe tools: each tool magus.yaml declares, looked up on PATH
# and asked for its version through the sandbox; a missing one is named
# (exit 3, MGS1016).  The relayed form, inside the image, is in 0250.

load lib/common

setup() {
	common_setup
	mkdir -p "$T/bin"
	# A version on stdout after a blank line; one on stderr only; one
	# that fails without a word; one that tries to read a secret.
	cat >"$T/bin/tool-a" <<-'EOF'
	#!/bin/sh
	[ "$1" = --version ] || exit 9
	printf '\n  tool-a 1.2.3\nbuilt on a tuesday\n'
	EOF
	cat >"$T/bin/tool-b" <<-'EOF'
	#!/bin/sh
	echo "tool-b version 4.5" >&2
	EOF
	cat >"$T/bin/tool-c" <<-'EOF'
	#!/bin/sh
	exit 1
	EOF
	mkdir -p "$T/secret"
	echo "the-secret" >"$T/secret/key"
	cat >"$T/bin/tool-snoop" <<-EOF
	#!/bin/sh
	cat "$T/secret/key" 2>/dev/null || echo "snoop: the secret is out of reach"
	EOF
	chmod +x "$T/bin/"tool-*
	export PATH="$T/bin:$PATH"
}
teardown() { common_teardown; }

@test "each declared tool: its path and the first line of its version; a missing one is named, exit 3" {
	mkws "$T/ws" <<-'EOF'
	tools: [tool-a, tool-b, tool-c, no-such-tool, sh]
	EOF
	run --separate-stderr magus -C "$T/ws" describe tools
	assert_equal "$status" 3
	assert_code MGS1016
	[[ $stderr == *"'no-such-tool'"* ]] || fail "the missing tool is not named: $stderr"
	[[ $stderr == *"linux/"* ]] || fail "the platform is not named: $stderr"
	assert_line --index 0 --regexp '^tools on linux/[a-z0-9]+:$'
	assert_line --regexp "^  tool-a +$T/bin/tool-a +tool-a 1\.2\.3$"
	assert_line --regexp "^  tool-b +$T/bin/tool-b +tool-b version 4\.5$"
	assert_line --regexp "^  tool-c +$T/bin/tool-c +\(no version: '--version' exited 1\)$"
	assert_line --regexp '^  no-such-tool +missing \(not on PATH\)$'
	assert_line --regexp '^  sh +/.*/sh +'
}

@test "every tool found: exit 0 and nothing on stderr" {
	mkws "$T/ws" <<-'EOF'
	tools: [tool-a]
	EOF
	run --separate-stderr magus -C "$T/ws" describe tools
	assert_success
	assert_equal "$stderr" ""
	assert_line --regexp "^  tool-a +$T/bin/tool-a +tool-a 1\.2\.3$"
}

@test "a tool named by its path is probed there" {
	mkws "$T/ws" <<-EOF
	tools: ["$T/bin/tool-a", "$T/bin/absent"]
	EOF
	local magus
	magus=$(command -v magus)
	PATH=/usr/bin:/bin run --separate-stderr "$magus" -C "$T/ws" describe tools
	assert_equal "$status" 3
	assert_line --regexp "^  $T/bin/tool-a +$T/bin/tool-a +tool-a 1\.2\.3$"
	assert_line --regexp "^  $T/bin/absent +missing"
}

@test "the probe runs in the sandbox: a tool cannot read what the workspace may not" {
	mkws "$T/ws" <<-'EOF'
	sandbox: {mode: required}
	tools: [tool-snoop]
	EOF
	run --separate-stderr magus -C "$T/ws" describe tools
	assert_success
	assert_line --regexp "^  tool-snoop +$T/bin/tool-snoop +snoop: the secret is out of reach$"
	refute_output --partial the-secret
	# And the same tool, unconfined, does read it: the probe above was
	# refused by the sandbox, not by the file.
	run "$T/bin/tool-snoop" --version
	assert_output the-secret
}

@test "-o json: one object naming the platform and each tool" {
	mkws "$T/ws" <<-'EOF'
	tools: [tool-a, no-such-tool]
	EOF
	run --separate-stderr magus -C "$T/ws" -o json describe tools
	assert_equal "$status" 3
	run jq -e --arg p "$T/bin/tool-a" '
		(.platform | test("^linux/")) and (.tools | length == 2) and
		(.tools[0] == {"name":"tool-a","found":true,"path":$p,
		  "version":"tool-a 1.2.3","probe_status":0}) and
		(.tools[1] == {"name":"no-such-tool","found":false,"path":null,
		  "version":null,"probe_status":null})' <<<"$output"
	assert_success
	run jq -r .code <<<"$stderr"
	assert_output MGS1016
}

@test "no tools declared: exit 2, MGS1017" {
	mkws "$T/ws" <<-'EOF'
	sandbox: {mode: off}
	EOF
	run --separate-stderr magus -C "$T/ws" describe tools
	assert_equal "$status" 2
	assert_code MGS1017
	assert_equal "$output" ""
}

@test "usage: --help, a missing or unknown subject, a stray argument" {
	mkws "$T/ws" <<-'EOF'
	tools: [tool-a]
	EOF
	run magus -C "$T/ws" describe --help
	assert_success
	assert_output "usage: magus [--platform OS/ARCH] describe tools"
	for args in "" "things" "tools extra" "--bogus" "tools --bogus"; do
		# shellcheck disable=SC2086
		run --separate-stderr magus -C "$T/ws" describe $args
		assert_equal "describe $args: $status" "describe $args: 2"
		assert_code MGS1002
	done
	run magus help describe
	assert_success
	assert_output --partial "describe tools"
}

@test "the private directory of the probes is removed" {
	mkws "$T/ws" <<-'EOF'
	tools: [tool-a, tool-b]
	EOF
	mkdir -p "$T/tmp"
	TMPDIR=$T/tmp run magus -C "$T/ws" describe tools
	assert_success
	run find "$T/tmp" -mindepth 1
	assert_output ""
}
