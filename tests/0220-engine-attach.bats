#!/usr/bin/env bats
# The hijacked attach against the real test engine: every line and the
# exit status arrive, run after run; stdout and stderr stay apart; bytes
# pass unchanged; stdin crosses and its end is a half-close; a TTY is
# raw; a signal is forwarded by name; the inspect fallback finds an exit
# with no wait registered.

load lib/common
load lib/engine

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() { common_setup; engine_require; }
teardown() { engine_cleanup; common_teardown; }

@test "20000 lines and a non-zero exit arrive complete, three runs in a row" {
	engine_body 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo "line $i of 20000"; [ $((i % 4)) = 0 ] && echo "err $i" >&2; done; exit 7' >"$T/body"
	seq 20000 | sed 's/.*/line & of 20000/' >"$T/want-out"
	seq 4 4 20000 | sed 's/^/err /' >"$T/want-err"
	for run in 1 2 3; do
		rc=0
		engine_cli run "$T/body" >"$T/out" 2>"$T/err" || rc=$?
		assert_equal "run $run: $rc" "run $run: 7"
		cmp "$T/want-out" "$T/out" || fail "run $run: stdout differs"
		cmp "$T/want-err" "$T/err" || fail "run $run: stderr differs"
	done
	assert_equal "$(engine_containers)" ""
}

@test "bytes pass unchanged: a 1 MiB file of every byte value" {
	mkdir "$T/data"
	head -c 1048576 /dev/urandom >"$T/data/blob"
	engine_body 'cat /data/blob' '' \
		'"Mounts":[{"Type":"bind","Source":"'"$T"'/data","Target":"/data","ReadOnly":true}]' >"$T/body"
	engine_cli run "$T/body" >"$T/got"
	cmp "$T/data/blob" "$T/got"
}

@test "stdin crosses and its end is a half-close the container sees" {
	engine_body 'while read -r l; do echo "got $l"; done; echo "stdin ended"; exit 5' \
		'"OpenStdin":true,"StdinOnce":true,"AttachStdin":true' >"$T/body"
	run engine_cli run "$T/body" --stdin < <(printf 'one\ntwo\n')
	assert_equal "$status" 5
	assert_output "$(printf 'got one\ngot two\nstdin ended')"
	# A large input crosses whole while output flows back.
	seq 100000 >"$T/in"
	engine_body 'cat; exit 0' '"OpenStdin":true,"StdinOnce":true,"AttachStdin":true' >"$T/body"
	engine_cli run "$T/body" --stdin <"$T/in" >"$T/out"
	cmp "$T/in" "$T/out"
}

@test "without stdin attached the container reads an empty stdin" {
	engine_body 'cat; echo "after cat"' >"$T/body"
	run engine_cli run "$T/body"
	assert_success
	assert_output "after cat"
}

@test "with a TTY the stream is raw: no frames, the terminal's CRLF" {
	engine_body 'echo one; echo two >&2; exit 6' '"Tty":true' >"$T/body"
	run engine_cli run "$T/body" --tty
	assert_equal "$status" 6
	assert_equal "$output" "$(printf 'one\r\ntwo\r')"
}

@test "the first SIGTERM is forwarded by name and waited for (143)" {
	engine_body 'trap "echo got TERM; exit 143" TERM; echo ready; while :; do sleep 0.1; done' >"$T/body"
	"$ENGINE_CLI" run "$T/body" >"$T/out" 2>"$T/err" 3>&- &
	pid=$!
	for i in $(seq 300); do
		grep -q ready "$T/out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q ready "$T/out" || fail "the container did not start"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 143
	assert_equal "$(cat "$T/out")" "$(printf 'ready\ngot TERM')"
	assert_equal "$(engine_containers)" ""
}

@test "with no wait registered, polling inspect finds the exit status" {
	engine_body 'echo quick; exit 9' >"$T/body"
	run --separate-stderr engine_cli -v run "$T/body" --late-wait --poll-ms 100
	assert_equal "$status" 9
	assert_equal "$output" "quick"
	[[ $stderr == *"polled=1"* ]]
}

@test "a fast exit's only line, without a newline, arrives run after run" {
	# The attach and the wait are registered before start: nothing of a
	# container that exits at once is lost.
	engine_body 'printf "fast, no newline"; exit 4' >"$T/body"
	for run in 1 2 3 4 5; do
		rc=0
		out=$(engine_cli run "$T/body") || rc=$?
		assert_equal "run $run: $rc $out" "run $run: 4 fast, no newline"
	done
}
