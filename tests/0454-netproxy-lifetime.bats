#!/usr/bin/env bats
# --network proxy: the proxy and the forwarder live exactly as long as
# the command, however it ends; and where no network namespace can be
# made, best-effort says what is left open and required refuses.

load lib/common
load lib/egress
load lib/netns
load lib/netproxy

setup() { np_setup; }
teardown() { np_teardown; }

# Start the sandbox in the background with a command that writes its pid
# and sleeps; SBX_BG is the background job's pid, SBX_PID the sandbox's
# own (the command's parent), CMD_PID the command's.
start_sleeper() {
	nsbx --mode required -v --egress-allow "$UP_ADDR:$ORIGIN_PORT" -- \
		/bin/sh -c 'echo $$ >"$0/cmd.pid"; exec sleep 60' "$WS" \
		>/dev/null 2>"$T/sbx.err" &
	SBX_BG=$!
	EGRESS_PIDS+=("$SBX_BG")
	np_pids_of "$T/sbx.err"
	local i
	for i in $(seq 100); do [ -s "$WS/cmd.pid" ] && break; sleep 0.1; done
	CMD_PID=$(cat "$WS/cmd.pid")
	[ -n "$CMD_PID" ]
	SBX_PID=$(awk '/^PPid:/ {print $2}' "/proc/$CMD_PID/status")
	[ "$(cat "/proc/$SBX_PID/comm")" = magus-sandbox-e ]
	# All three are alive, and the socket is there.
	kill -0 "$FWD_PID" "$EG_PID" "$CMD_PID"
	[ -S "$EG_DIR/egress.sock" ]
}

# Everything the sandbox started is gone: the command, the forwarder,
# the proxy, its directory and socket.
assert_all_gone() {
	np_gone "$CMD_PID" "$FWD_PID" "$EG_PID"
	local i
	for i in $(seq 50); do [ -e "$EG_DIR" ] || break; sleep 0.1; done
	[ ! -e "$EG_DIR" ] || fail "the proxy's directory '$EG_DIR' is left"
}

@test "the proxy and the forwarder stop when the command exits" {
	run --separate-stderr nsbx --mode required -v \
		--egress-allow "$UP_ADDR:$ORIGIN_PORT" -- \
		/bin/sh -c 'echo $$ >"$0/cmd.pid"; curl -q -fsS "$1"' "$WS" \
		"http://$UP_ADDR:$ORIGIN_PORT/hello"
	assert_success
	assert_output hello
	printf '%s\n' "$stderr" >"$T/sbx.err"
	np_pids_of "$T/sbx.err"
	CMD_PID=$(cat "$WS/cmd.pid")
	assert_all_gone
}

@test "the command's status is the sandbox's, and the proxy goes with a failing command" {
	run --separate-stderr nsbx --mode required -v -- /bin/sh -c 'exit 42'
	assert_failure 42
	printf '%s\n' "$stderr" >"$T/sbx.err"
	np_pids_of "$T/sbx.err"
	np_gone "$FWD_PID" "$EG_PID"
	[ ! -e "$EG_DIR" ]
}

@test "the command killed by SIGKILL: 137, and the proxy and forwarder are gone" {
	start_sleeper
	kill -KILL "$CMD_PID"
	local rc=0
	wait "$SBX_BG" || rc=$?
	[ "$rc" = 137 ]
	assert_all_gone
}

@test "the sandbox itself killed by SIGKILL: the command, forwarder and proxy follow" {
	start_sleeper
	kill -KILL "$SBX_PID"
	wait "$SBX_BG" || true
	assert_all_gone
}

@test "SIGTERM to the sandbox: forwarded to the command, 143, all torn down" {
	start_sleeper
	kill -TERM "$SBX_PID"
	local rc=0
	wait "$SBX_BG" || rc=$?
	[ "$rc" = 143 ]
	assert_all_gone
}

@test "the proxy killed under the command: MGS2020, and its connections fail from then on" {
	cat >"$WS/twice" <<-EOF
	#!/bin/sh
	curl -q -fsS "http://$UP_ADDR:$ORIGIN_PORT/hello" || exit 3
	echo \$\$ >"$WS/cmd.pid"
	while [ ! -e "$WS/killed" ]; do sleep 0.1; done
	curl -q -fsS "http://$UP_ADDR:$ORIGIN_PORT/hello" && exit 4
	exit 0
	EOF
	chmod +x "$WS/twice"
	nsbx --mode required -v --egress-allow "$UP_ADDR:$ORIGIN_PORT" -- \
		"$WS/twice" >"$T/out" 2>"$T/sbx.err" &
	SBX_BG=$!
	EGRESS_PIDS+=("$SBX_BG")
	np_pids_of "$T/sbx.err"
	local i rc=0
	for i in $(seq 100); do [ -s "$WS/cmd.pid" ] && break; sleep 0.1; done
	kill -KILL "$EG_PID"
	np_gone "$EG_PID" "$FWD_PID"
	touch "$WS/killed"
	wait "$SBX_BG" || rc=$?
	[ "$rc" = 0 ] || fail "the command exited $rc: $(cat "$T/sbx.err")"
	grep -q 'MGS2020' "$T/sbx.err"
	[ ! -e "$EG_DIR" ]
}

# Run COMMAND... in a user namespace of its own in $NS_RUN whose limit of
# network namespaces is 0, so that neither unshare(CLONE_NEWNET) nor a
# nested user namespace can make one.
no_netns() {
	ip netns exec "$NS_RUN" unshare -U -r /bin/sh -c \
		'echo 0 >/proc/sys/user/max_net_namespaces && exec "$@"' sh "$@"
}

@test "no network namespace: required refuses with MGS2019, exit 78, nothing ran" {
	skip_unless "needs unprivileged user namespaces" unshare -U -r true
	run --separate-stderr no_netns env -i PATH="$SBX_PATH" HOME="$HOME" \
		MAGUS_EXEC_PATH="$MAGUS_EXEC_PATH" "$SBX" --root "$WS" \
		--mode required --network proxy -- touch "$WS/ran"
	assert_failure 78
	assert_code MGS2019
	[ ! -e "$WS/ran" ]
}

@test "no network namespace: best-effort runs with the proxy and Landlock's port rule, MGS2018 says what is open" {
	skip_unless "needs unprivileged user namespaces" unshare -U -r true
	ORIGIN_WRAP="ip netns exec $NS_RUN" origin_start 127.0.0.1
	local port=$ORIGIN_PORT
	run --separate-stderr no_netns env -i PATH="$SBX_PATH" HOME="$HOME" \
		MAGUS_EXEC_PATH="$MAGUS_EXEC_PATH" "$SBX" --root "$WS" \
		--mode best-effort --network proxy \
		--egress-allow "127.0.0.1:$port" --egress-log "$T/egress.log" -- \
		/bin/sh -c 'curl -q -fsS "$1" && curl -q -sS --noproxy "*" "$1"' \
		sh "http://127.0.0.1:$port/hello"
	# Through the proxy: yes.  Around it, to another port: Landlock (ABI 4).
	assert_failure 7
	assert_output hello
	assert_code MGS2018
	[[ "$stderr" == *"udp (dns included)"* ]]
	[ "$(jq -r .verdict <<<"$(np_log 1)")" = allowed ]
}

@test "unprivileged: the namespace is made inside a user namespace" {
	skip_unless "needs unprivileged user namespaces" \
		setpriv --reuid=65534 --regid=65534 --clear-groups unshare -U -n true
	local ws
	ws=$(mktemp -d /tmp/magus-np-ws.XXXXXX)
	chown 65534:65534 "$ws"
	chmod 755 "$T"
	touch "$T/egress.log"
	chown 65534:65534 "$T/egress.log"
	run --separate-stderr ip netns exec "$NS_RUN" setpriv --reuid=65534 \
		--regid=65534 --clear-groups env -i PATH="$SBX_PATH" HOME="$HOME" \
		MAGUS_EXEC_PATH="$MAGUS_EXEC_PATH" "$SBX" --root "$ws" \
		--mode required --network proxy -v \
		--egress-allow "$UP_ADDR:$ORIGIN_PORT" --egress-log "$T/egress.log" -- \
		/bin/sh -c 'id -u; curl -q -fsS "$1"' sh "http://$UP_ADDR:$ORIGIN_PORT/hello"
	rm -rf "$ws"
	[ "$status" = 0 ] || fail "status $status: $stderr"
	assert_line --index 0 65534
	assert_line --index 1 hello
	[[ "$stderr" == *"network namespace inside a user namespace"* ]]
}
