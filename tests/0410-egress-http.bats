#!/usr/bin/env bats
# magus-egress forwarding plain HTTP: curl through the proxy to a real
# origin server on loopback.

load lib/common
load lib/egress

setup() {
	common_setup
	origin_start
	egress_start --allow "localhost:$ORIGIN_PORT" --allow "127.0.0.1:$ORIGIN_PORT"
}
teardown() {
	local rc=0
	egress_teardown || rc=$?
	common_teardown
	return "$rc"
}

@test "a GET to a listed name reaches the origin and is logged as allowed" {
	run curl -fsS -x "$EG_PROXY" "http://localhost:$ORIGIN_PORT/hello"
	assert_success
	assert_output hello
	local line
	line=$(egress_last_log 1)
	[ "$(egress_log_lines | wc -l)" -eq 1 ]
	[ "$(jq -r .verdict <<<"$line")" = allowed ]
	[ "$(jq -r .method <<<"$line")" = GET ]
	[ "$(jq -r .host <<<"$line")" = localhost ]
	[ "$(jq -r .port <<<"$line")" = "$ORIGIN_PORT" ]
	[ "$(jq -r .status <<<"$line")" = 200 ]
	[ "$(jq -r .address <<<"$line")" = 127.0.0.1 ]
	[ "$(jq -r .reason <<<"$line")" = "allowed by 'localhost:$ORIGIN_PORT'" ]
}

@test "the log line has every field, with the right types" {
	curl -fsS -x "$EG_PROXY" "http://localhost:$ORIGIN_PORT/hello" >/dev/null
	local line
	line=$(egress_last_log 1)
	# Shown when the test fails: which field was wrong.
	echo "log line: $line"
	run jq -e '
		(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z$")) and
		(.client | test("^127\\.0\\.0\\.1:[0-9]+$")) and
		(.method | type == "string") and (.host | type == "string") and
		(.port | type == "number") and (.verdict | type == "string") and
		(.status | type == "number") and (.reason | type == "string") and
		(.address | type == "string") and
		(.bytes_up > 0) and (.bytes_down > 0) and
		(.duration_ms | type == "number") and (.duration_ms >= 0)' <<<"$line"
	assert_success
}

@test "the request is forwarded in origin form, Host rewritten, hop-by-hop fields removed" {
	run curl -fsS -x "$EG_PROXY" -U user:secret --proxy-basic \
		-H 'Host: elsewhere.example' -H 'Connection: X-Private' \
		-H 'X-Private: drop me' -H 'X-Public: keep me' \
		-H 'Keep-Alive: timeout=5' -H 'Upgrade: h2c' \
		"http://localhost:$ORIGIN_PORT/echo?a=1" -o "$T/out"
	assert_success
	run tr -d '\r' <"$T/out"
	assert_line --index 0 "GET /echo?a=1 HTTP/1.1"
	assert_line "Host: localhost:$ORIGIN_PORT"
	assert_line "X-Public: keep me"
	assert_line "Connection: close"
	refute_output --partial "Proxy-Authorization"
	refute_output --partial "X-Private"
	refute_output --partial "Keep-Alive"
	refute_output --partial "Upgrade"
	refute_output --partial "elsewhere.example"
}

@test "a POST body with Content-Length arrives intact" {
	head -c 300000 /dev/urandom >"$T/body"
	curl -fsS -x "$EG_PROXY" --data-binary @"$T/body" -H 'Expect:' \
		"http://localhost:$ORIGIN_PORT/echo" -o "$T/out"
	# The echo is the head, a line "--", then the body as received.
	sed '1,/^--$/d' "$T/out" | head -c 300000 | cmp - "$T/body"
	grep -q "^Content-Length: 300000" "$T/out"
}

@test "a chunked POST body arrives intact, chunked" {
	head -c 200000 /dev/urandom >"$T/body"
	curl -fsS -x "$EG_PROXY" -H 'Transfer-Encoding: chunked' \
		--data-binary @"$T/body" "http://localhost:$ORIGIN_PORT/echo" -o "$T/out"
	grep -qi "^Transfer-Encoding: chunked" "$T/out"
	sed '1,/^--$/d' "$T/out" | head -c 200000 | cmp - "$T/body"
}

@test "Expect: 100-continue works through the proxy" {
	head -c 2000000 /dev/urandom >"$T/body"
	run curl -fsS -x "$EG_PROXY" -H 'Expect: 100-continue' \
		--data-binary @"$T/body" "http://localhost:$ORIGIN_PORT/echo" -o "$T/out"
	assert_success
	sed '1,/^--$/d' "$T/out" | cmp - "$T/body"
	# The log names the final status, not the interim 100.
	[ "$(jq -r .status <<<"$(egress_last_log 1)")" = 200 ]
}

@test "a large download arrives whole" {
	run curl -fsS -x "$EG_PROXY" -o /dev/null -w '%{size_download}' \
		"http://127.0.0.1:$ORIGIN_PORT/zero/50000000"
	assert_success
	assert_output 50000000
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .bytes_down <<<"$line")" -gt 50000000 ]
}

@test "bulk both ways, forwarded and tunnelled, arrives unchanged" {
	# Several MiB each way, so each direction's buffer fills and is
	# swapped for the bulk one mid-stream.
	head -c 6000000 /dev/urandom >"$T/body"
	curl -fsS -x "$EG_PROXY" --data-binary @"$T/body" -H 'Expect:' \
		"http://127.0.0.1:$ORIGIN_PORT/echo" -o "$T/out"
	sed '1,/^--$/d' "$T/out" | cmp - "$T/body"
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .bytes_up <<<"$line")" -gt 6000000 ]
	[ "$(jq -r .status <<<"$line")" = 200 ]
	curl -fsS -p -x "$EG_PROXY" --data-binary @"$T/body" -H 'Expect:' \
		"http://127.0.0.1:$ORIGIN_PORT/echo" -o "$T/out"
	sed '1,/^--$/d' "$T/out" | cmp - "$T/body"
	line=$(egress_last_log 2)
	[ "$(jq -r .method <<<"$line")" = CONNECT ]
	[ "$(jq -r .bytes_up <<<"$line")" -gt 6000000 ]
	[ "$(jq -r .bytes_down <<<"$line")" -gt 6000000 ]
}

@test "a destination not listed: 403 with a one-line reason, logged as refused" {
	run curl -sS -x "$EG_PROXY" -o "$T/body" -w '%{http_code}' \
		"http://example.com:$ORIGIN_PORT/hello"
	assert_output 403
	[ "$(wc -l <"$T/body")" -eq 1 ]
	grep -q "'example.com' is not in the allowlist" "$T/body"
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .verdict <<<"$line")" = refused ]
	[ "$(jq -r .status <<<"$line")" = 403 ]
	[ "$(jq -r .host <<<"$line")" = example.com ]
	[ "$(jq -r .bytes_up <<<"$line")" = 0 ]
}

@test "a listed host on a port not listed: 403" {
	run curl -sS -x "$EG_PROXY" -o "$T/body" -w '%{http_code}' \
		"http://localhost:1/hello"
	assert_output 403
	grep -q "port 1 is not allowed for 'localhost'" "$T/body"
	[ "$(jq -r .verdict <<<"$(egress_last_log 1)")" = refused ]
}

@test "an https:// URL in a plain request is refused with 400" {
	run curl -sS -x "$EG_PROXY" --proxy-insecure -o /dev/null -w '%{http_code}' \
		--request-target "https://localhost:$ORIGIN_PORT/hello" \
		"http://localhost:$ORIGIN_PORT/hello"
	assert_output 400
}

@test "an allowed port with nobody listening: 502" {
	egress_stop
	egress_start --allow "127.0.0.1:1"
	run curl -sS -x "$EG_PROXY" -o "$T/body" -w '%{http_code}' "http://127.0.0.1:1/"
	assert_output 502
	grep -q "cannot connect to '127.0.0.1' port 1" "$T/body"
	[ "$(jq -r .verdict <<<"$(egress_last_log 1)")" = failed ]
}

@test "IPv6: a listed literal is reached, an unlisted one refused" {
	skip_unless "no IPv6 loopback" test -e /proc/net/if_inet6
	origin_start '[::1]'
	local v6=$ORIGIN_PORT
	egress_stop
	egress_start --allow "[::1]:$v6"
	run curl -fsS -x "$EG_PROXY" "http://[::1]:$v6/hello"
	assert_success
	assert_output hello
	[ "$(jq -r .host <<<"$(egress_last_log 1)")" = ::1 ]
	run curl -sS -x "$EG_PROXY" -o /dev/null -w '%{http_code}' "http://[::2]:$v6/hello"
	assert_output 403
	# ::ffff:127.0.0.1 is 127.0.0.1, which is not listed here.
	run curl -sS -x "$EG_PROXY" -o /dev/null -w '%{http_code}' \
		"http://[::ffff:127.0.0.1]:$v6/hello"
	assert_output 403
}

@test "a client on the unix socket is logged with its pid and uid" {
	egress_stop
	egress_start --listen="unix:$T/s" --allow "127.0.0.1:$ORIGIN_PORT"
	run "$EGCLIENT" "unix:$T/s" forward "127.0.0.1:$ORIGIN_PORT" /hello
	assert_success
	[[ "$(jq -r .client <<<"$(egress_last_log 1)")" == "unix:pid="*",uid=$(id -u)" ]]
}
