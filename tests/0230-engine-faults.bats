#!/usr/bin/env bats
# What a real engine cannot be made to do on demand, played by the fake
# engine: old and new API versions, frames split at every byte, bytes
# that come with the head, an error after the hijack, a stream cut inside
# a frame, a 409 on kill, a pull failing inside its 200 stream, a wait
# that never answers, answers that are not JSON or not HTTP, an engine
# that never answers; and the exact bytes the client sends.

load lib/common
load lib/engine

setup() { common_setup; }
teardown() { fake_down; common_teardown; }

# frames STREAM TEXT [STREAM TEXT]...: the multiplexed stream, on stdout.
frames() {
	while [ $# -gt 0 ]; do
		printf '%s' "$2" | "$FAKE_ENGINE" frame "$1"
		shift 2
	done
}

inspect_json() {
	printf '{"Id":"c1","State":{"Status":"%s","Running":%s,"OOMKilled":false,"ExitCode":%s,"Error":"","Pid":0},"Config":{"Env":["A=1"],"Labels":{}}}' "$1" "$2" "$3"
}

@test "an engine older than API 1.41 is refused naming both versions (MGS3004)" {
	fake_up --api 1.40 </dev/null
	run --separate-stderr engine_cli -H "$FAKE_URL" ping
	assert_equal "$status" 71
	assert_code MGS3004
	[[ $stderr == *"1.40"* ]]
	[[ $stderr == *"1.41 or newer"* ]]
}

@test "without Api-Version on the ping, /version decides" {
	fake_up <<-'EOF'
	GET /_ping 200 noapi type=text/plain body=OK
	GET /version 200 noapi body={"ApiVersion":"1.39","MinAPIVersion":"1.12","Version":"19.03"}
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" ping
	assert_equal "$status" 71
	assert_code MGS3004
	[[ $stderr == *"1.39"* ]]
	[ -n "$(fake_find 'GET /version')" ]
}

@test "paths carry the newest version both speak, at most 1.44" {
	fake_up --api 1.47 <<-EOF
	GET /v1.44/containers/c1/json 200 body=$(inspect_json exited false 0)
	EOF
	run engine_cli -H "$FAKE_URL" inspect c1
	assert_success
	assert_line "status=exited"
	fake_log | grep -q "GET /v1.44/containers/c1/json"
	# /_ping and /version are the only unversioned paths.
	! fake_log | grep -vE ' /(v1\.44/|_ping|version)'
}

@test "the create body is sent byte for byte, with Content-Type on every POST" {
	printf '{ "Image" : "x",\n  "Env":["A=\xc3\xa9","B=\\u00e9"],\t"Cmd":["a  b"] }\n' >"$T/body"
	fake_up <<-'EOF'
	POST /v1.41/containers/create 201 query=name=my-name body={"Id":"abc","Warnings":["low memory"]}
	POST /v1.41/containers/abc/start 204
	EOF
	run engine_cli -H "$FAKE_URL" create "$T/body" my-name
	assert_success
	assert_line "warning=low memory"
	assert_line "abc"
	n=$(fake_find 'POST /v1.41/containers/create\?name=my-name')
	cmp "$T/body" "$(fake_body_file "$n")"
	fake_head "$n" | grep -qi '^Content-Type: application/json'
	fake_head "$n" | grep -qi "^Content-Length: $(wc -c <"$T/body")"
	run engine_cli -H "$FAKE_URL" start abc
	assert_success
	n=$(fake_find 'POST /v1.41/containers/abc/start')
	fake_head "$n" | grep -qi '^Content-Type: application/json'
	fake_head "$n" | grep -qi '^Content-Length: 0'
}

@test "attach frames split at every byte boundary arrive whole" {
	big=$(printf 'x%.0s' $(seq 300))
	frames 1 $'hello\n' 2 $'oops\n' 1 '' 1 "$big" 2 $'bye\n' 1 $'end\n' >"$T/stream"
	fake_up <<-EOF
	POST /v1.41/containers/c1/attach 200 hijack chunk=1 gap=1 file=$T/stream
	EOF
	engine_cli -H "$FAKE_URL" attach c1 >"$T/out" 2>"$T/err"
	assert_equal "$(cat "$T/out")" "$(printf 'hello\n%send' "$big")"
	assert_equal "$(cat "$T/err")" "$(printf 'oops\nbye')"
	n=$(fake_find 'POST /v1.41/containers/c1/attach')
	fake_head "$n" | grep -qi '^Connection: Upgrade'
	fake_head "$n" | grep -qi '^Upgrade: tcp'
	fake_head "$n" | grep -q 'stdin=0&stdout=1&stderr=1&detachKeys= HTTP/1.1'
}

@test "stream bytes that come with the 101 head are kept" {
	frames 1 $'first\n' 2 $'second\n' >"$T/stream"
	# One write carries the head and the whole stream, then the close.
	fake_up <<-EOF
	POST /v1.41/containers/c1/attach 200 hijack file=$T/stream
	EOF
	engine_cli -H "$FAKE_URL" attach c1 >"$T/out" 2>"$T/err"
	assert_equal "$(cat "$T/out")" "first"
	assert_equal "$(cat "$T/err")" "second"
}

@test "an attach answered 200 without the upgrade is accepted too" {
	frames 1 $'plain\n' >"$T/stream"
	fake_up <<-EOF
	POST /v1.41/containers/c1/attach 200 raw split file=$T/stream
	EOF
	run engine_cli -H "$FAKE_URL" attach c1
	assert_success
	assert_output "plain"
}

@test "the Tty flag, not the Content-Type, decides the framing" {
	frames 1 $'framed\n' >"$T/stream"
	fake_up <<-EOF
	POST /v1.41/containers/c1/attach 200 hijack type=application/vnd.docker.multiplexed-stream file=$T/stream
	EOF
	engine_cli -H "$FAKE_URL" attach c1 --tty >"$T/out"
	cmp "$T/stream" "$T/out"
}

@test "text after the hijack that is not a frame: MGS3032" {
	fake_up <<-'EOF'
	POST /v1.41/containers/c1/attach 200 hijack body=Error: container c1 is gone\n
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" attach c1
	assert_equal "$status" 71
	assert_code MGS3032
	assert_output ""
}

@test "an engine error on stream 3 after the hijack: MGS3006 with its words" {
	fake_up <<-'EOF'
	POST /v1.41/containers/c1/attach 200 hijack body=\x01\0\0\0\0\0\0\x03ok\n\x03\0\0\0\0\0\0\x0bexec failed
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" attach c1
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"exec failed"* ]]
	assert_output "ok"
}

@test "a stream cut inside a frame: what came is shown, then MGS3032" {
	frames 1 $'hello\n' 1 $'world\n' >"$T/stream"
	fake_up <<-EOF
	POST /v1.41/containers/c1/attach 200 hijack drop=18 file=$T/stream
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" attach c1
	assert_equal "$status" 71
	assert_code MGS3032
	[[ $stderr == *"inside a frame"* ]]
	assert_output "hello"
}

@test "stdin crosses and its end is a half-close the engine reads as EOF" {
	seq 20000 >"$T/in"
	fake_up <<-'EOF'
	POST /v1.41/containers/c1/attach 200 hijack echo
	EOF
	engine_cli -H "$FAKE_URL" attach c1 --stdin <"$T/in" >"$T/out"
	cmp "$T/in" "$T/out"
	n=$(fake_find 'POST /v1.41/containers/c1/attach')
	cmp "$T/in" "$FAKE_DIR/req/$(printf %04d "$n").stdin"
	fake_head "$n" | grep -q 'stdin=1'
}

@test "a 409 on kill, and podman's 500 for the same, are conflicts" {
	fake_up <<-'EOF'
	POST /v1.41/containers/c1/kill 409 body={"message":"Container c1 is not running"}
	POST /v1.41/containers/c2/kill 500 body={"cause":"container state improper","message":"can only kill running containers. c2 is in state exited: container state improper","response":500}
	POST /v1.41/containers/c3/kill 500 body={"message":"invalid signal: NOPE"}
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" kill c1 TERM
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"kind: conflict (HTTP 409)"* ]]
	[[ $stderr == *"Container c1 is not running"* ]]
	run --separate-stderr engine_cli -H "$FAKE_URL" kill c2 TERM
	[[ $stderr == *"kind: conflict (HTTP 500)"* ]]
	run --separate-stderr engine_cli -H "$FAKE_URL" kill c3 NOPE
	[[ $stderr == *"kind: engine (HTTP 500)"* ]]
	fake_log | grep -q 'kill?signal=TERM'
}

@test "a pull failing inside its 200 stream: progress shown, then MGS3033" {
	fake_up <<-'EOF'
	POST /v1.41/images/create 200 chunked chunk=23 gap=1 body={"status":"Pulling from x/img","id":"1"}\r\n{"status":"Downloading","progressDetail":{"current":1},"progress":"[=> ] 1B/2B","id":"abc"}\r\n{"errorDetail":{"message":"manifest unknown: {\\"x\\"}"},"error":"manifest unknown"}\r\n
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" image-pull registry.example/x/img@sha256:0123
	assert_equal "$status" 71
	assert_code MGS3033
	[[ $stderr == *"progress: 1: Pulling from x/img"* ]]
	[[ $stderr == *"progress: abc: Downloading [=> ] 1B/2B"* ]]
	[[ $stderr == *'manifest unknown: {"x"}'* ]]
	fake_log | grep -q 'fromImage=registry.example%2Fx%2Fimg&tag=sha256%3A0123'
}

@test "a pull that completes; one whose tag is missing pulls latest" {
	fake_up <<-'EOF'
	POST /v1.41/images/create 200 chunked body={"status":"Pulling"}\r\n{"status":"Digest: sha256:00"}\r\n
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" image-pull busybox
	assert_success
	assert_output "pulled=yes"
	fake_log | grep -q 'fromImage=busybox&tag=latest'
	run --separate-stderr engine_cli -H "$FAKE_URL" image-pull host:5000/a/b:v2 linux/arm64
	assert_success
	fake_log | grep -q 'fromImage=host%3A5000%2Fa%2Fb&tag=v2&platform=linux%2Farm64'
}

@test "a pull stream that is not JSON, or is cut: MGS3032" {
	fake_up <<-'EOF'
	POST /v1.41/images/create 200 times=1 chunked body=OK
	POST /v1.41/images/create 200 times=1 chunked drop=12 body={"status":"Pulling from x"}\r\n
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" image-pull a:1
	assert_equal "$status" 71
	assert_code MGS3032
	run --separate-stderr engine_cli -H "$FAKE_URL" image-pull a:1
	assert_equal "$status" 71
	assert_code MGS3032
}

# The scenario of a whole run: create, attach and wait before start, the
# stream sent once started, inspect, delete.  $1 is the wait's rule.
run_scenario() {
	frames 1 $'out line\n' 2 $'err line\n' >"$T/stream"
	fake_up <<-EOF
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack await=started file=$T/stream
	$1
	POST /v1.41/containers/c1/start 204 mark=started
	GET /v1.41/containers/c1/json 200 body=$(inspect_json exited false 5)
	DELETE /v1.41/containers/c1 204
	EOF
	engine_body_min >"$T/body"
}

engine_body_min() {
	printf '{"Image":"x","Cmd":["true"],"HostConfig":{"NetworkMode":"none"}}\n'
}

@test "a run registers the attach and the wait before start, deletes last" {
	run_scenario 'POST /v1.41/containers/c1/wait 200 chunked await=started delay=50 chunk=4 gap=5 body={"StatusCode":3,"Error":null}'
	run --separate-stderr engine_cli -v -H "$FAKE_URL" run "$T/body"
	assert_equal "$status" 3
	assert_output "out line"
	[[ $stderr == *"err line"* ]]
	[[ $stderr == *"status=3 polled=0"* ]]
	order=$(fake_log | awk '{print $2, $3}' | sed 's/?.*//' | tr '\n' ,)
	assert_equal "$order" "GET /_ping,POST /v1.41/containers/create,POST /v1.41/containers/c1/attach,POST /v1.41/containers/c1/wait,POST /v1.41/containers/c1/start,GET /v1.41/containers/c1/json,DELETE /v1.41/containers/c1,"
	fake_log | grep -q 'wait?condition=next-exit'
	fake_log | grep -q 'DELETE /v1.41/containers/c1?force=1&v=1'
}

@test "a wait that never answers: inspect polling finds the exit status" {
	run_scenario 'POST /v1.41/containers/c1/wait 200 chunked hang'
	run --separate-stderr engine_cli -v -H "$FAKE_URL" run "$T/body" --poll-ms 100
	assert_equal "$status" 5
	assert_output "out line"
	[[ $stderr == *"status=5 polled=1"* ]]
}

@test "a wait dropped before its result: inspect polling finds it" {
	run_scenario 'POST /v1.41/containers/c1/wait 200 chunked await=started drop=6 body={"StatusCode":3}'
	run --separate-stderr engine_cli -v -H "$FAKE_URL" run "$T/body" --poll-ms 100
	assert_equal "$status" 5
	[[ $stderr == *"polled=1"* ]]
}

@test "a wait answered with the engine's own error: MGS3006" {
	run_scenario 'POST /v1.41/containers/c1/wait 200 await=started body={"StatusCode":0,"Error":{"Message":"cgroup went away"}}'
	run --separate-stderr engine_cli -H "$FAKE_URL" run "$T/body"
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"cgroup went away"* ]]
}

@test "a failed start abandons the wait and deletes the container" {
	fake_up <<-'EOF'
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack hang
	POST /v1.41/containers/c1/wait 200 chunked hang
	POST /v1.41/containers/c1/start 500 body={"message":"runc create failed: unable to start container process"}
	DELETE /v1.41/containers/c1 204
	EOF
	engine_body_min >"$T/body"
	run --separate-stderr engine_cli -H "$FAKE_URL" run "$T/body"
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"runc create failed"* ]]
	fake_log | grep -q 'DELETE /v1.41/containers/c1?force=1&v=1'
}

@test "an engine that never answers: MGS3032 after the timeout" {
	fake_up <<-'EOF'
	GET /v1.41/containers/c1/json 200 bare hang
	POST /v1.41/containers/c1/wait 200 bare hang
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" --timeout 300 inspect c1
	assert_equal "$status" 71
	assert_code MGS3032
	[[ $stderr == *"did not answer"* ]]
	run --separate-stderr engine_cli -H "$FAKE_URL" --timeout 300 wait c1
	assert_equal "$status" 71
	assert_code MGS3032
}

@test "an answer that is not JSON, not HTTP, or lacks its fields: MGS3032" {
	fake_up <<-'EOF'
	GET /v1.41/containers/c1/json 200 type=text/html body=<html>proxy error</html>
	GET /v1.41/containers/c2/json 200 bare body=SSH-2.0-OpenSSH_9.2\r\n
	GET /v1.41/containers/c3/json 200 body={"Id":"c3","State":{"Status":"exited"}}
	POST /v1.41/containers/c4/wait 200 bare body=SSH-2.0-OpenSSH_9.2\r\n\r\n
	POST /v1.41/containers/c5/wait 200 body={"Status":"done"}
	EOF
	for c in c1 c2 c3; do
		run --separate-stderr engine_cli -H "$FAKE_URL" inspect "$c"
		assert_equal "$c $status" "$c 71"
		assert_code MGS3032
	done
	for c in c4 c5; do
		run --separate-stderr engine_cli -H "$FAKE_URL" wait "$c"
		assert_equal "$c $status" "$c 71"
		assert_code MGS3032
	done
}

@test "the engines' words for a missing or unshared mount map to MGS3007" {
	fake_up <<-'EOF'
	POST /v1.41/containers/create 400 times=1 body={"message":"invalid mount config for type \\"bind\\": bind source path does not exist: /some/where"}
	POST /v1.41/containers/create 500 times=1 body={"message":"Mounts denied: \\nThe path /Users/me/src is not shared from the host and is not known to Docker."}
	POST /v1.41/containers/create 404 times=1 body={"message":"No such image: example/img:1"}
	EOF
	engine_body_min >"$T/body"
	run --separate-stderr engine_cli -H "$FAKE_URL" create "$T/body"
	assert_equal "$status" 71
	assert_code MGS3007
	[[ $stderr == *"'/some/where'"* ]]
	run --separate-stderr engine_cli -H "$FAKE_URL" create "$T/body"
	assert_equal "$status" 71
	assert_code MGS3007
	[[ $stderr == *"'/Users/me/src'"* ]]
	run --separate-stderr engine_cli -H "$FAKE_URL" create "$T/body"
	assert_equal "$status" 71
	assert_code MGS3005
}

@test "an engine's message is quoted on one line, control bytes cleaned" {
	fake_up <<-'EOF'
	DELETE /v1.41/containers/c1 404 type=text/plain body=no such\n container \x1b[31mc1\x1b[0m
	EOF
	run --separate-stderr engine_cli -H "$FAKE_URL" rm c1
	assert_equal "$status" 71
	[[ $stderr == *"no such  container ?[31mc1?[0m"* ]]
	[[ $stderr == *"kind: notfound"* ]]
}
