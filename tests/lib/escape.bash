# Helpers for the sandbox escape suites (tests/017x-019x).
#
# Each attack is one of the small programs in tests/escape, run in its own
# process inside `magus-sandbox-exec --mode required` with the default
# policy.  A test asserts the refusal (the exact errno the attack prints,
# see tests/escape/escape.h) and that the target is byte for byte and
# stat for stat what it was before.
#
# The suites run as root (here and in CI), and root without capabilities
# is still the owner of every file root planted.  So each denial has a
# control: the same attack run with every capability dropped but no
# Landlock (`nocaps`), which must succeed.  A denial the control shares
# would be the kernel's DAC talking, not the sandbox.
#
# The layout under each test's private $T (itself beneath the shared
# /tmp, which the sandbox grants nothing of):
#
#	$WS		the workspace (--root); the attack programs in $WS/bin,
#			where a compromised dependency's code would be
#	$TMPD		the private temp dir (--tmp), 0700
#	$OUT		outside: victim files, 0666 so DAC never says no
#	$HOME		a home with a planted ~/.ssh/id_rsa and ~/.aws/credentials
#
# ESCAPE_SANDBOX_EXEC, when set, names the sandbox program to attack
# instead of the build tree's.

: "${ESCAPE_SANDBOX_EXEC:=$MAGUS_EXEC_PATH/magus-sandbox-exec}"
ESC_BIN=$MAGUS_BUILD_DIR/tests/escape

# The fake secrets.  Tests grep every output for them.
SSH_KEY_SECRET='escape-suite-not-a-real-ssh-key-4f1d'
AWS_KEY_SECRET='escape-suite-not-a-real-aws-secret-9c2e'

# The PATH the sandboxed child gets (and so the PATH directories the
# policy grants): the system's, nothing under $T unless a test adds it.
SBX_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

escape_setup() {
	common_setup
	ESC_PIDS=()
	ESC_SHARED_TMP=
	[ -x "$ESCAPE_SANDBOX_EXEC" ] ||
		fail "no sandbox program at '$ESCAPE_SANDBOX_EXEC'"
	[ -x "$ESC_BIN/esc-file" ] ||
		fail "attack programs not built: run 'make check' (or make $ESC_BIN/esc-file)"
	ABI=$("$ESC_BIN/esc-abi")
	WS=$T/ws TMPD=$T/private-tmp OUT=$T/outside
	mkdir -p "$WS/bin" "$OUT" "$HOME/.ssh" "$HOME/.aws"
	mkdir -m 0700 "$TMPD"
	cp "$ESC_BIN"/esc-file "$ESC_BIN"/esc-ipc "$ESC_BIN"/esc-net \
		"$ESC_BIN"/esc-priv "$ESC_BIN"/esc-env "$WS/bin/"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n' \
		"$SSH_KEY_SECRET" >"$HOME/.ssh/id_rsa"
	printf '[default]\naws_access_key_id = AKIAESCAPESUITE0000\naws_secret_access_key = %s\n' \
		"$AWS_KEY_SECRET" >"$HOME/.aws/credentials"
	chmod 0600 "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"
	printf 'outside, must stay as it is\n' >"$OUT/victim"
	printf 'outside, the control may change this one\n' >"$OUT/twin"
	chmod 0666 "$OUT/victim" "$OUT/twin"
}

escape_teardown() {
	local pid
	for pid in "${ESC_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	[ -n "$ESC_SHARED_TMP" ] && rm -rf "$ESC_SHARED_TMP"
	common_teardown
}

# The kernel has at least Landlock ABI $1 (skip, or fail under
# MAGUS_TEST_MUST_WORK=1, when not).
need_abi() {
	skip_unless "the kernel's Landlock ABI is $ABI, this needs $1" \
		test "$ABI" -ge "$1"
}

# Run COMMAND... confined the way `magus run` would: mode required, the
# default policy, a caller-owned private temp dir.  Options for the
# sandbox come before `--`:  sbx [OPTION...] -- COMMAND [ARG...]
sbx() {
	PATH=$SBX_PATH "$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" \
		--tmp "$TMPD" "$@"
}

# The same without --tmp: the sandbox makes the temp dir and runs the
# command as its child (the forking path).
sbx_fork() {
	PATH=$SBX_PATH "$ESCAPE_SANDBOX_EXEC" --mode required --root "$WS" "$@"
}

# COMMAND... with every capability gone (bounding, inheritable, ambient,
# so root's exec gains none) and no_new_privs, but no Landlock: the
# control that shows DAC alone would let an attack through.
NOCAPS=(setpriv --no-new-privs --inh-caps=-all --ambient-caps=-all
	--bounding-set=-all --)
nocaps() {
	"${NOCAPS[@]}" "$@"
}

# Assert the last `run` was the attack's refusal with errno name $1.
assert_denied() {
	if [ "$status" -ne 1 ] || [ "$output" != "$1" ]; then
		fail "expected the attack refused with $1, got status $status
stdout: $output
stderr: ${stderr:-}"
	fi
}

# Assert the last `run` was the attack going through.
assert_went_through() {
	if [ "$status" -ne 0 ] || [ "$output" != ok ]; then
		fail "expected the operation to work, got status $status
stdout: $output
stderr: ${stderr:-}"
	fi
}

# The control: ATTACK-PROGRAM ARG... works with no capabilities and no
# Landlock.
control_ok() {
	run --separate-stderr nocaps "$ESC_BIN/$1" "${@:2}"
	assert_went_through
}

# Everything about PATH... that an attack could change: for each entry,
# type, mode, owner, size, link count, inode, mtime, ctime and symlink
# target, and the checksum of each regular file.
snap() {
	local p
	for p in "$@"; do
		[ -e "$p" ] || [ -L "$p" ] || { echo "absent $p"; continue; }
		find "$p" -printf '%p %y %m %U:%G %s %n %i %T@ %C@ %l\n' | LC_ALL=C sort
		find "$p" -type f -exec sha256sum {} + | LC_ALL=C sort
	done
}

# Assert nothing changed since `before=$(snap PATH...)`.
assert_unchanged() {
	local after
	after=$(snap "$@")
	if [ "$after" != "$before" ]; then
		fail "changed by the attack:
$(diff <(echo "$before") <(echo "$after"))"
	fi
}

# Assert no output of the last `run` holds a planted secret.
refute_secrets() {
	local s
	for s in "$SSH_KEY_SECRET" "$AWS_KEY_SECRET" "$@"; do
		if [[ "$output" == *"$s"* || "${stderr:-}" == *"$s"* ]]; then
			fail "a secret leaked into the output"
		fi
	done
}

# Wait up to ten seconds for FILE to exist.
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "'$1' never appeared"
}

# Wait up to ten seconds for FILE to hold N lines.
wait_lines() {
	local i n
	for ((i = 0; i < 200; i++)); do
		n=$(wc -l <"$1" 2>/dev/null || echo 0)
		[ "$n" -ge "$2" ] && return 0
		sleep 0.05
	done
	fail "'$1' holds $n lines, not $2"
}

# Start COMMAND... in the background outside the sandbox; teardown stops
# it by its pid.  fd 3 is bats's own and must not be held open.
background() {
	"$@" 3>&- &
	ESC_PIDS+=("$!")
	BG_PID=$!
}

# A directory right in the shared /tmp (not beneath the workspace or $T),
# removed by teardown.
shared_tmp_dir() {
	ESC_SHARED_TMP=$(mktemp -d /tmp/magus-escape.XXXXXX)
	chmod 0755 "$ESC_SHARED_TMP"
}
