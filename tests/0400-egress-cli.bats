#!/usr/bin/env bats
# magus-egress's command line: usage, start-up refusals, readiness, the
# unix socket, shutdown.

load lib/common
load lib/egress

setup() { common_setup; }
teardown() {
	local rc=0
	egress_teardown || rc=$?
	common_teardown
	return "$rc"
}

@test "--help prints the usage and exits 0" {
	run --separate-stderr "$EGRESS" --help
	assert_success
	assert_output --partial "usage: magus-egress --listen"
}

@test "the options of the usage are the options of the man SYNOPSIS" {
	local usage man
	usage=$("$EGRESS" --help | grep -oE -- '--[a-z-]+' | sort -u)
	man=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$MAGUS_SRC_DIR/man/magus-egress.1" |
		grep -oE 'Fl -[a-z-]+' | awk '{ print "-" $NF }' | sort -u)
	[ -n "$usage" ]
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
}

@test "the man page is mandoc -T lint clean" {
	skip_unless "mandoc is not installed" command -v mandoc
	run mandoc -T lint -W warning "$MAGUS_SRC_DIR/man/magus-egress.1"
	assert_success
	refute_output
}

@test "without --listen: exit 2, MGS7001" {
	run --separate-stderr "$EGRESS" --allow example.com:443
	[ "$status" -eq 2 ]
	assert_code MGS7001
}

@test "an unknown option or a stray argument: exit 2, MGS7001" {
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --bogus
	[ "$status" -eq 2 ]
	assert_code MGS7001
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 extra
	[ "$status" -eq 2 ]
	assert_code MGS7001
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --max-conns 0
	[ "$status" -eq 2 ]
	assert_code MGS7001
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --header-timeout x
	[ "$status" -eq 2 ]
	assert_code MGS7001
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --ready-fd 77
	[ "$status" -eq 2 ]
	assert_code MGS7001
}

@test "each malformed allow entry: exit 2, MGS7002 naming it, nothing listens" {
	local e
	for e in example.com 'example.com:*' example.com:0 example.com:70000 \
		'*:443' 'a.*.example.com:443' '::1:443' '[::1]' '10.0.0.1/8:443' \
		'127.1:80' 'ex ample.com:80'; do
		run --separate-stderr "$EGRESS" --listen "unix:$T/s" \
			--allow example.org:443 --allow "$e"
		[ "$status" -eq 2 ] || fail "'$e': status $status"
		assert_code MGS7002
		[[ "$stderr" == *"'$e'"* ]] || fail "'$e' not named: $stderr"
		[ ! -e "$T/s" ] || fail "a socket exists after refusing '$e'"
	done
}

@test "an allow file: comments and blank lines; a bad line is named with its number" {
	printf '# the list\n\nexample.com:443   # trailing comment\n  *.example.org:443\n' >"$T/allow"
	egress_start --allow-file "$T/allow"
	egress_stop
	printf 'example.com:443\n\nexample.org\n' >"$T/bad"
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --allow-file "$T/bad"
	[ "$status" -eq 2 ]
	assert_code MGS7002
	[[ "$stderr" == *"$T/bad:3:"* ]]
}

@test "an allow file that cannot be read: exit 2, MGS7003" {
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --allow-file "$T/missing"
	[ "$status" -eq 2 ]
	assert_code MGS7003
}

@test "a log file that cannot be opened: exit 2, MGS7004" {
	run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --log "$T/no/such/dir/log"
	[ "$status" -eq 2 ]
	assert_code MGS7004
}

@test "listening anywhere but loopback is refused: MGS7001" {
	local a
	for a in 0.0.0.0:0 '[::]:0' 10.0.0.1:0 localhost:0; do
		run --separate-stderr "$EGRESS" --listen "$a"
		[ "$status" -eq 2 ] || fail "$a: status $status"
		assert_code MGS7001
	done
}

@test "a listen address that cannot be had: exit 71, MGS7005" {
	run --separate-stderr "$EGRESS" --listen "unix:$T/no/such/dir/s"
	[ "$status" -eq 71 ]
	assert_code MGS7005
	egress_start
	run --separate-stderr "$EGRESS" --listen "127.0.0.1:$EG_PORT"
	[ "$status" -eq 71 ]
	assert_code MGS7005
	touch "$T/file"
	run --separate-stderr "$EGRESS" --listen "unix:$T/file"
	[ "$status" -eq 71 ]
	assert_code MGS7005
	[ -f "$T/file" ]
}

@test "a unix socket: owner-only, announced on --ready-fd, removed on SIGTERM" {
	origin_start
	egress_start --listen="unix:$T/egress.sock" --allow "127.0.0.1:$ORIGIN_PORT"
	[ "$EG_ADDR" = "unix:$T/egress.sock" ]
	[ -S "$T/egress.sock" ]
	[ "$(stat -c %a "$T/egress.sock")" = 700 ]
	run "$EGCLIENT" "unix:$T/egress.sock" forward "127.0.0.1:$ORIGIN_PORT" /hello
	assert_success
	assert_output --partial hello
	local rc=0
	egress_stop || rc=$?
	[ "$rc" -eq 0 ]
	[ ! -e "$T/egress.sock" ]
}

@test "a stale socket is replaced; a live one is refused with MGS7005" {
	egress_start --listen="unix:$T/egress.sock"
	run --separate-stderr "$EGRESS" --listen "unix:$T/egress.sock"
	[ "$status" -eq 71 ]
	assert_code MGS7005
	# SIGKILL leaves the socket file behind, with nobody accepting.
	kill -KILL "$EG_PID"
	wait "$EG_PID" || true
	[ -S "$T/egress.sock" ]
	egress_start --listen="unix:$T/egress.sock"
	[ -S "$T/egress.sock" ]
	egress_stop
}

@test "SIGINT and SIGHUP stop it too, with status 0" {
	local sig rc
	for sig in INT HUP; do
		egress_start
		kill -"$sig" "$EG_PID"
		rc=0
		wait "$EG_PID" || rc=$?
		[ "$rc" -eq 0 ] || fail "SIG$sig: status $rc"
	done
}

@test "--die-with-parent: the proxy exits when the process that started it does" {
	# The parent shell starts the proxy, reports its pid, then becomes
	# sleep (same process) and exits after a moment.
	sh -c '"$1" --listen 127.0.0.1:0 --die-with-parent --log /dev/null &
		echo $! >"$2"; exec sleep 1' sh "$EGRESS" "$T/pid"
	local pid i
	pid=$(cat "$T/pid")
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		fail "the proxy outlived its parent"
	fi
}

@test "more connections than the descriptor limit allows: MGS7001 before listening" {
	run --separate-stderr bash -c 'ulimit -n 256 && exec "$1" --listen "unix:$2" --max-conns 1000' \
		sh "$EGRESS" "$T/s"
	[ "$status" -eq 2 ]
	assert_code MGS7001
	[ ! -e "$T/s" ]
}

@test "diagnostics follow MAGUS_OUTPUT=json" {
	MAGUS_OUTPUT=json run --separate-stderr "$EGRESS" --listen 127.0.0.1:0 --allow nope
	[ "$status" -eq 2 ]
	[ "$(jq -r .code <<<"$stderr")" = MGS7002 ]
}
