# Helpers for the sandbox suites (tests/0100..0169): the policy, the
# environment, the modes at every Landlock ABI, the errno paths, magus run
# and magus queue gate.  (The escape suites, 017x..019x, have their own.)
#
# The layout under each test's private $T (itself in the shared /tmp,
# which the sandbox grants nothing of):
#
#	$WS	the workspace (--root), the current directory; sbx-probe is
#		copied to $WS/probe so the sandbox may execute it
#	$TMPD	a private temp dir for --tmp, 0700
#	$OUT	outside every grant: $OUT/file
#	$HOME	with a planted ~/.ssh/id_rsa
#
# The suites run as root here and in CI.  Root without capabilities is
# still the owner of what it planted, so a denial seen here is Landlock's,
# and each test of a denial also runs the same probe unconfined (mode off)
# to show it would have worked.

SBX=$MAGUS_EXEC_PATH/magus-sandbox-exec
PROBE_BIN=$MAGUS_BUILD_DIR/tests/sandbox/sbx-probe
SECRET='sandbox-suite-not-a-real-key-7a31'

# The PATH inside: the system's only, so the PATH grants do not vary
# with the machine that runs the tests.
SBX_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

sandbox_setup() {
	common_setup
	[ -x "$SBX" ] || fail "no helper at '$SBX'"
	[ -x "$PROBE_BIN" ] ||
		fail "sbx-probe not built: run 'make check' (or make tests/sandbox/sbx-probe)"
	WS=$T/ws TMPD=$T/private-tmp OUT=$T/outside
	mkdir -p "$WS" "$OUT" "$HOME/.ssh"
	mkdir -m 0700 "$TMPD"
	cp "$PROBE_BIN" "$WS/probe"
	printf '%s\n' "$SECRET" >"$HOME/.ssh/id_rsa"
	chmod 0600 "$HOME/.ssh/id_rsa"
	echo outside >"$OUT/file"
	ABI=$("$PROBE_BIN" abi)
	SBX_PIDS=()
	cd "$WS" || return 1
}

sandbox_teardown() {
	local pid
	for pid in "${SBX_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	common_teardown
}

# The kernel has at least Landlock ABI $1.
need_abi() {
	skip_unless "the kernel's Landlock ABI is $ABI, this needs $1" \
		test "$ABI" -ge "$1"
}

# sbx [OPTION...] -- COMMAND...: the helper with a fixed, small
# environment (HOME, PATH, TERM, LANG and what the caller exports in
# SBX_ENV, a space-separated NAME=VALUE list), rooted at $WS.
sbx() {
	# shellcheck disable=SC2086
	env -i HOME="$HOME" PATH="$SBX_PATH" TERM=dumb LANG=C.UTF-8 \
		${SBX_ENV:-} "$SBX" --root "$WS" "$@"
}

# probe MODE [OPTION...] -- ARG...: one sbx-probe call in the sandbox.
probe() {
	local mode=$1
	shift
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	sbx --mode "$mode" --tmp "$TMPD" "${opts[@]}" -- "$WS/probe" "$@"
}

# The probe's answer, confined (required) and unconfined (off):
# expect_denied ERRNO ARG...  /  expect_allowed ARG...
expect_denied() {
	local want=$1
	shift
	run --separate-stderr probe required -- "$@"
	[ "$output" = "$want" ] ||
		fail "confined '$*': expected $want, got '$output' ($stderr)"
	[ "$status" -eq 1 ]
}

expect_allowed() {
	run --separate-stderr probe required -- "$@"
	[ "$output" = ok ] || fail "confined '$*': expected ok, got '$output' ($stderr)"
	[ "$status" -eq 0 ]
}

# A TCP listener on 127.0.0.1, outside the sandbox; sets PORT.
tcp_listener() {
	"$PROBE_BIN" tcp-listen "$T/port" 30 &
	SBX_PIDS+=($!)
	local i
	for i in $(seq 100); do
		[ -s "$T/port" ] && break
		sleep 0.05
	done
	PORT=$(cat "$T/port")
	[ -n "$PORT" ] || fail "the listener did not start"
}

# An abstract unix socket listener @$1, outside the sandbox.
unix_listener() {
	local fifo=$T/unix-ready
	mkfifo "$fifo"
	"$PROBE_BIN" unix-listen "$1" 30 >"$fifo" &
	SBX_PIDS+=($!)
	read -r _ <"$fifo"
}

# A process outside the sandbox to signal; sets VICTIM.
victim_process() {
	sleep 30 &
	VICTIM=$!
	SBX_PIDS+=("$VICTIM")
}

# The mdoc SYNOPSIS of man page $1 as tokens: flags (Fl) and keywords (Cm).
man_synopsis_tokens() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$1" |
		grep -oE '(Fl|Cm) [A-Za-z][A-Za-z-]*|Fl -[A-Za-z][A-Za-z-]*' |
		awk '$1 == "Fl" { print "-" $2; next } { print $2 }' | sort -u
}
