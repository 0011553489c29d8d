#!/usr/bin/env bats
# The engine client's socket rules: a unix:// URL told, never found; the
# sun_path limit; an unreachable socket; no DOCKER_HOST, no proxy, no
# probe of known paths; descriptors close-on-exec; libcurl only where the
# engine client is.

load lib/common
load lib/engine

setup() { common_setup; unset DOCKER_HOST DOCKER_CONTEXT; }

# LeakSanitizer cannot run under ptrace: no leak checks under strace.
traced() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq "$@"
}
teardown() { fake_down; common_teardown; }

@test "tcp:// is refused before anything is contacted (exit 2, MGS3001)" {
	skip_unless "strace is needed to watch the system calls" command -v strace
	run --separate-stderr traced -e trace=connect -o "$T/trace" \
		"$ENGINE_CLI" -H tcp://127.0.0.1:2375 ping
	assert_equal "$status" 2
	assert_code MGS3001
	assert_equal "$(grep -c 'connect(' "$T/trace")" 0
	[[ $stderr == *"'tcp'"* ]]
}

@test "ssh://, http://, npipe:// and fd:// are refused (exit 2, MGS3001)" {
	for url in ssh://me@build-host http://localhost:2375 \
		npipe:////./pipe/docker_engine fd://; do
		run --separate-stderr "$ENGINE_CLI" -H "$url" ping
		assert_equal "$status" 2
		assert_code MGS3001
	done
}

@test "a password in a refused URL is never printed" {
	run --separate-stderr "$ENGINE_CLI" -H https://me:hunter2@host/x ping
	assert_equal "$status" 2
	assert_code MGS3001
	[[ $stderr != *hunter2* ]]
	[[ $stderr == *'***'* ]]
}

@test "a bare path is refused with the unix:// spelling to use" {
	run --separate-stderr "$ENGINE_CLI" -H /run/podman/podman.sock ping
	assert_equal "$status" 2
	assert_code MGS3001
	[[ $stderr == *unix:///run/podman/podman.sock* ]]
}

@test "a relative unix:// path is refused" {
	run --separate-stderr "$ENGINE_CLI" -H unix://podman.sock ping
	assert_equal "$status" 2
	assert_code MGS3001
}

@test "a socket path over sun_path's 107 bytes is refused naming both (MGS3003)" {
	local dir=/tmp/ long
	long=$dir$(printf 'x%.0s' $(seq $((108 - ${#dir}))))
	assert_equal "${#long}" 108
	run --separate-stderr "$ENGINE_CLI" -H "unix://$long" ping
	assert_equal "$status" 2
	assert_code MGS3003
	[[ $stderr == *"is 108 bytes"* ]]
	[[ $stderr == *107* ]]
	# One byte less is a path like any other: tried, and absent.
	run --separate-stderr "$ENGINE_CLI" -H "unix://${long%x}" ping
	assert_equal "$status" 71
	assert_code MGS3002
}

@test "a missing socket: exit 71, MGS3002, naming it and who starts it" {
	run --separate-stderr "$ENGINE_CLI" -H "unix://$T/no.sock" ping
	assert_equal "$status" 71
	assert_code MGS3002
	[[ $stderr == *"'$T/no.sock'"* ]]
	[[ $stderr == *"No such file or directory"* ]]
	[[ $stderr == *"hint: start the container runtime"* ]]
}

@test "a socket nobody listens on: connection refused, MGS3002" {
	fake_up </dev/null
	kill -KILL "$FAKE_PID"
	wait "$FAKE_PID" 2>/dev/null || true
	FAKE_PID=
	[ -S "$FAKE_SOCK" ]
	run --separate-stderr "$ENGINE_CLI" -H "$FAKE_URL" ping
	assert_equal "$status" 71
	assert_code MGS3002
	[[ $stderr == *"Connection refused"* ]]
}

@test "a file that is not a socket: MGS3002" {
	: >"$T/plain"
	run --separate-stderr "$ENGINE_CLI" -H "unix://$T/plain" ping
	assert_equal "$status" 71
	assert_code MGS3002
}

@test "DOCKER_HOST, DOCKER_CONTEXT and proxy variables are never read" {
	fake_up </dev/null
	export DOCKER_HOST=$FAKE_URL DOCKER_CONTEXT=other \
		http_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
		ALL_PROXY=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9
	# Told a missing socket, the client fails rather than take DOCKER_HOST.
	run --separate-stderr "$ENGINE_CLI" -H "unix://$T/no.sock" ping
	assert_equal "$status" 71
	assert_code MGS3002
	assert_equal "$(fake_log)" ""
	# With proxies set, the unix socket is still spoken to directly.
	run --separate-stderr "$ENGINE_CLI" -H "$FAKE_URL" ping
	assert_success
	assert_output --partial "api=1.41"
}

@test "no well-known socket path is ever tried" {
	skip_unless "strace is needed to watch the system calls" command -v strace
	run traced -e trace=connect,openat,stat,newfstatat,access \
		-o "$T/trace" "$ENGINE_CLI" -H "unix://$T/no.sock" ping
	assert_equal "$status" 71
	grep 'connect(' "$T/trace" >"$T/connects"
	[ -s "$T/connects" ]
	! grep -v "$T/no.sock" "$T/connects"
	! grep -E 'docker\.sock|podman\.sock|/run/user/|\.docker|colima|orbstack|rd/docker' "$T/trace"
}

@test "every descriptor the client opens is close-on-exec" {
	fake_up <<-'EOF'
	GET /v1.41/info 200 body={"OSType":"linux","SecurityOptions":[]}
	POST /v1.41/containers/c1/wait 200 chunked hang
	POST /v1.41/containers/c1/attach 200 hijack hang
	EOF
	run "$ENGINE_CLI" -H "$FAKE_URL" fdcheck c1
	assert_success
	assert_line "leaks=0"
	# The curl connection, the wait and the attach: three at least.
	local n
	n=$(sed -n 's/^descriptors=//p' <<<"$output")
	[ "$n" -ge 3 ]
}

@test "libcurl is linked only where the engine client is" {
	run readelf -d "$ENGINE_CLI"
	assert_output --partial libcurl
	run readelf -d "$MAGUS_BUILD_DIR/bin/magus"
	refute_output --partial libcurl
	run readelf -d "$FAKE_ENGINE"
	refute_output --partial libcurl
	# libmagus itself never calls libcurl: that is libmagus-engine's job.
	run nm -u "$MAGUS_BUILD_DIR/lib/libmagus.a"
	refute_output --partial curl_
	run nm -u "$MAGUS_BUILD_DIR/lib/libmagus-engine.a"
	assert_output --partial curl_easy_perform
}

@test "engine-cli --help lists every command the suites use" {
	run "$ENGINE_CLI" --help
	assert_success
	for c in ping info image-inspect image-pull create start kill resize \
		inspect wait rm ps volume-create volumes volume-rm attach run fdcheck; do
		assert_output --partial "  $c"
	done
}
