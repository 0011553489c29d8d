#!/usr/bin/env bats
# --network proxy end to end: real curl inside the sandbox, real origin
# servers in a namespace of the test's own, magus-egress in between.
# Each refusal is shown next to the same attempt succeeding where the
# path is open, so that a test cannot pass because nothing worked.

load lib/common
load lib/egress
load lib/netns
load lib/netproxy

setup_file() {
	load lib/netproxy
	np_tls_setup_file
}
setup() { np_setup; }
teardown() { np_teardown; }

@test "plain HTTP to a listed destination: curl inside the sandbox, through the proxy" {
	run --separate-stderr nsbx --mode required \
		--egress-allow "$UP_ADDR:$ORIGIN_PORT" -- \
		curl -q -fsS "http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_success
	assert_output hello
	run np_log 1
	[ "$(jq -r .verdict <<<"$output")" = allowed ]
	[ "$(jq -r .method <<<"$output")" = GET ]
	[ "$(jq -r .host <<<"$output")" = "$UP_ADDR" ]
}

@test "HTTPS to a listed destination: CONNECT, and curl verifies the origin's certificate" {
	np_tls_start
	run --separate-stderr nsbx --mode required \
		--egress-allow "$UP_ADDR:$TLS_PORT" -- \
		curl -q -fsS --cacert "$WS/ca.pem" "https://$UP_ADDR:$TLS_PORT/hello"
	assert_success
	assert_output "hello over tls"
	run np_log 1
	[ "$(jq -r .method <<<"$output")" = CONNECT ]
	[ "$(jq -r .verdict <<<"$output")" = allowed ]
	[ "$(jq -r .port <<<"$output")" = "$TLS_PORT" ]
}

@test "a destination not listed: 403, and logged as refused" {
	np_tls_start
	run --separate-stderr nsbx --mode required \
		--egress-allow "example.test:443" -- \
		curl -q -sS -o /dev/null -w '%{http_code}' "http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_output 403
	run np_log 1
	[ "$(jq -r .verdict <<<"$output")" = refused ]
	[ "$(jq -r .status <<<"$output")" = 403 ]
	# CONNECT too: curl reports the proxy's answer.
	rm -f "$T/egress.log"
	run --separate-stderr nsbx --mode required \
		--egress-allow "example.test:443" -- \
		curl -q -sS --cacert "$WS/ca.pem" "https://$UP_ADDR:$TLS_PORT/hello"
	assert_failure
	[[ "$stderr" == *403* ]]
	run np_log 1
	[ "$(jq -r .method <<<"$output")" = CONNECT ]
	[ "$(jq -r .verdict <<<"$output")" = refused ]
}

@test "a listed host on a port not listed: 403" {
	run --separate-stderr nsbx --mode required \
		--egress-allow "$UP_ADDR:$ORIGIN_PORT" -- \
		curl -q -sS -o /dev/null -w '%{http_code}' "http://$UP_ADDR:$((ORIGIN_PORT == 65535 ? 1 : ORIGIN_PORT + 1))/hello"
	assert_output 403
	[ "$(jq -r .verdict <<<"$(np_log 1)")" = refused ]
}

@test "a direct TCP connection that ignores the proxy variables gets nowhere" {
	# The same request without the sandbox's network works ...
	run --separate-stderr nsbx_plain --mode required -- \
		curl -q -fsS --noproxy '*' "http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_success
	assert_output hello
	# ... and under proxy it fails, whether Landlock's port rule (ABI 4)
	# refuses it or, below ABI 4, the empty namespace has no route.
	run --separate-stderr nsbx --mode required -- \
		curl -q -sS --noproxy '*' "http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_failure 7
	SBX_ENV=MAGUS_LANDLOCK_ABI_MAX=3 run --separate-stderr nsbx --mode required -- \
		/bin/bash -c "exec 3<>/dev/tcp/$UP_ADDR/$ORIGIN_PORT"
	assert_failure
	[[ "$stderr" == *"Network is unreachable"* ]]
	# Nothing reached the proxy either.
	[ ! -s "$T/egress.log" ]
}

@test "the forwarder's own port on another address: no route" {
	# Landlock's rule names a port, not an address: the namespace is what
	# stops a connection to the forwarder's port number elsewhere.
	run --separate-stderr nsbx --mode required -- /bin/bash -c \
		'p=${HTTP_PROXY##*:}; exec 3<>/dev/tcp/'"$UP_ADDR"'/$p'
	assert_failure
	[[ "$stderr" == *"Network is unreachable"* ]]
}

@test "UDP to an outside address fails, and nothing arrives" {
	ip netns exec "$NS_UP" "$ORIGIN" "udp:$UP_ADDR:0" >"$T/udp.port" 2>/dev/null &
	EGRESS_PIDS+=("$!")
	local i
	for i in $(seq 50); do [ -s "$T/udp.port" ] && break; sleep 0.1; done
	UDP_PORT=$(cat "$T/udp.port")
	[ -n "$UDP_PORT" ]
	run --separate-stderr nsbx --mode required -- \
		/bin/bash -c "echo leak >/dev/udp/$UP_ADDR/$UDP_PORT"
	assert_failure
	[[ "$stderr" == *"Network is unreachable"* ]]
	run ip netns exec "$NS_UP" ss -Hun state all "sport = :$UDP_PORT"
	[ "$(awk '{print $2}' <<<"$output")" = 0 ]
	# The same datagram without the proxy's namespace does arrive.
	run --separate-stderr nsbx_plain --mode required -- \
		/bin/bash -c "echo leak >/dev/udp/$UP_ADDR/$UDP_PORT"
	assert_success
	for i in $(seq 50); do
		run ip netns exec "$NS_UP" ss -Hun state all "sport = :$UDP_PORT"
		[ "$(awk '{print $2}' <<<"$output")" != 0 ] && break
		sleep 0.1
	done
	[ "$(awk '{print $2}' <<<"$output")" != 0 ]
}

@test "a name that resolves to loopback is refused unless its address is listed" {
	# An origin on the proxy's own loopback: the host's services.
	ORIGIN_WRAP="ip netns exec $NS_RUN" origin_start 127.0.0.1
	run --separate-stderr nsbx --mode required \
		--egress-allow "localhost:$ORIGIN_PORT" -- \
		curl -q -sS -o /dev/null -w '%{http_code}' "http://localhost:$ORIGIN_PORT/hello"
	assert_output 403
	[[ "$(jq -r .reason <<<"$(np_log 1)")" == *loopback* ]]
	run --separate-stderr nsbx --mode required \
		--egress-allow "localhost:$ORIGIN_PORT" \
		--egress-allow "127.0.0.1:$ORIGIN_PORT" -- \
		curl -q -fsS "http://localhost:$ORIGIN_PORT/hello"
	assert_success
	assert_output hello
}

@test "a malformed request through the forwarder: 400" {
	run --separate-stderr nsbx --mode required -- /bin/bash -c \
		'exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}
		printf "NONSENSE\r\n\r\n" >&3; head -n 1 <&3'
	assert_success
	[[ "$output" == "HTTP/1.1 400 "* ]]
	[ "$(jq -r .verdict <<<"$(np_log 1)")" = malformed ]
}

@test "a slow client: 408 and the connection closed, through the forwarder" {
	run --separate-stderr nsbx --mode required -- /bin/bash -c \
		'exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}
		printf "GET http://a" >&3; timeout 30 cat <&3'
	assert_success
	[[ "${lines[0]}" == "HTTP/1.1 408 "* ]]
}

@test "too many connections: the proxy's 503 reaches the command" {
	# magus-egress's default bound is 256: hold that many tunnels open.
	cat >"$WS/flood" <<-EOF
	#!/bin/bash
	port=\${HTTP_PROXY##*:}
	fds=()
	for i in \$(seq 256); do
		exec {fd}<>/dev/tcp/127.0.0.1/\$port || exit 3
		printf 'CONNECT $UP_ADDR:$ORIGIN_PORT HTTP/1.1\r\n\r\n' >&\$fd
		fds+=("\$fd")
	done
	for fd in "\${fds[@]}"; do
		read -r -t 20 line <&\$fd || exit 4
		[[ \$line == "HTTP/1.1 200 "* ]] || exit 5
	done
	curl -q -sS -o /dev/null -w '%{http_code}' "http://$UP_ADDR:$ORIGIN_PORT/hello"
	EOF
	chmod +x "$WS/flood"
	run --separate-stderr nsbx --mode required \
		--egress-allow "$UP_ADDR:$ORIGIN_PORT" -- "$WS/flood"
	assert_success
	assert_output 503
}
