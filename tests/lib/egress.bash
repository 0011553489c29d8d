# Helpers for magus-egress's suites: start the proxy, a loopback origin
# server and a TLS server, and stop each by the pid saved when it started.
#
#	egress_start --allow HOST:PORT ...	proxy on 127.0.0.1, any port
#	origin_start [ADDRESS]			sets ORIGIN_PORT
#	tls_start				sets TLS_PORT (needs tls_setup_file)
#	egress_log_lines			the JSON log, one object a line
#
# Every helper registers what it started; egress_teardown stops it all.

EGRESS="$MAGUS_BUILD_DIR/libexec/egress/magus-egress"
ORIGIN="$MAGUS_BUILD_DIR/tests/egress/egress-origin"
EGCLIENT="$MAGUS_BUILD_DIR/tests/egress/egress-client"
EGRESS_PIDS=()

# Read one line from a FIFO a background process writes, within 10 s.
_egress_read_ready() {
	local fifo=$1 line=
	read -r -t 10 line <"$fifo" || true
	printf '%s' "$line"
}

# Start the proxy; EG_PID, EG_ADDR (host:port or unix:PATH), EG_PORT.
# --listen defaults to 127.0.0.1:0 and the log to $T/egress.log.
egress_start() {
	local fifo="$T/egress.ready.$RANDOM" listen=127.0.0.1:0 arg
	for arg in "$@"; do
		case $arg in --listen=*) listen=${arg#--listen=} ;; esac
	done
	local args=()
	for arg in "$@"; do
		case $arg in --listen=*) ;; *) args+=("$arg") ;; esac
	done
	mkfifo "$fifo"
	${EGRESS_WRAP:-} "$EGRESS" --listen "$listen" --log "$T/egress.log" \
		--ready-fd 3 "${args[@]}" 3>"$fifo" 2>>"$T/egress.err" &
	EG_PID=$!
	EGRESS_PIDS+=("$EG_PID")
	EG_ADDR=$(_egress_read_ready "$fifo")
	rm -f "$fifo"
	[ -n "$EG_ADDR" ] || fail "magus-egress did not start: $(cat "$T/egress.err")"
	EG_PORT=${EG_ADDR##*:}
	EG_PROXY="http://127.0.0.1:$EG_PORT"
}

# Stop the proxy with SIGTERM and return its exit status.
egress_stop() {
	local rc=0
	kill -TERM "$EG_PID" 2>/dev/null || return 1
	wait "$EG_PID" || rc=$?
	return $rc
}

# A plain HTTP origin on ADDRESS (default 127.0.0.1), any port.
origin_start() {
	local addr=${1:-127.0.0.1} fifo="$T/origin.ready.$RANDOM"
	mkfifo "$fifo"
	${ORIGIN_WRAP:-} "$ORIGIN" "$addr:0" 2 >"$fifo" 2>"$T/origin.err" &
	EGRESS_PIDS+=("$!")
	ORIGIN_PORT=$(_egress_read_ready "$fifo")
	rm -f "$fifo"
	[ -n "$ORIGIN_PORT" ] || fail "egress-origin did not start: $(cat "$T/origin.err")"
}

# A test CA and a server certificate for localhost, origin.test, 127.0.0.1
# and ::1, made once per file in $BATS_FILE_TMPDIR.
tls_setup_file() {
	local d="$BATS_FILE_TMPDIR/tls"
	mkdir -p "$d"
	test_ca "$d/ca" &&
		test_cert "$d/ca" "$d/server" localhost \
		'DNS:localhost,DNS:origin.test,IP:127.0.0.1,IP:::1'
}

# openssl s_server -WWW serving $T/www on 127.0.0.1, any port.
tls_start() {
	local d="$BATS_FILE_TMPDIR/tls" out="$T/tls.out" i
	mkdir -p "$T/www"
	printf 'hello over tls\n' >"$T/www/hello"
	(cd "$T/www" && exec openssl s_server -accept 127.0.0.1:0 \
		-cert "$d/server.pem" -key "$d/server.key" -WWW \
		</dev/null >"$out" 2>&1) &
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

egress_log_lines() {
	cat "$T/egress.log" 2>/dev/null
}

# The last log line, once the proxy has written it (lines are written
# when a connection ends, which can be a moment after the client saw
# the answer).
egress_last_log() {
	local want=${1:-1} i
	for i in $(seq 50); do
		[ "$(wc -l <"$T/egress.log" 2>/dev/null || echo 0)" -ge "$want" ] && break
		sleep 0.1
	done
	tail -n 1 "$T/egress.log"
}

egress_teardown() {
	local pid
	for pid in "${EGRESS_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${EGRESS_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	EGRESS_PIDS=()
	# Under --enable-sanitizers, a report from any proxy of the test
	# (a leak found at exit included) fails the test.
	if grep -qE 'Sanitizer|runtime error' "$T/egress.err" 2>/dev/null; then
		cat "$T/egress.err" >&2
		fail "magus-egress: sanitizer report"
	fi
}
