#!/usr/bin/env bats
# magus-egress under bad and hostile clients and servers: malformed
# requests, slow clients, too many connections, disconnects, back-pressure.

load lib/common
load lib/egress

setup() {
	common_setup
	origin_start
}
teardown() {
	local fd
	for fd in ${OPEN_FDS:-}; do
		eval "exec $fd>&-" 2>/dev/null || true
	done
	local rc=0
	egress_teardown || rc=$?
	common_teardown
	return "$rc"
}

# Open a raw connection to the proxy; its fd is in $FD.
raw_open() {
	exec {FD}<>"/dev/tcp/127.0.0.1/$EG_PORT"
	OPEN_FDS="${OPEN_FDS:-} $FD"
}

# Everything the proxy sends until it closes (at most 10 s).
raw_read_all() {
	timeout 10 cat <&"$FD" | tr -d '\r'
}

@test "a malformed request line: 400 with a one-line reason, logged as malformed" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	raw_open
	printf 'THIS IS NOT HTTP\r\n\r\n' >&"$FD"
	run raw_read_all
	assert_line --index 0 "HTTP/1.1 400 Bad Request"
	assert_line --regexp '^magus-egress: [a-z].*'
	[ "$(grep -c . <<<"$output")" -eq 5 ]
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .verdict <<<"$line")" = malformed ]
	[ "$(jq -r .status <<<"$line")" = 400 ]
}

@test "more malformed requests: 400 each, and the proxy keeps serving" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	local req
	for req in 'GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' \
		"GET http://127.0.0.1:$ORIGIN_PORT/ HTTP/1.1\\r\\nX: a\\r\\n b\\r\\n\\r\\n" \
		"GET http://127.0.0.1:$ORIGIN_PORT/ HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n" \
		"POST http://127.0.0.1:$ORIGIN_PORT/ HTTP/1.1\\r\\nContent-Length: 1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n" \
		'CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n' \
		"GET http://127.0.0.1:$ORIGIN_PORT/ HTTP/9.9\\r\\n\\r\\n"; do
		raw_open
		printf "$req" >&"$FD"
		run raw_read_all
		assert_line --index 0 "HTTP/1.1 400 Bad Request"
	done
	run curl -fsS -x "$EG_PROXY" "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "a head longer than 16 KiB: 431" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	run curl -sS -x "$EG_PROXY" -o /dev/null -w '%{http_code}' \
		-H "X-Big: $(head -c 20000 /dev/zero | tr '\0' a)" \
		"http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output 431
}

@test "a slow client: 408 and closed after the header timeout" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT" --header-timeout 1
	raw_open
	printf 'GET http://127.0.0.1:%s/hello HTTP/1.1\r\nHo' "$ORIGIN_PORT" >&"$FD"
	run raw_read_all
	assert_line --index 0 "HTTP/1.1 408 Request Timeout"
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .verdict <<<"$line")" = timeout ]
	[ "$(jq -r .status <<<"$line")" = 408 ]
}

@test "a client that trickles bytes is still cut off at the deadline" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT" --header-timeout 1
	raw_open
	local i
	for i in 1 2 3 4; do
		printf 'X-%s: y\r\n' "$i" >&"$FD" 2>/dev/null || break
		sleep 0.4
	done
	run raw_read_all
	assert_line --index 0 "HTTP/1.1 408 Request Timeout"
}

@test "too many connections: 503, and service resumes when they close" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT" --max-conns 2 --header-timeout 30
	local a b
	raw_open; a=$FD
	raw_open; b=$FD
	printf 'GET http://127.0.0.1:%s/hello HTTP/1.1\r\n' "$ORIGIN_PORT" >&"$a"
	printf 'GET http://127.0.0.1:%s/hello HTTP/1.1\r\n' "$ORIGIN_PORT" >&"$b"
	sleep 0.2
	run curl -sS -x "$EG_PROXY" -o "$T/body" -w '%{http_code}' "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output 503
	grep -q "too many connections (the limit is 2)" "$T/body"
	[ "$(jq -r .verdict <<<"$(egress_last_log 1)")" = overloaded ]
	exec {a}>&- {b}>&-
	sleep 0.2
	run curl -fsS -x "$EG_PROXY" "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "a flood of connections: bounded, and the proxy survives it" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT" --max-conns 20 --header-timeout 2
	local i pids=()
	for i in $(seq 150); do
		(exec 3<>"/dev/tcp/127.0.0.1/$EG_PORT" && printf 'GET ' >&3 && exec sleep 3) 2>/dev/null &
		pids+=("$!")
	done
	sleep 0.5
	# No more open client sockets than slots (20 + 16 answering 503).
	local n
	n=$(ls -l "/proc/$EG_PID/fd" | grep -c socket)
	[ "$n" -le 40 ] || fail "$n sockets open"
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	kill -0 "$EG_PID"
	run --separate-stderr curl -fsS --retry 3 --retry-delay 1 --retry-all-errors \
		-x "$EG_PROXY" "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "a client that disconnects mid-download: logged with the error, proxy unharmed" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	run curl -sS -x "$EG_PROXY" --max-time 0.5 --limit-rate 1M -o /dev/null \
		"http://127.0.0.1:$ORIGIN_PORT/zero/500000000"
	[ "$status" -eq 28 ]
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .verdict <<<"$line")" = allowed ]
	[ "$(jq -r .bytes_down <<<"$line")" -lt 500000000 ]
	[[ "$(jq -r .error <<<"$line")" == client:* ]]
	run curl -fsS -x "$EG_PROXY" "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "a tunnel whose client disconnects mid-stream" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	run curl -sS -p -x "$EG_PROXY" --max-time 0.5 --limit-rate 1M -o /dev/null \
		"http://127.0.0.1:$ORIGIN_PORT/zero/500000000"
	[ "$status" -eq 28 ]
	[ "$(jq -r .method <<<"$(egress_last_log 1)")" = CONNECT ]
	run curl -fsS -p -x "$EG_PROXY" "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "a server that disconnects mid-response: the client sees it cut, the proxy carries on" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	run curl -sS -x "$EG_PROXY" -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/cut/1000000"
	[ "$status" -eq 18 ]
	run curl -sS -p -x "$EG_PROXY" -o /dev/null "http://127.0.0.1:$ORIGIN_PORT/cut/1000000"
	[ "$status" -eq 18 ]
	run curl -fsS -x "$EG_PROXY" "http://127.0.0.1:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "a slow reader: the proxy's memory stays bounded (back-pressure)" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	curl -sS -x "$EG_PROXY" --limit-rate 2M -o /dev/null \
		"http://127.0.0.1:$ORIGIN_PORT/zero/2000000000" &
	local cpid=$! rss
	sleep 1.5
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$EG_PID/status")
	kill "$cpid"
	wait "$cpid" || true
	# Unbounded buffering would hold hundreds of MB by now.
	[ "$rss" -lt 65536 ] || fail "RSS $rss kB"
}

@test "a malformed chunked body ends the connection and is logged" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	raw_open
	printf 'POST http://127.0.0.1:%s/echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n' \
		"$ORIGIN_PORT" >&"$FD"
	# The bad chunk comes once the request is on its way to the server.
	sleep 0.3
	printf 'ZZ\r\n' >&"$FD"
	run raw_read_all
	refute_output --partial "200 OK"
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .error <<<"$line")" = "client: malformed chunked request body" ]
}

@test "the server answers before the body is complete: the answer still arrives" {
	egress_start --allow "127.0.0.1:$ORIGIN_PORT"
	raw_open
	printf 'POST http://127.0.0.1:%s/early HTTP/1.1\r\nContent-Length: 100000000\r\n\r\nxx' \
		"$ORIGIN_PORT" >&"$FD"
	run raw_read_all
	assert_line --index 0 "HTTP/1.1 200 OK"
	assert_line early
}
