#!/usr/bin/env bats
# magus-egress reaching a destination that is not on loopback: the
# origin lives in its own network namespace behind a veth pair, and a
# client in a namespace with nothing but loopback gets out only through
# the proxy's unix socket.  (The sandbox's --network proxy builds the
# same shape around its child; its own tests come with it.)

load lib/common
load lib/egress
load lib/netns

setup() {
	common_setup
	skip_unless "needs root and ip netns" netns_available
	local id
	id=$(netns_id)
	NS_UP="mgseg-up-$id"
	NS_CL="mgseg-cl-$id"
	NET="10.250.$((RANDOM % 250)).$((RANDOM % 60 * 4))"
	UP_ADDR="${NET%.*}.$((${NET##*.} + 2))"
	netns_add "$NS_UP"
	netns_add "$NS_CL"
	netns_veth "$NS_UP" "${NET%.*}.$((${NET##*.} + 1))/30" "$UP_ADDR/30"
	ORIGIN_WRAP="ip netns exec $NS_UP" origin_start "$UP_ADDR"
}
teardown() {
	local rc=0
	egress_teardown || rc=$?
	netns_teardown
	common_teardown
	return "$rc"
}

@test "the proxy reaches an allowed origin in another namespace over a veth" {
	egress_start --allow "$UP_ADDR:$ORIGIN_PORT"
	run curl -fsS -x "$EG_PROXY" "http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_output hello
	run curl -fsS -p -x "$EG_PROXY" "http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_output hello
	[ "$(jq -r .address <<<"$(egress_last_log 2)")" = "$UP_ADDR" ]
}

@test "from a loopback-only namespace: direct fails, the proxy's unix socket gets through" {
	egress_start --listen="unix:$T/egress.sock" --allow "$UP_ADDR:$ORIGIN_PORT"
	run --separate-stderr ip netns exec "$NS_CL" \
		"$EGCLIENT" "$UP_ADDR:$ORIGIN_PORT" direct "$UP_ADDR:$ORIGIN_PORT" /hello
	assert_failure
	[[ "$stderr" == *"Network is unreachable"* ]]
	run ip netns exec "$NS_CL" \
		"$EGCLIENT" "unix:$T/egress.sock" forward "$UP_ADDR:$ORIGIN_PORT" /hello
	assert_success
	assert_output --partial hello
	run ip netns exec "$NS_CL" \
		"$EGCLIENT" "unix:$T/egress.sock" connect "$UP_ADDR:$ORIGIN_PORT" /hello
	assert_success
	assert_output --partial hello
}

@test "from the loopback-only namespace, what is not listed stays out" {
	egress_start --listen="unix:$T/egress.sock" --allow "$UP_ADDR:$ORIGIN_PORT"
	run ip netns exec "$NS_CL" \
		"$EGCLIENT" "unix:$T/egress.sock" connect "$UP_ADDR:22" /
	assert_failure
	assert_output --partial " 403 "
	run ip netns exec "$NS_CL" \
		"$EGCLIENT" "unix:$T/egress.sock" forward "${NET%.*}.$((${NET##*.} + 1)):$ORIGIN_PORT" /hello
	assert_failure
	assert_output --partial " 403 "
}

@test "a name resolving to the veth's private address needs the range listed" {
	skip_unless "needs a private mount namespace" unshare -m true
	printf '%s upstream.test\n' "$UP_ADDR" >"$T/hosts"
	cat >"$T/wrap" <<-'EOW'
	#!/bin/sh
	exec unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$HOSTS_FILE" "$@"
	EOW
	chmod +x "$T/wrap"
	export HOSTS_FILE="$T/hosts"
	EGRESS_WRAP="$T/wrap" egress_start --allow "upstream.test:$ORIGIN_PORT"
	run curl -sS -x "$EG_PROXY" -o "$T/body" -w '%{http_code}' \
		"http://upstream.test:$ORIGIN_PORT/hello"
	assert_output 403
	grep -q "resolves to $UP_ADDR, a private address" "$T/body"
	egress_stop
	EGRESS_WRAP="$T/wrap" egress_start --allow "upstream.test:$ORIGIN_PORT" \
		--allow "$NET/30:$ORIGIN_PORT"
	run curl -fsS -x "$EG_PROXY" "http://upstream.test:$ORIGIN_PORT/hello"
	assert_output hello
}

@test "netns_teardown leaves no namespace or link behind" {
	local ns="mgseg-tmp-$(netns_id)" veth
	netns_add "$ns"
	netns_veth "$ns" 10.251.0.1/30 10.251.0.2/30
	veth=$NETNS_VETH
	ip netns exec "$ns" sleep 60 &
	netns_teardown
	wait || true
	run ip netns list
	refute_output --partial "$ns"
	refute_output --partial "$NS_UP"
	run ip link show "$veth"
	assert_failure
}
