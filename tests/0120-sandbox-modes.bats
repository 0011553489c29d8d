#!/usr/bin/env bats
# Modes, the floor, and what the real kernel enforces at each Landlock
# ABI from 1 to 7 (lowered with MAGUS_LANDLOCK_ABI_MAX, which can only
# lower what the kernel has).

load lib/common
load lib/sandbox

setup() { sandbox_setup; }
teardown() { sandbox_teardown; }

# What is and is not enforced at ABI $1, asserted call by call.
abi_matrix() {
	local n=$1 want
	need_abi "$n"
	export SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=$n"

	# print-policy says what the ABI cannot enforce.
	run --separate-stderr sbx --mode best-effort --network none --print-policy -- true
	assert_success
	assert_line --regexp "^landlock +ABI $ABI found, ABI $n used"
	case $n in
	1) want='refer, truncate, tcp, ioctl_dev, scopes (needs ABI 2, 3, 4, 5, 6)' ;;
	2) want='truncate, tcp, ioctl_dev, scopes (needs ABI 3, 4, 5, 6)' ;;
	3) want='tcp, ioctl_dev, scopes (needs ABI 4, 5, 6)' ;;
	4) want='ioctl_dev, scopes (needs ABI 5, 6)' ;;
	5) want='scopes (needs ABI 6)' ;;
	*) want=nothing ;;
	esac
	assert_line "not enforced  $want"
	if [ "$n" -ge 7 ]; then
		assert_line --regexp '^log +.*log_new_exec_on'
	else
		assert_line --regexp "^log +the kernel's default$"
	fi
	# best-effort warns with the same names (MGS2013), or says nothing.
	if [ "$want" = nothing ]; then
		[[ "$stderr" != *MGS2013* ]]
	else
		[[ "$stderr" == *"[MGS2013]"*"not enforced: $want"* ]]
	fi

	# ABI 1 and up: reads, writes and execs outside are denied.
	run --separate-stderr probe best-effort -- read "$OUT/file"
	assert_output EACCES
	run --separate-stderr probe best-effort -- write "$OUT/new"
	assert_output EACCES
	cp "$PROBE_BIN" "$OUT/dropped"
	run sbx --mode best-effort --tmp "$TMPD" -- /bin/sh -c "'$OUT/dropped' abi"
	[ "$status" -eq 126 ]

	# ABI 2: refer.  Below it, every rename into another directory
	# is refused, even between the workspace and the temp dir.
	echo r >"$WS/mv"
	run --separate-stderr probe best-effort -- rename "$WS/mv" "$TMPD/mv"
	if [ "$n" -ge 2 ]; then assert_output ok; else assert_output EXDEV; fi

	# ABI 3: truncate.  Below it an outside file can be emptied.
	echo keep >"$OUT/victim"
	run --separate-stderr probe best-effort -- truncate "$OUT/victim"
	if [ "$n" -ge 3 ]; then
		assert_output EACCES
		[ "$(cat "$OUT/victim")" = keep ]
	else
		assert_output ok
	fi

	# ABI 4: tcp, under --network none.
	tcp_listener
	run --separate-stderr probe best-effort --network none -- tcp-connect "$PORT"
	if [ "$n" -ge 4 ]; then assert_output EACCES; else assert_output ok; fi
	run --separate-stderr probe best-effort --network none -- tcp-bind
	if [ "$n" -ge 4 ]; then assert_output EACCES; else assert_output ok; fi
	run --separate-stderr probe best-effort -- tcp-connect "$PORT"
	assert_output ok

	# ABI 5: ioctl_dev.  /dev/null is granted read and write, no ioctl.
	run --separate-stderr probe best-effort -- ioctl-dev /dev/null
	if [ "$n" -ge 5 ]; then assert_output EACCES; else assert_output ok; fi

	# ABI 6: scopes.  Signals and abstract sockets stay inside.
	victim_process
	run --separate-stderr probe best-effort -- signal "$VICTIM"
	if [ "$n" -ge 6 ]; then assert_output EPERM; else assert_output ok; fi
	unix_listener "magus-sandbox-test-$$-$n"
	run --separate-stderr probe best-effort -- unix-connect "magus-sandbox-test-$$-$n"
	if [ "$n" -ge 6 ]; then assert_output EPERM; else assert_output ok; fi
}

@test "ABI 1: reads, writes and execs confined; refer, truncate, tcp, ioctl_dev, scopes not" {
	abi_matrix 1
}

@test "ABI 2: refer enforced; a rename between workspace and temp dir works" {
	abi_matrix 2
}

@test "ABI 3: truncate enforced" {
	abi_matrix 3
}

@test "ABI 4: tcp bind and connect denied under --network none" {
	abi_matrix 4
}

@test "ABI 5: device ioctls denied outside the terminal" {
	abi_matrix 5
}

@test "ABI 6: signals and abstract unix sockets scoped to the sandbox" {
	abi_matrix 6
}

@test "ABI 7: everything, and the log flag the kernel accepts" {
	abi_matrix 7
}

@test "the ABI 7 log flags magus carries are the running kernel's" {
	need_abi 7
	# LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF, _NEW_EXEC_ON,
	# _SUBDOMAINS_OFF: 1, 2, 4 in landlock-uapi.h.  The kernel takes
	# them, and refuses a bit it does not know (so a wrong value in
	# the header could not pass unnoticed).
	for flag in 1 2 4; do
		run "$PROBE_BIN" restrict-flags "$flag"
		assert_output ok
	done
	run "$PROBE_BIN" restrict-flags 128
	assert_output EINVAL
	# The helper applies LOG_NEW_EXEC_ON at ABI 7 and nothing below.
	run --separate-stderr sbx --mode required --print-policy -- true
	assert_line --regexp '^log +.*log_new_exec_on'
	[ "$(grep -c 'LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)' \
		"$MAGUS_SRC_DIR/lib/landlock-uapi.h")" -eq 1 ]
}

@test "the kernel's own ABI is used, capped at 7" {
	need_abi 1
	run --separate-stderr sbx --mode required --print-policy -- true
	used=$((ABI > 7 ? 7 : ABI))
	assert_line --regexp "^landlock +ABI $ABI found, ABI $used used"
}

@test "required refuses below ABI 3 with MGS2012, exit 78, and runs nothing" {
	need_abi 3
	for n in 1 2; do
		SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=$n" run --separate-stderr \
			sbx --mode required -- touch "$WS/ran"
		[ "$status" -eq 78 ]
		assert_code MGS2012
		[[ "$stderr" == *"'$WS'"* ]]
		[[ "$stderr" == *"truncate"* ]]
		[[ "$stderr" == *"Linux 6.2 or newer"*"best-effort"* ]]
	done
	[ ! -e "$WS/ran" ]
	SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=3" run sbx --mode required -- touch "$WS/ran"
	assert_success
	[ -e "$WS/ran" ]
}

@test "required with --network none refuses below ABI 4, naming tcp" {
	need_abi 4
	SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=3" run --separate-stderr \
		sbx --mode required --network none -- touch "$WS/ran"
	[ "$status" -eq 78 ]
	assert_code MGS2012
	[[ "$stderr" == *"tcp"* ]]
	[ ! -e "$WS/ran" ]
	SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=4" run sbx --mode required --network none -- true
	assert_success
}

@test "ABI 0: best-effort keeps the binding-level checks (MGS2005), required refuses" {
	need_abi 1
	SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=0 AWS_SECRET_ACCESS_KEY=$SECRET" run --separate-stderr \
		sbx --mode best-effort -- /bin/sh -c 'echo "${AWS_SECRET_ACCESS_KEY:-stripped}"'
	assert_success
	assert_output stripped
	assert_code MGS2005
	cp "$PROBE_BIN" "$OUT/dropped"
	SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=0" run --separate-stderr \
		sbx --mode best-effort -- "$OUT/dropped" abi
	[ "$status" -eq 126 ]
	[[ "$stderr" == *"[MGS2007]"* ]]
	SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=0" run --separate-stderr sbx --mode required -- true
	[ "$status" -eq 78 ]
	assert_code MGS2012
}

@test "MAGUS_LANDLOCK_ABI_MAX outside 0..7 is refused (MGS1007), never ignored" {
	for v in 8 -1 x 3x ''; do
		[ -z "$v" ] && continue
		SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=$v" run --separate-stderr \
			sbx --mode best-effort -- touch "$WS/ran"
		[ "$status" -eq 2 ]
		assert_code MGS1007
	done
	[ ! -e "$WS/ran" ]
}

@test "the mode defaults to MAGUS_SANDBOX, else off" {
	run --separate-stderr sbx --print-policy -- true
	assert_line "mode          off"
	SBX_ENV=MAGUS_SANDBOX=best-effort run --separate-stderr sbx --print-policy -- true
	assert_line "mode          best-effort (floor from MAGUS_SANDBOX: best-effort)"
}

@test "a mode weaker than the floor in MAGUS_SANDBOX: MGS2010, exit 2" {
	SBX_ENV=MAGUS_SANDBOX=required run --separate-stderr \
		sbx --mode best-effort -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2010
	SBX_ENV=MAGUS_SANDBOX=best-effort run --separate-stderr sbx --mode off -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS2010
	[ ! -e "$WS/ran" ]
	SBX_ENV=MAGUS_SANDBOX=best-effort run sbx --mode required -- touch "$WS/ran"
	assert_success
}

@test "an unknown mode: MGS1002 for --mode, MGS1007 for MAGUS_SANDBOX; exit 2" {
	run --separate-stderr sbx --mode strict -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[[ "$stderr" == *"'strict'"* ]]
	SBX_ENV=MAGUS_SANDBOX=strict run --separate-stderr sbx -- touch "$WS/ran"
	[ "$status" -eq 2 ]
	assert_code MGS1007
	[ ! -e "$WS/ran" ]
}

@test "mode off runs the command unconfined" {
	run sbx --mode off -- cat "$HOME/.ssh/id_rsa"
	assert_success
	assert_output "$SECRET"
}

@test "no_new_privs is set and every capability dropped, bounding set included" {
	run --separate-stderr sbx --mode required -- cat /proc/self/status
	assert_success
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	for set in CapInh CapPrm CapEff CapAmb; do
		assert_line --regexp "^$set:[[:space:]]+0+$"
	done
	if [ "$(id -u)" = 0 ]; then
		assert_line --regexp '^CapBnd:[[:space:]]+0+$'
	fi
	# Without Landlock too: the privileges go in every confining mode.
	SBX_ENV=MAGUS_LANDLOCK_ABI_MAX=0 run --separate-stderr \
		sbx --mode best-effort -- cat /proc/self/status
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^CapEff:[[:space:]]+0+$'
}

@test "the exit status passes through, with --tmp and without" {
	run sbx --mode required --tmp "$TMPD" -- /bin/sh -c 'exit 42'
	[ "$status" -eq 42 ]
	run sbx --mode required -- /bin/sh -c 'exit 43'
	[ "$status" -eq 43 ]
	run sbx --mode required -- /bin/sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
}

@test "with --tmp the helper becomes the command: no extra process" {
	env -i PATH="$SBX_PATH" HOME="$HOME" "$SBX" --root "$WS" --mode required \
		--tmp "$TMPD" -- sleep 30 &
	pid=$!
	SBX_PIDS+=("$pid")
	for i in $(seq 100); do
		[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
		sleep 0.05
	done
	[ "$(cat /proc/$pid/comm)" = sleep ]
	[ -z "$(cat /proc/$pid/task/$pid/children)" ]
}

@test "without --tmp a signal is forwarded, the status is 128+n, the temp dir removed" {
	env -i PATH="$SBX_PATH" HOME="$HOME" "$SBX" --root "$WS" --mode required \
		-- /bin/sh -c 'echo "$TMPDIR" >"$0/tmpdir"; exec sleep 30' "$WS" &
	pid=$!
	SBX_PIDS+=("$pid")
	for i in $(seq 100); do
		[ -s "$WS/tmpdir" ] && [ -n "$(cat /proc/$pid/task/$pid/children 2>/dev/null)" ] && break
		sleep 0.05
	done
	dir=$(cat "$WS/tmpdir")
	[ -d "$dir" ]
	[[ "$(cat /proc/$pid/comm)" == magus-sandbox* ]]
	# The waiting process is outside Landlock (to remove the temp dir
	# from the shared /tmp) but holds no privilege either.
	grep -qE '^NoNewPrivs:[[:space:]]+1$' /proc/$pid/status
	grep -qE '^CapEff:[[:space:]]+0+$' /proc/$pid/status
	grep -qE '^CapPrm:[[:space:]]+0+$' /proc/$pid/status
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	[ ! -e "$dir" ]
}

@test "the temp dir is removed whatever the command left in it, and nothing outside" {
	mkdir -p "$OUT/keep"
	echo keep >"$OUT/keep/f"
	run sbx --mode required -- /bin/sh -c '
		echo "$TMPDIR" >"$0/tmpdir"
		mkdir -p "$TMPDIR/a/b" && echo x >"$TMPDIR/a/b/f"
		chmod 0 "$TMPDIR/a/b" "$TMPDIR/a"
		ln -s "$1" "$TMPDIR/link"
		mkfifo "$TMPDIR/fifo"' "$WS" "$OUT/keep"
	assert_success
	[ ! -e "$(cat "$WS/tmpdir")" ]
	[ "$(cat "$OUT/keep/f")" = keep ]
}
