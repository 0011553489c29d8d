#!/usr/bin/env bats
# magus-relay's emulated path against the real test engine: a platform
# other than the host's (linux/arm64 on an amd64 machine, linux/amd64 on
# arm64) runs through qemu-user (tests/engine/setup-binfmt.sh) in an image
# of that architecture (tests/engine/foreign-image.sh), with the inner
# magus cross-built for it (libexec/relay/local.mk builds it in make
# check).  Line one says emulated; the target's machine is the emulated
# one; output and status pass through.  Refused: an image of the host's
# architecture declared for the other platform (after inspect), and an
# inner magus whose ELF header is for the host's architecture.
#
# The targets run with --sandbox=off: qemu-user 7.2 (Debian 12) answers
# the Landlock syscalls with ENOSYS and refuses seccomp filters (EINVAL),
# so the sandbox cannot confine under emulation.  Two tests prove what
# the modes then do: best-effort runs the target and names what is not
# enforced (MGS2005, MGS2021); required refuses rather than running it
# unconfined.

load lib/common
load lib/engine
load lib/relay

case $HOST_ARCH in
amd64) EMUL_ARCH=arm64 EMUL_MACHINE=aarch64 ;;
arm64) EMUL_ARCH=amd64 EMUL_MACHINE=x86_64 ;;
*) EMUL_ARCH= EMUL_MACHINE= ;;
esac
EMUL_PLATFORM=linux/$EMUL_ARCH
EMUL_BUILD=$MAGUS_BUILD_DIR/tests/relay-emul/ws
EMUL_INNER=$EMUL_BUILD/.magus/platform/linux-$EMUL_ARCH/magus

# Once per file: qemu registered, the foreign image on the engine.  What
# this machine cannot do becomes a skip (a failure under
# MAGUS_TEST_MUST_WORK=1) with the reason; anything else breaks the tests.
setup_file() {
	local rc log
	engine_up
	EMUL_SKIP= EMUL_BROKEN= EMUL_IMAGE=
	export EMUL_SKIP EMUL_BROKEN EMUL_IMAGE
	[ -z "$ENGINE_SKIP$ENGINE_BROKEN" ] || return 0
	if [ -z "$EMUL_ARCH" ]; then
		EMUL_SKIP="no other platform to emulate on $HOST_ARCH"
		return 0
	fi
	log=$BATS_FILE_TMPDIR/emul.log
	rc=0
	"$MAGUS_SRC_DIR/tests/engine/setup-binfmt.sh" "$EMUL_ARCH" \
		>"$log" 2>&1 3>&- || rc=$?
	case $rc in
	0) ;;
	77) EMUL_SKIP=$(tail -n 1 "$log"); return 0 ;;
	*) EMUL_BROKEN="setup-binfmt.sh failed ($rc): $(tail -n 3 "$log")"; return 0 ;;
	esac
	rc=0
	EMUL_IMAGE=$("$MAGUS_SRC_DIR/tests/engine/foreign-image.sh" \
		"$ENGINE_URL" "$EMUL_ARCH" 2>"$log" 3>&-) || rc=$?
	case $rc in
	0) ;;
	77) EMUL_SKIP=$(tail -n 1 "$log") ;;
	*) EMUL_BROKEN="foreign-image.sh failed ($rc): $(tail -n 3 "$log")" ;;
	esac
}

teardown_file() { engine_down; }

setup() {
	common_setup
	engine_require
	[ -z "$EMUL_BROKEN" ] || fail "$EMUL_BROKEN"
	if [ -n "$EMUL_SKIP" ]; then
		[ "${MAGUS_TEST_MUST_WORK:-0}" != 1 ] ||
			fail "MAGUS_TEST_MUST_WORK=1: $EMUL_SKIP"
		skip "$EMUL_SKIP"
	fi
	WS=$T/ws
}

teardown() { relay_cleanup; common_teardown; }

# The foreign inner magus make check built, or the reason there is none.
need_emul_inner() {
	local why
	[ -f "$EMUL_INNER/BUILD-INFO" ] && return 0
	why="no inner magus for $EMUL_PLATFORM at $EMUL_INNER: $(tail -n 3 \
		"$EMUL_BUILD/build.log" 2>/dev/null || echo 'make check builds it')"
	[ "${MAGUS_TEST_MUST_WORK:-0}" != 1 ] || fail "$why"
	skip "$why"
}

# image_digest IMAGE: IMAGE pinned by the digest the engine gives it.
image_digest() {
	engine_cli -H "$ENGINE_URL" image-inspect "$1" |
		sed -n 's/^digest=//p' | head -n 1
}

# emul_ws IMAGE INNER-DIR: the workspace $WS declaring IMAGE (pinned) for
# linux, with INNER-DIR as the inner magus in the $EMUL_PLATFORM store.
emul_ws() {
	local ref
	ref=$(image_digest "$1")
	[ -n "$ref" ] || fail "no digest for $1"
	EMUL_REF=$ref
	mkws "$WS" <<-EOF
	platform:
	  network: none
	  images:
	    linux:
	      ref: "$ref"
	targets:
	  arch:
	    run: ["sh", "-c", "echo machine=\$(uname -m); echo to-stderr >&2; exit 5"]
	  escape:
	    run: ["sh", "-c", "echo x >/tmp/escape-attempt && echo escaped; exit 4"]
	EOF
	mkdir -p "$WS/.magus/platform/linux-$EMUL_ARCH"
	cp -a "$2" "$WS/.magus/platform/linux-$EMUL_ARCH/magus"
	export WS EMUL_REF
}

emul_relay() {
	(cd "$WS" && exec "$RELAY" --platform "$EMUL_PLATFORM" --root "$WS" "$@")
}

@test "an emulated run: line one says emulated, the target's machine is $EMUL_MACHINE, output and status pass through" {
	need_emul_inner
	emul_ws "$EMUL_IMAGE" "$EMUL_INNER"
	# Not the host's machine: the answer below comes from the emulator.
	[ "$(uname -m)" != "$EMUL_MACHINE" ] || fail "the host is $EMUL_MACHINE"
	run --separate-stderr emul_relay -- --sandbox=off run arch
	assert_equal "$status" 5
	assert_equal "$output" "machine=$EMUL_MACHINE"
	[[ ${stderr_lines[0]} == "magus-relay: $EMUL_PLATFORM (emulated"*") on "* ]] ||
		fail "line one does not say emulated: ${stderr_lines[0]}"
	[[ ${stderr_lines[0]} == *", image $(cut -c1-12 <<<"${EMUL_REF#*@sha256:}")" ]] ||
		fail "line one names another image: ${stderr_lines[0]}"
	[[ $stderr == *to-stderr* ]] || fail "the target's stderr is lost: $stderr"
	run relay_objects
	assert_equal "$(grep -c '^c ' <<<"$output")" 0
}

@test "-o json: line one says \"emulated\":true, the last line names the invocation layer" {
	need_emul_inner
	emul_ws "$EMUL_IMAGE" "$EMUL_INNER"
	run --separate-stderr emul_relay -o json -- --sandbox=off run arch
	assert_equal "$status" 5
	assert_equal "$output" "machine=$EMUL_MACHINE"
	[[ ${stderr_lines[0]} == '{"platform":"'"$EMUL_PLATFORM"'","emulated":true,"runtime":'* ]] ||
		fail "line one: ${stderr_lines[0]}"
	assert_equal "${stderr_lines[-1]}" '{"layer":"invocation","status":5}'
}

@test "under emulation --sandbox=best-effort runs the target and names what it cannot enforce" {
	need_emul_inner
	emul_ws "$EMUL_IMAGE" "$EMUL_INNER"
	run --separate-stderr emul_relay -- --sandbox=best-effort run arch
	assert_equal "$status" 5
	assert_equal "$output" "machine=$EMUL_MACHINE"
	[[ $stderr != *MGS2015* ]] || fail "the sandbox refused to start: $stderr"
	# qemu-user 7.2 has neither Landlock nor seccomp filters: each
	# missing layer is named (a later qemu may have them).
	if [[ $stderr == *MGS2005* ]]; then
		[[ $stderr == *"[MGS2021]"*"not enforced: the terminal filter"* ]] ||
			fail "the missing terminal filter is not named: $stderr"
	fi
}

@test "under emulation --sandbox=required confines the target or refuses it; it never runs unconfined" {
	need_emul_inner
	emul_ws "$EMUL_IMAGE" "$EMUL_INNER"
	run --separate-stderr emul_relay -- --sandbox=required run escape
	[[ $output != *escaped* ]] || fail "the write outside the sandbox worked"
	if [ "$status" -eq 78 ]; then
		# qemu-user 7.2: no Landlock syscalls, so the floor refuses.
		assert_code MGS2012
	else
		assert_equal "$status" 4
		[[ $stderr == *"escape-attempt"*"denied"* ]] ||
			fail "the denial does not show: $stderr"
	fi
}

@test "an image of the host's architecture declared for $EMUL_PLATFORM is refused after inspect (exit 71, MGS3042), nothing created" {
	need_emul_inner
	emul_ws "$ENGINE_IMAGE" "$EMUL_INNER"
	run --separate-stderr emul_relay -- --sandbox=off run arch
	assert_equal "$status" 71
	assert_code MGS3042
	assert_equal "$output" ""
	[[ $stderr == *"linux/$HOST_ARCH, not $EMUL_PLATFORM"* ]] ||
		fail "the refusal names neither platform: $stderr"
	run --separate-stderr emul_relay -o json -- --sandbox=off run arch
	assert_equal "$status" 71
	assert_equal "${stderr_lines[-1]}" '{"layer":"relay","status":71,"code":"MGS3042"}'
	run relay_objects
	assert_output ""
}

@test "an inner magus for the host's architecture in the $EMUL_PLATFORM store is refused by its ELF header (exit 2, MGS3040) before the engine" {
	local version source store
	[ -f "$INNER_SRC/BUILD-INFO" ] ||
		fail "no inner magus at $INNER_SRC (make check builds it)"
	emul_ws "$EMUL_IMAGE" "$INNER_SRC"
	# Its BUILD-INFO rewritten to claim $EMUL_PLATFORM, with the same
	# version and sources and the files' true hashes: only the ELF
	# header tells.
	version=$(sed -n 's/^version //p' "$INNER_SRC/BUILD-INFO")
	source=$(sed -n 's/^source //p' "$INNER_SRC/BUILD-INFO")
	store=$WS/.magus/platform/linux-$EMUL_ARCH/magus
	chmod -R u+w "$store"
	"$MAGUS_SRC_DIR/contrib/release/write-buildinfo.sh" "$store" \
		"$version" "$EMUL_PLATFORM" "$source"
	grep -qx "platform $EMUL_PLATFORM" "$store/BUILD-INFO"
	# An unreachable socket: a refusal decided before the engine.
	MAGUS_CONTAINER_API=unix://$T/no-engine.sock \
		run --separate-stderr emul_relay -- --sandbox=off run arch
	assert_equal "$status" 2
	assert_code MGS3040
	[[ $stderr == *"/bin/magus' is an executable for $HOST_ARCH, not for $EMUL_PLATFORM"* ]] ||
		[[ $stderr == *"' is an executable for $HOST_ARCH, not for $EMUL_PLATFORM"* ]] ||
		fail "not refused by the ELF header: $stderr"
}
