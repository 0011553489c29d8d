#!/usr/bin/env bats
# The front: global flags, exec path, workspace discovery, dispatch.

load lib/common

setup() {
	common_setup
	# A helper of our own, found through the exec path like any other.
	H="$T/helpers"
	mkdir -p "$H"
	ln -s "$MAGUS_EXEC_PATH"/* "$H"/ 2>/dev/null || true
	cat >"$H/magus-probe" <<-'EOS'
	#!/bin/sh
	echo "args:$*"
	echo "root:$MAGUS_ROOT"
	echo "exec:$MAGUS_EXEC_PATH"
	echo "sandbox:$MAGUS_SANDBOX"
	echo "cache:$MAGUS_CACHE_DIR"
	[ -e /proc/self/fd/0 ] && echo "stdin:open"
	awk '/^SigIgn/ { print "sigign:" $2 }' /proc/self/status
	case "$1" in
	exit) exit "$2" ;;
	kill) kill "-$2" $$ ;;
	esac
	exit 0
	EOS
	chmod +x "$H/magus-probe"
	export MAGUS_EXEC_PATH="$H"
}
teardown() { common_teardown; }

@test "--version prints the version and exits 0" {
	run magus --version
	assert_success
	assert_output --regexp '^magus [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "no verb prints the usage on stderr and exits 2" {
	run --separate-stderr magus
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"usage: magus"* ]]
}

@test "--help prints the usage on stdout and exits 0" {
	run magus --help
	assert_success
	assert_output --partial "usage: magus"
	assert_output --partial "doctor"
}

@test "an unknown verb is exit 2 with MGS1001 and a suggestion" {
	run --separate-stderr magus doctr
	[ "$status" -eq 2 ]
	assert_code MGS1001
	[[ "$stderr" == *"did you mean 'magus doctor'"* ]]
	[ -z "$output" ]
}

@test "an unknown verb far from every known one gets no suggestion" {
	run --separate-stderr magus zzzzzzzz
	[ "$status" -eq 2 ]
	assert_code MGS1001
	[[ "$stderr" != *"did you mean"* ]]
}

@test "a global flag after the verb is exit 2 with MGS1002 saying so" {
	run --separate-stderr magus doctor --sandbox=required
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[[ "$stderr" == *"global flags must precede the verb"* ]]
}

@test "an unknown global option is exit 2 with MGS1002" {
	run --separate-stderr magus --frobnicate doctor
	[ "$status" -eq 2 ]
	assert_code MGS1002
}

@test "a global flag missing its value is exit 2" {
	run --separate-stderr magus -C
	[ "$status" -eq 2 ]
	assert_code MGS1002
}

@test "--exec-path prints MAGUS_EXEC_PATH; --exec-path=DIR wins over it" {
	run magus --exec-path
	assert_success
	assert_output "$H"
	run magus --exec-path=/opt/x --exec-path
	assert_output /opt/x
}

@test "the compiled-in exec path is pkglibexecdir" {
	run env -u MAGUS_EXEC_PATH "$MAGUS_BUILD_DIR/bin/magus" --exec-path
	assert_success
	assert_output --regexp '/libexec/magus$'
}

@test "the exec path is exported to helpers" {
	run magus --exec-path="$H" probe
	assert_success
	assert_line "exec:$H"
}

@test "dispatch passes arguments and the exit status through unchanged" {
	run magus probe exit 42
	[ "$status" -eq 42 ]
	assert_line "args:exit 42"
}

@test "a helper killed by a signal gives 128+n" {
	run magus probe kill TERM
	[ "$status" -eq 143 ]
	run magus probe kill HUP
	[ "$status" -eq 129 ]
}

@test "the front forwards SIGTERM to its child and exits 143" {
	cat >"$H/magus-sleeper" <<-'EOS'
	#!/bin/sh
	trap 'echo got-term >"$MAGUS_ROOT/term"; exit 0' TERM
	echo ready >"$MAGUS_ROOT/ready"
	while :; do sleep 0.05; done
	EOS
	chmod +x "$H/magus-sleeper"
	mkws "$T/ws" </dev/null
	magus -C "$T/ws" sleeper &
	local pid=$!
	for _ in $(seq 100); do [ -e "$T/ws/ready" ] && break; sleep 0.05; done
	kill -TERM "$pid"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ "$(cat "$T/ws/term")" = got-term ]
}

@test "std fds are opened and SIGPIPE is reset before dispatch" {
	run bash -c 'trap "" PIPE; exec magus probe 0<&-'
	assert_success
	assert_line stdin:open
	# Bit 12 (SIGPIPE, 13) must be clear in the helper's ignored mask.
	local mask
	mask=$(sed -n 's/^sigign://p' <<<"$output")
	(( (16#$mask & 0x1000) == 0 ))
}

@test "the workspace is the nearest magus.yaml upward" {
	mkws "$T/ws" </dev/null
	mkdir -p "$T/ws/a/b"
	cd "$T/ws/a/b"
	run magus probe
	assert_success
	assert_line "root:$T/ws"
	assert_line "cache:$T/ws/.magus"
}

@test "-C changes directory first; --root names the root" {
	mkws "$T/ws" </dev/null
	mkdir -p "$T/ws/sub" "$T/other"
	run magus -C "$T/ws/sub" probe
	assert_line "root:$T/ws"
	run magus --root "$T/other" probe
	assert_line "root:$T/other"
}

@test "-C or --root naming a missing directory is exit 2 with MGS1012" {
	run --separate-stderr magus -C "$T/nope" doctor
	[ "$status" -eq 2 ]
	assert_code MGS1012
	run --separate-stderr magus --root "$T/nope" doctor
	[ "$status" -eq 2 ]
	assert_code MGS1012
}

@test "the resolved sandbox mode is exported" {
	mkws "$T/ws" <<-'EOF'
	sandbox:
	  mode: best-effort
	EOF
	run magus -C "$T/ws" probe
	assert_line sandbox:best-effort
	run magus -C "$T/ws" --sandbox=required probe
	assert_line sandbox:required
}

@test "help VERB shows one verb; an unknown one is exit 2" {
	run magus help doctor
	assert_success
	assert_output --partial "magus [GLOBAL FLAGS] doctor"
	run --separate-stderr magus help doctr
	[ "$status" -eq 2 ]
	assert_code MGS1001
}

@test "--platform: bare linux is refused naming linux/ARCH" {
	run --separate-stderr magus --platform linux doctor
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[[ "$stderr" == *"linux/"* ]]
}

@test "--platform of this host changes nothing: the verb runs here" {
	local arch
	case "$(uname -m)" in
	x86_64) arch=amd64 ;;
	aarch64) arch=arm64 ;;
	*) skip "unmapped host arch" ;;
	esac
	run magus --platform "linux/$arch" probe
	assert_success
	assert_line "args:"
}

@test "-o json turns diagnostics into JSON lines on stderr, stdout untouched" {
	run --separate-stderr magus -o json doctr
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == '{"code":"MGS1001",'* ]]
	[[ "$stderr" == *'"hint":"did you mean '"'"'magus doctor'"'"'?"}' ]]
}

@test "MAGUS_OUTPUT=json does the same" {
	MAGUS_OUTPUT=json run --separate-stderr magus doctr
	[[ "$stderr" == '{"code":"MGS1001",'* ]]
}
