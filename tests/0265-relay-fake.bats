#!/usr/bin/env bats
# magus-relay against the fake engine, for what a real engine will not
# do on demand: --print-request byte-equal to the body the engine
# received; the order of the requests (attach and wait registered before
# start, delete last); frames split at every byte; an error after the
# hijack; a connection dropped mid-stream; a 409 on kill; a wait that
# never answers (the polling fallback); a failed start; an image for
# another platform.

load lib/common
load lib/engine
load lib/relay

DIGEST=$(printf 'd%.0s' $(seq 64))

setup() {
	common_setup
	RELAY_IMAGE_REF=localhost/fake@sha256:$DIGEST relay_ws
}
teardown() {
	[ -z "${RELAY_PID:-}" ] || kill -KILL "$RELAY_PID" 2>/dev/null || true
	fake_down
	common_teardown
}

frames() {
	while [ $# -gt 0 ]; do
		printf '%s' "$2" | "$FAKE_ENGINE" frame "$1"
		shift 2
	done
}

image_json() {
	printf '{"Id":"sha256:%s","Os":"linux","Architecture":"%s","RepoDigests":["localhost/fake@sha256:%s"],"Config":{"Env":["PATH=/bin"],"Cmd":["/bin/sh"]}}' \
		"$DIGEST" "${1:-$HOST_ARCH}" "$DIGEST"
}

inspect_json() {
	printf '{"Id":"c1","State":{"Status":"%s","Running":%s,"OOMKilled":%s,"ExitCode":%s,"Error":"","Pid":0},"Config":{"Env":[],"Labels":{}}}' \
		"$1" "$2" "${4:-false}" "$3"
}

# scenario ATTACH-OPTIONS WAIT-RULE [EXTRA-RULES]: a whole run.
scenario() {
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/volumes/create 201 body={"Name":"v","Driver":"local","Labels":{}}
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack await=started $1 file=$T/stream
	$2
	POST /v1.41/containers/c1/start 204 mark=started
	${3:-}
	GET /v1.41/containers/c1/json 200 body=$(inspect_json exited false 5)
	DELETE /v1.41/containers/c1 204
	EOF
	export MAGUS_CONTAINER_API=$FAKE_URL
}

WAIT5='POST /v1.41/containers/c1/wait 200 chunked await=started delay=50 body={"StatusCode":5,"Error":null}'

# The labels that name this one invocation, blanked.
same_but_invocation() {
	sed -E 's/"magus\.(invocation|pid|pid-start)":"[^"]*"/"magus.\1":"-"/g' "$1"
}

@test "--print-request prints the body the engine receives, byte for byte" {
	frames 1 $'out\n' >"$T/stream"
	scenario '' "$WAIT5"
	run --separate-stderr relay --print-request -- run hello
	assert_success
	head -n 1 <<<"$output" >"$T/printed"
	[[ $output == *"# a rendering as a docker run command"* ]]
	[[ $output == *"FROM_DECLARATION=yes"*"image declaration"* ]]
	assert_equal "$(fake_log)" ""

	run --separate-stderr relay -- run hello
	assert_equal "$status" 5
	n=$(fake_find 'POST /v1.41/containers/create')
	# The body as sent ends without a newline; the printed line with one.
	{ cat "$(fake_body_file "$n")"; echo; } >"$T/sent"
	same_but_invocation "$T/printed" >"$T/a"
	same_but_invocation "$T/sent" >"$T/b"
	cmp "$T/a" "$T/b" || fail "printed and sent differ: $(diff "$T/a" "$T/b")"
	# (and the two differ only there: one invocation id each)
	! cmp -s "$T/printed" "$T/sent"
	fake_head "$n" | grep -qi '^Content-Type: application/json'
}

@test "the attach and the wait are registered before start; inspect after the exit; delete last" {
	frames 1 $'out line\n' 2 $'err line\n' >"$T/stream"
	scenario '' "$WAIT5"
	run --separate-stderr relay -- run hello
	assert_equal "$status" 5
	assert_output "out line"
	[[ $stderr == *"err line"* ]]
	order=$(fake_log | awk '{print $2, $3}' | sed 's/?.*//' |
		grep -v -e '^GET /_ping' -e '^GET /version' | tr '\n' ,)
	assert_equal "$order" "GET /v1.41/images/localhost/fake@sha256:$DIGEST/json,POST /v1.41/volumes/create,POST /v1.41/containers/create,POST /v1.41/containers/c1/attach,POST /v1.41/containers/c1/wait,POST /v1.41/containers/c1/start,GET /v1.41/containers/c1/json,DELETE /v1.41/containers/c1,"
	fake_log | grep -q 'wait?condition=next-exit'
	fake_log | grep -q 'containers/create?name=magus-relay-'
}

@test "frames split at every byte boundary arrive whole" {
	big=$(printf 'y%.0s' $(seq 200))
	frames 1 $'hello\n' 2 $'oops\n' 1 "$big" 1 $'\n' 2 $'bye\n' >"$T/stream"
	scenario 'chunk=1' "$WAIT5"
	relay -- run hello >"$T/out" 2>"$T/err" || rc=$?
	assert_equal "${rc:-0}" 5
	assert_equal "$(cat "$T/out")" "$(printf 'hello\n%s' "$big")"
	grep -qx oops "$T/err"
	grep -qx bye "$T/err"
}

@test "an error after the hijack: exit 71, MGS3006, the container deleted" {
	frames 1 $'partial\n' 3 'container runtime exploded' >"$T/stream"
	scenario '' 'POST /v1.41/containers/c1/wait 200 chunked hang'
	run --separate-stderr relay -- run hello
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"exploded"* ]]
	assert_output "partial"
	fake_log | grep -q 'DELETE /v1.41/containers/c1?force=1'
}

@test "a connection dropped inside a frame: exit 71, MGS3032, the container deleted" {
	frames 1 "$(printf 'z%.0s' $(seq 100))" >"$T/stream"
	scenario 'drop=40' 'POST /v1.41/containers/c1/wait 200 chunked hang'
	run --separate-stderr relay -- run hello
	assert_equal "$status" 71
	assert_code MGS3032
	fake_log | grep -q 'DELETE /v1.41/containers/c1?force=1'
}

@test "a wait that never answers: the exit status is read from inspect" {
	frames 1 $'out\n' >"$T/stream"
	scenario '' 'POST /v1.41/containers/c1/wait 200 chunked hang'
	run --separate-stderr relay -v -- run hello
	assert_equal "$status" 5
	assert_output "out"
	[[ $stderr == *"read from inspect"* ]]
}

@test "a 409 on kill (the container already gone) is no error: the relay waits and exits as signaled" {
	frames 1 $'first\n' 1 "$(printf 'w%.0s' $(seq 60))" >"$T/stream"
	scenario 'chunk=1 gap=40' "$WAIT5" \
		'POST /v1.41/containers/c1/kill 409 body={"message":"container c1 is not running"}'
	relay_bg -- run hello
	relay_await_line "$T/out" '^first$' || fail "no output came"
	kill -TERM "$RELAY_PID"
	rc=0
	wait "$RELAY_PID" || rc=$?
	RELAY_PID=
	assert_equal "$rc" 143
	fake_log | grep -q 'POST /v1.41/containers/c1/kill?signal=TERM'
	! grep -q MGS "$T/err" || fail "the 409 was reported: $(cat "$T/err")"
	# The stream still arrived whole, and the container went.
	assert_equal "$(cat "$T/out")" "$(printf 'first\n%s' "$(printf 'w%.0s' $(seq 60))")"
	fake_log | grep -q 'DELETE /v1.41/containers/c1?force=1'
}

@test "a failed start abandons the wait: exit 71, MGS3006, the container deleted" {
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/volumes/create 201 body={"Name":"v","Labels":{}}
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack hang
	POST /v1.41/containers/c1/wait 200 chunked hang
	POST /v1.41/containers/c1/start 500 body={"message":"runc create failed: unable to start container process"}
	DELETE /v1.41/containers/c1 204
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr relay -- run hello
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"runc create failed"* ]]
	fake_log | grep -q 'DELETE /v1.41/containers/c1?force=1'
}

@test "an image for another architecture is refused by magus itself: exit 71, MGS3042, nothing created" {
	other=arm64
	[ "$HOST_ARCH" != arm64 ] || other=amd64
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json "$other")
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr relay -- run hello
	assert_equal "$status" 71
	assert_code MGS3042
	[[ $stderr == *"linux/$other"* ]]
	! fake_log | grep -q 'POST' || fail "something was created: $(fake_log)"
}

# oom_run OOMKILLED: a run whose wait says 137 and whose inspect says
# OOMKilled OOMKILLED.
oom_run() {
	frames 1 $'out\n' >"$T/stream"
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/volumes/create 201 body={"Name":"v","Labels":{}}
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack await=started file=$T/stream
	POST /v1.41/containers/c1/wait 200 chunked await=started body={"StatusCode":137,"Error":null}
	POST /v1.41/containers/c1/start 204 mark=started
	GET /v1.41/containers/c1/json 200 body=$(inspect_json exited false 137 "$1")
	DELETE /v1.41/containers/c1 204
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr relay -- run hello
}

@test "OOMKilled is read from inspect: exit 71, MGS3008; a 137 alone is passed through" {
	oom_run true
	assert_equal "$status" 71
	assert_code MGS3008
	fake_down
	rm -rf "$FAKE_DIR"
	oom_run false
	assert_equal "$status" 137
	! grep -q MGS3008 <<<"$stderr"
}

@test "a verb that reads stdin gets it: OpenStdin in the body, stdin=1 on the attach" {
	frames 1 $'out\n' >"$T/stream"
	scenario '' "$WAIT5"
	run --separate-stderr relay -- run --stdin hello </dev/null
	assert_equal "$status" 5
	n=$(fake_find 'POST /v1.41/containers/create')
	grep -q '"OpenStdin":true,"StdinOnce":true,"AttachStdin":true' "$(fake_body_file "$n")"
	fake_log | grep -q 'attach?stream=1&stdin=1'
	fake_down
	rm -rf "$FAKE_DIR"
	scenario '' "$WAIT5"
	run --separate-stderr relay -- run hello </dev/null
	n=$(fake_find 'POST /v1.41/containers/create')
	grep -q '"OpenStdin":false' "$(fake_body_file "$n")"
	fake_log | grep -q 'attach?stream=1&stdin=0'
}

@test "line one: -v adds the API version and where writes land; queue gate names the HEAD under test" {
	frames 1 $'out\n' >"$T/stream"
	scenario '' "$WAIT5"
	mkdir -p "$WS/.git/refs/heads"
	echo 'ref: refs/heads/main' >"$WS/.git/HEAD"
	echo 0123456789abcdef0123456789abcdef01234567 >"$WS/.git/refs/heads/main"
	run --separate-stderr relay -v -- queue gate -- magus run hello
	[[ ${stderr_lines[0]} == *", testing HEAD 0123456789ab" ]] ||
		fail "line one: ${stderr_lines[0]}"
	[[ ${stderr_lines[1]} == *"API 1.41"*"writes land in '$WS/.magus/platform/linux-$HOST_ARCH'" ]] ||
		fail "line two: ${stderr_lines[1]}"
}

@test "container.rootless: required refuses an engine that is not rootless: exit 71, MGS3034, nothing created" {
	mkdir -p "$XDG_CONFIG_HOME/magus"
	printf 'container:\n  rootless: required\n' >"$XDG_CONFIG_HOME/magus/config.yaml"
	fake_up <<-EOF
	GET /v1.41/info 200 body={"OSType":"linux","SecurityOptions":["name=seccomp,profile=default","name=rootlessish"]}
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr relay -- run hello
	assert_equal "$status" 71
	assert_code MGS3034
	! fake_log | grep -q 'POST' || fail "something was created: $(fake_log)"
	fake_down
	rm -rf "$FAKE_DIR"
	frames 1 $'out\n' >"$T/stream"
	scenario '' "$WAIT5" 'GET /v1.41/info 200 body={"SecurityOptions":["name=seccomp,profile=default","name=rootless"]}'
	run --separate-stderr relay -- run hello
	assert_equal "$status" 5
}
