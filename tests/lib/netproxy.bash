# Helpers for the suites of the sandbox's --network proxy (tests/045x).
#
# Each test gets two network namespaces of its own, joined by a veth
# pair, so nothing it does touches the machine's network:
#
#	$NS_RUN	where magus-sandbox-exec (and so magus-egress) runs; its
#		loopback stands for the host's own services
#	$NS_UP	the outside world: the origin servers, on $UP_ADDR
#
#	np_setup			the namespaces, $WS, the origin
#	np_tls_setup_file		a test CA and a certificate for $UP_ADDR
#	np_tls_start			openssl s_server on $UP_ADDR: $TLS_PORT
#	nsbx [OPTION...] -- COMMAND...	the sandbox, run in $NS_RUN, under
#					--network proxy (nsbx_plain: without)
#	np_pids_of FILE			the forwarder's and proxy's pids and the
#					proxy's directory, from a -v stderr
#	np_gone PID...			each process is gone (not even a zombie)
#
# Servers are registered with lib/egress.bash's EGRESS_PIDS and stopped by
# egress_teardown; netns_teardown then kills whatever is left inside the
# namespaces and deletes them.

SBX=$MAGUS_EXEC_PATH/magus-sandbox-exec
SBX_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The veth pair's /30: one side in each namespace, none in the root
# namespace, so parallel suites never meet.
RUN_ADDR=10.251.0.1
UP_ADDR=10.251.0.2

np_available() {
	netns_available && [ -x "$SBX" ] && command -v curl
}

np_setup() {
	common_setup
	skip_unless "needs root and ip netns" netns_available
	local id
	id=$(netns_id)
	NS_RUN="mgsnp-run-$id"
	NS_UP="mgsnp-up-$id"
	netns_add "$NS_RUN"
	netns_add "$NS_UP"
	ip link add name np0 netns "$NS_RUN" type veth peer name np1 \
		netns "$NS_UP" || return 1
	ip -n "$NS_RUN" addr add "$RUN_ADDR/30" dev np0
	ip -n "$NS_RUN" link set np0 up
	ip -n "$NS_UP" addr add "$UP_ADDR/30" dev np1
	ip -n "$NS_UP" link set np1 up
	WS=$T/ws
	mkdir -p "$WS"
	ORIGIN_WRAP="ip netns exec $NS_UP" origin_start "$UP_ADDR"
	# curl needs no help from a per-user file; the sandbox denies $HOME.
	cd "$WS" || return 1
}

np_teardown() {
	local rc=0
	egress_teardown || rc=$?
	netns_teardown
	common_teardown
	return "$rc"
}

# The sandbox in $NS_RUN, with a fixed small environment and (nsbx) the
# proxy's log in $T/egress.log.
nsbx_plain() {
	# shellcheck disable=SC2086
	ip netns exec "$NS_RUN" env -i HOME="$HOME" PATH="$SBX_PATH" \
		TERM=dumb LANG=C.UTF-8 MAGUS_EXEC_PATH="$MAGUS_EXEC_PATH" \
		${SBX_ENV:-} "$SBX" --root "$WS" "$@"
}
nsbx() {
	nsbx_plain --network proxy --egress-log "$T/egress.log" "$@"
}

# A test CA and a certificate for $UP_ADDR, once per file.
np_tls_setup_file() {
	local d="$BATS_FILE_TMPDIR/tls"
	mkdir -p "$d"
	test_ca "$d/ca" &&
		test_cert "$d/ca" "$d/server" "$UP_ADDR" "IP:$UP_ADDR"
}

# openssl s_server -WWW on $UP_ADDR in $NS_UP; the CA goes to $WS/ca.pem
# where the sandboxed curl can read it.
np_tls_start() {
	local d="$BATS_FILE_TMPDIR/tls" out="$T/tls.out" i
	mkdir -p "$T/www"
	printf 'hello over tls\n' >"$T/www/hello"
	cp "$d/ca.pem" "$WS/ca.pem"
	(cd "$T/www" && exec ip netns exec "$NS_UP" openssl s_server \
		-accept "$UP_ADDR:0" -cert "$d/server.pem" \
		-key "$d/server.key" -WWW </dev/null >"$out" 2>&1) &
	EGRESS_PIDS+=("$!")
	for i in $(seq 100); do
		# The server's shell may not have made $out yet.
		TLS_PORT=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' "$out" \
			2>/dev/null || true)
		[ -n "$TLS_PORT" ] && return 0
		sleep 0.1
	done
	fail "openssl s_server did not start: $(cat "$out")"
}

# From the -v line of magus-sandbox-exec's stderr in FILE: FWD_PID,
# EG_PID, EG_DIR and FWD_PORT, waiting up to 10 s for the line.
np_pids_of() {
	local file=$1 line= i
	for i in $(seq 100); do
		line=$(grep -m1 'network proxy: ' "$file" 2>/dev/null) && break
		sleep 0.1
	done
	[ -n "$line" ] || fail "no 'network proxy:' line in: $(cat "$file")"
	FWD_PID=$(sed -n 's/.*forwarder pid \([0-9]*\) .*/\1/p' <<<"$line")
	FWD_PORT=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' <<<"$line")
	EG_PID=$(sed -n 's/.*egress proxy pid \([0-9]*\) .*/\1/p' <<<"$line")
	EG_DIR=$(sed -n "s/.* on '\\(.*\\)\\/egress\\.sock'.*/\\1/p" <<<"$line")
	[ -n "$FWD_PID" ] && [ -n "$EG_PID" ] && [ -n "$EG_DIR" ] ||
		fail "cannot read the pids from: $line"
}

# True once no process PID exists, a zombie included, within 10 s.
np_gone() {
	local pid i state
	for pid in "$@"; do
		for i in $(seq 100); do
			state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) ||
				break
			[ "$state" = Z ] && break
			sleep 0.1
		done
		state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
		[ "$state" = Z ] && continue
		fail "process $pid is still there (state $state)"
	done
}

# The log's lines, once at least N (default 1) were written.
np_log() {
	local want=${1:-1} i
	for i in $(seq 50); do
		[ "$(wc -l <"$T/egress.log" 2>/dev/null || echo 0)" -ge "$want" ] &&
			break
		sleep 0.1
	done
	cat "$T/egress.log" 2>/dev/null
}
