#!/usr/bin/env bats
# Privileges: a sandboxed child of root holds no capability, a setuid-root
# or file-capability binary gains nothing under no_new_privs, and a new
# user namespace does not hand back the power to remount the world.  The
# sandbox also runs for an unprivileged user, and confines it the same.

load lib/common
load lib/escape

setup() {
	escape_setup
	need_abi 3
	NOBODY=65534
}
teardown() { escape_teardown; }

as_nobody() {
	setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups -- "$@"
}

# A workspace, temp dir and home owned by nobody, and a copy of the
# sandbox program nobody can reach (the build tree may sit under a
# directory only root may enter).
nobody_setup() {
	chmod 0755 "$T"
	NWS=$T/nobody-ws NTMP=$T/nobody-tmp NHOME=$T/nobody-home
	mkdir -p "$NWS/bin" "$NHOME/.ssh" "$T/sbx"
	mkdir -m 0700 "$NTMP"
	cp "$WS"/bin/esc-* "$NWS/bin/"
	cp "$ESCAPE_SANDBOX_EXEC" "$T/sbx/magus-sandbox-exec"
	chmod 0755 "$T/sbx" "$T/sbx/magus-sandbox-exec"
	printf '%s\n' "$SSH_KEY_SECRET" >"$NHOME/.ssh/id_rsa"
	chmod 0600 "$NHOME/.ssh/id_rsa"
	chown -R "$NOBODY:$NOBODY" "$NWS" "$NTMP" "$NHOME"
}

# The sandbox as nobody, on nobody's workspace.
nobody_sbx() {
	as_nobody env HOME="$NHOME" PATH="$SBX_PATH" "$T/sbx/magus-sandbox-exec" \
		--mode required --root "$NWS" --tmp "$NTMP" "$@"
}

# A copy of esc-priv owned by root with the setuid bit.
make_setuid_copy() {
	cp "$ESC_BIN/esc-priv" "$1"
	chown root:root "$1"
	chmod 4755 "$1"
}

@test "root's child in the sandbox holds no capability and has no_new_privs" {
	run "$ESC_BIN/esc-priv" whoami
	refute_output --partial ' eff=0 '
	run --separate-stderr sbx -- "$WS/bin/esc-priv" whoami
	assert_success
	assert_output "uid=0/0/0 gid=0/0/0 eff=0 prm=0 inh=0 bnd=0 amb=0 nnp=1"
}

@test "a setuid-root program run by root in the sandbox gains nothing" {
	make_setuid_copy "$WS/bin/suid"
	run --separate-stderr sbx -- "$WS/bin/suid" whoami
	assert_success
	assert_output "uid=0/0/0 gid=0/0/0 eff=0 prm=0 inh=0 bnd=0 amb=0 nnp=1"
}

@test "a setuid-root program run by an unprivileged user in the sandbox stays unprivileged" {
	nobody_setup
	make_setuid_copy "$NWS/bin/suid"
	# The control: outside the sandbox the bit works on this file system.
	run as_nobody "$NWS/bin/suid" whoami
	assert_success
	assert_output --regexp "^uid=$NOBODY/0/0 "
	refute_output --partial ' prm=0 '
	run --separate-stderr nobody_sbx -- "$NWS/bin/suid" whoami
	assert_success
	assert_output --regexp "^uid=$NOBODY/$NOBODY/$NOBODY gid=$NOBODY/$NOBODY/$NOBODY eff=0 prm=0 inh=0 bnd=[0-9a-f]+ amb=0 nnp=1\$"
}

@test "a file-capability program gains nothing in the sandbox" {
	skip_unless "setcap (Debian libcap2-bin) is not installed" command -v setcap
	nobody_setup
	cp "$ESC_BIN/esc-priv" "$NWS/bin/fcap"
	setcap cap_dac_override+ep "$NWS/bin/fcap"
	run as_nobody "$NWS/bin/fcap" whoami
	assert_success
	assert_output --partial ' eff=2 prm=2 '
	run --separate-stderr nobody_sbx -- "$NWS/bin/fcap" whoami
	assert_success
	assert_output --regexp " eff=0 prm=0 inh=0 bnd=[0-9a-f]+ amb=0 nnp=1\$"
}

@test "root without capabilities cannot chown, change uid or override permissions" {
	printf 'mine\n' >"$WS/mine"
	printf 'mine\n' >"$WS/twin"
	printf 'private\n' >"$WS/nobodys"
	chown "$NOBODY" "$WS/nobodys"
	chmod 0600 "$WS/nobodys"
	# The controls: root with its capabilities may do all three.
	run "$ESC_BIN/esc-priv" chown "$WS/twin" "$NOBODY"
	assert_went_through
	run "$ESC_BIN/esc-file" read "$WS/nobodys"
	assert_went_through
	run "$ESC_BIN/esc-priv" setuid "$NOBODY"
	assert_went_through
	before=$(snap "$WS/mine" "$WS/nobodys")
	run --separate-stderr sbx -- "$WS/bin/esc-priv" chown "$WS/mine" "$NOBODY"
	assert_denied EPERM
	run --separate-stderr sbx -- "$WS/bin/esc-priv" setuid "$NOBODY"
	assert_denied EPERM
	run --separate-stderr sbx -- "$WS/bin/esc-file" read "$WS/nobodys"
	assert_denied EACCES
	assert_unchanged "$WS/mine" "$WS/nobodys"
}

@test "a new user namespace does not let the child bind-mount over the workspace: EPERM" {
	printf 'workspace file\n' >"$WS/target"
	printf 'workspace file\n' >"$WS/twin"
	# The control: a capability-less process may make the namespaces
	# and mount in them.
	run --separate-stderr nocaps "$ESC_BIN/esc-priv" mount "$OUT/twin" "$WS/twin"
	assert_went_through
	before=$(snap "$WS" "$OUT")
	run --separate-stderr sbx -- "$WS/bin/esc-priv" mount "$OUT/victim" "$WS/target"
	assert_denied EPERM
	assert_unchanged "$WS" "$OUT"
}

@test "the sandbox confines an unprivileged user the same: ~/.ssh denied, EACCES" {
	nobody_setup
	run --separate-stderr as_nobody "$NWS/bin/esc-file" read "$NHOME/.ssh/id_rsa"
	assert_went_through
	before=$(snap "$NHOME")
	run --separate-stderr nobody_sbx -- "$NWS/bin/esc-file" read "$NHOME/.ssh/id_rsa"
	assert_denied EACCES
	run --separate-stderr nobody_sbx -- "$NWS/bin/esc-priv" whoami
	assert_success
	assert_output --regexp "^uid=$NOBODY/$NOBODY/$NOBODY .* eff=0 prm=0 inh=0 bnd=[0-9a-f]+ amb=0 nnp=1\$"
	assert_unchanged "$NHOME"
}

@test "a nested magus-sandbox-exec --mode off, floor variable dropped, lifts nothing: EACCES" {
	cp "$ESCAPE_SANDBOX_EXEC" "$WS/bin/magus-sandbox-exec"
	mkdir -m 0700 "$WS/inner-tmp"
	run --separate-stderr sbx -- /usr/bin/env -u MAGUS_SANDBOX \
		"$WS/bin/magus-sandbox-exec" --mode off --root "$WS" -- \
		"$WS/bin/esc-file" read "$HOME/.ssh/id_rsa"
	assert_denied EACCES
	run --separate-stderr sbx -- /usr/bin/env -u MAGUS_SANDBOX \
		"$WS/bin/magus-sandbox-exec" --mode required --root "$HOME/.ssh" \
		--allow "rx:$WS/bin" --tmp "$WS/inner-tmp" -- \
		"$WS/bin/esc-file" read "$HOME/.ssh/id_rsa"
	assert_denied EACCES
	run --separate-stderr sbx -- /usr/bin/env -u MAGUS_SANDBOX \
		"$WS/bin/magus-sandbox-exec" --mode required --root "$WS" \
		--tmp "$WS/inner-tmp" -- "$WS/bin/esc-priv" whoami
	assert_output "uid=0/0/0 gid=0/0/0 eff=0 prm=0 inh=0 bnd=0 amb=0 nnp=1"
}
