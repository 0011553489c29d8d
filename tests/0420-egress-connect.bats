#!/usr/bin/env bats
# magus-egress tunnelling TLS with CONNECT, and the rules for names that
# resolve to the host's own addresses.

load lib/common
load lib/egress

setup_file() {
	load lib/egress
	tls_setup_file
}
setup() {
	common_setup
	CA="$BATS_FILE_TMPDIR/tls/ca.pem"
	tls_start
}
teardown() {
	local rc=0
	egress_teardown || rc=$?
	common_teardown
	return "$rc"
}

# Run the proxy with its own /etc/hosts, in a private mount namespace.
with_hosts() {
	skip_unless "needs root for a private mount namespace" \
		unshare -m true
	cat >"$T/hosts"
	cat >"$T/wrap" <<-'EOW'
	#!/bin/sh
	exec unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$HOSTS_FILE" "$@"
	EOW
	chmod +x "$T/wrap"
	export HOSTS_FILE="$T/hosts"
	EGRESS_WRAP="$T/wrap"
}

@test "HTTPS through CONNECT: curl verifies the origin's certificate, logged as allowed" {
	egress_start --allow "localhost:$TLS_PORT" --allow "127.0.0.1:$TLS_PORT"
	run curl -fsS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	assert_success
	assert_output "hello over tls"
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .method <<<"$line")" = CONNECT ]
	[ "$(jq -r .verdict <<<"$line")" = allowed ]
	[ "$(jq -r .status <<<"$line")" = 200 ]
	[ "$(jq -r .bytes_up <<<"$line")" -gt 200 ]
	[ "$(jq -r .bytes_down <<<"$line")" -gt 200 ]
}

@test "the tunnel relays bytes unchanged both ways" {
	egress_start --allow "127.0.0.1:$TLS_PORT"
	head -c 3000000 /dev/urandom >"$T/www/blob"
	curl -fsS --cacert "$CA" -x "$EG_PROXY" -o "$T/got" "https://127.0.0.1:$TLS_PORT/blob"
	cmp "$T/got" "$T/www/blob"
}

@test "CONNECT to a destination not listed: 403, logged" {
	egress_start --allow "example.com:443"
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	[ "$status" -ne 0 ]
	[[ "$output" == *403* ]]
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .method <<<"$line")" = CONNECT ]
	[ "$(jq -r .verdict <<<"$line")" = refused ]
	[ "$(jq -r .reason <<<"$line")" = "'localhost' is not in the allowlist" ]
}

@test "CONNECT to a port not listed: 403" {
	egress_start --allow "localhost:443" --allow "127.0.0.1:443"
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
	[ "$(jq -r .reason <<<"$(egress_last_log 1)")" = "port $TLS_PORT is not allowed for 'localhost'" ]
}

@test "a listed name that resolves to loopback is refused unless the address is listed" {
	egress_start --allow "localhost:$TLS_PORT"
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .verdict <<<"$line")" = refused ]
	[[ "$(jq -r .reason <<<"$line")" == *"a loopback address the allowlist does not name"* ]]
	egress_stop
	egress_start --allow "localhost:$TLS_PORT" --allow "127.0.0.0/8:$TLS_PORT"
	run curl -fsS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	assert_success
	assert_output "hello over tls"
}

@test "an address listed for another port does not admit a name to it" {
	egress_start --allow "localhost:$TLS_PORT" --allow "127.0.0.1:443"
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
}

@test "an address is never admitted by a name entry, nor a public one unlisted" {
	egress_start --allow "localhost:$TLS_PORT" --allow "example.com:443"
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://127.0.0.1:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
	# A public address is refused without any connection attempt.
	run curl -sS -x "$EG_PROXY" "https://93.184.216.34:443/"
	[[ "$output" == *403* ]]
	[[ "$(jq -r .reason <<<"$(egress_last_log 2)")" == *"is not in the allowlist (an address is allowed only when listed as one)" ]]
}

@test "rebinding: a wildcard-allowed name pointed at loopback or a mapped loopback is refused" {
	with_hosts <<-EOF
	127.0.0.1 rebind.test
	::ffff:127.0.0.1 mapped.test
	127.0.0.1 good.test
	EOF
	egress_start --allow "*.test:$TLS_PORT"
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://rebind.test:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
	[[ "$(jq -r .reason <<<"$(egress_last_log 1)")" == "'rebind.test' resolves to 127.0.0.1, a loopback address"* ]]
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://mapped.test:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
	[[ "$(jq -r .reason <<<"$(egress_last_log 2)")" == *"a loopback address"* ]]
}

@test "a name from the hosts file reaches the origin when its address range is listed" {
	with_hosts <<-EOF
	127.0.0.1 origin.test
	EOF
	egress_start --allow "*.test:$TLS_PORT" --allow "127.0.0.0/8:$TLS_PORT"
	run curl -fsS --cacert "$CA" -x "$EG_PROXY" "https://origin.test:$TLS_PORT/hello"
	assert_success
	assert_output "hello over tls"
	[ "$(jq -r .reason <<<"$(egress_last_log 1)")" = "allowed by '*.test:$TLS_PORT'" ]
	# The wildcard does not cover the bare domain.
	run curl -sS --cacert "$CA" -x "$EG_PROXY" "https://test:$TLS_PORT/hello"
	[[ "$output" == *403* ]]
}

@test "names match without regard to case or a trailing dot" {
	egress_start --allow "LocalHost.:$TLS_PORT" --allow "127.0.0.1:$TLS_PORT"
	run curl -fsS --cacert "$CA" -x "$EG_PROXY" "https://localhost:$TLS_PORT/hello"
	assert_success
	[ "$(jq -r .host <<<"$(egress_last_log 1)")" = localhost ]
}

@test "CONNECT to an IPv6 literal, listed in brackets" {
	skip_unless "no IPv6 loopback" test -e /proc/net/if_inet6
	origin_start '[::1]'
	egress_start --allow "[::1]:$ORIGIN_PORT"
	# Plain HTTP through a CONNECT tunnel (curl --proxytunnel).
	run curl -fsS -p -x "$EG_PROXY" "http://[::1]:$ORIGIN_PORT/hello"
	assert_success
	assert_output hello
	local line
	line=$(egress_last_log 1)
	[ "$(jq -r .method <<<"$line")" = CONNECT ]
	[ "$(jq -r .address <<<"$line")" = ::1 ]
}

@test "a name that does not resolve: 502" {
	with_hosts <<-EOF
	127.0.0.1 localhost
	EOF
	# No name server answers inside the test: resolv.conf points nowhere.
	printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$T/resolv"
	cat >"$T/wrap" <<-'EOW'
	#!/bin/sh
	exec unshare -m sh -c 'mount --bind "$0" /etc/hosts && mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' "$HOSTS_FILE" "$RESOLV_FILE" "$@"
	EOW
	export RESOLV_FILE="$T/resolv"
	egress_start --allow "nowhere.invalid:443"
	run curl -sS -x "$EG_PROXY" "https://nowhere.invalid/"
	[[ "$output" == *502* ]]
	[[ "$(jq -r .reason <<<"$(egress_last_log 1)")" == "cannot resolve 'nowhere.invalid'"* ]]
}

@test "a name server that does not answer delays only the requests waiting for it" {
	# A UDP socket on 127.0.0.2:53 that never answers, as the only name
	# server the proxy knows.
	"$ORIGIN" udp:127.0.0.2:53 >"$T/dns.port" 2>"$T/dns.err" &
	EGRESS_PIDS+=("$!")
	local i
	for i in $(seq 50); do
		[ -s "$T/dns.port" ] && break
		sleep 0.1
	done
	[ -s "$T/dns.port" ] || fail "no UDP sink: $(cat "$T/dns.err")"
	with_hosts <<-EOF
	127.0.0.1 localhost
	EOF
	printf 'nameserver 127.0.0.2\noptions timeout:3 attempts:1\n' >"$T/resolv"
	cat >"$T/wrap" <<-'EOW'
	#!/bin/sh
	exec unshare -m sh -c 'mount --bind "$0" /etc/hosts && mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' "$HOSTS_FILE" "$RESOLV_FILE" "$@"
	EOW
	export RESOLV_FILE="$T/resolv"
	egress_start --allow "slow.example:443" --allow "127.0.0.1:$TLS_PORT"
	# Five lookups hang (one more than the resolver has threads, so one
	# waits in its queue) ...
	local pids=()
	for i in 1 2 3 4 5; do
		curl -sS -x "$EG_PROXY" -o /dev/null "https://slow.example/" 2>/dev/null &
		pids+=("$!")
	done
	sleep 0.5
	# ... and an address needing no lookup is served meanwhile.
	run curl -fsS --cacert "$CA" -x "$EG_PROXY" "https://127.0.0.1:$TLS_PORT/hello"
	assert_output "hello over tls"
	wait "${pids[@]}" || true
	# Had the loop waited on a lookup, this request could only have
	# ended after it: its line would not come first.
	run jq -r .host "$T/egress.log"
	assert_line --index 0 127.0.0.1
	[ "$(grep -c '"host":"slow.example".*"verdict":"failed"' "$T/egress.log")" -eq 5 ]
}
