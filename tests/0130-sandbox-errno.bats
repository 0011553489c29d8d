#!/usr/bin/env bats
# A kernel without Landlock, and Landlock failing half way: the real
# magus code paths, reached by a seccomp filter (sbx-probe fail) that
# makes the Landlock system calls (444 create_ruleset, 445 add_rule,
# 446 restrict_self) answer with a chosen errno.  No mock inside magus.

load lib/common
load lib/sandbox

setup() { sandbox_setup; }
teardown() { sandbox_teardown; }

# nolandlock ERRNO COMMAND...: COMMAND on a "kernel" whose Landlock
# system calls all fail with ERRNO.
nolandlock() {
	local err=$1
	shift
	"$PROBE_BIN" fail 444,445,446 "$err" -- "$@"
}

@test "the filter works: the probe sees no Landlock under it" {
	run "$PROBE_BIN" fail 444,445,446 ENOSYS -- "$PROBE_BIN" abi
	assert_success
	assert_output 0
}

@test "ENOSYS, best-effort: MGS2005 once with the built-without hint; the command runs" {
	run --separate-stderr nolandlock ENOSYS env -i HOME="$HOME" PATH="$SBX_PATH" AWS_SECRET_ACCESS_KEY="$SECRET" \
		"$SBX" --root "$WS" --mode best-effort -- /bin/sh -c 'echo "${AWS_SECRET_ACCESS_KEY:-stripped}"'
	assert_success
	assert_output stripped
	[ "$(grep -c '\[MGS2005\]' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"Function not implemented"* ]]
	[[ "$stderr" == *"hint: this kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)"* ]]
}

@test "EOPNOTSUPP, best-effort: MGS2005 with the lsm=landlock hint" {
	run --separate-stderr nolandlock EOPNOTSUPP env -i PATH="$SBX_PATH" HOME="$HOME" \
		"$SBX" --root "$WS" --mode best-effort -- true
	assert_success
	assert_code MGS2005
	# strerror(EOPNOTSUPP): glibc's words, or musl's (configure.ac)
	[[ "$stderr" == *"Operation not supported"* ||
	   "$stderr" == *"Not supported"* ]]
	[[ "$stderr" == *"lsm=landlock"* ]]
}

@test "no Landlock, best-effort: the exec check still refuses a dropped binary (MGS2007)" {
	cp "$PROBE_BIN" "$OUT/dropped"
	run --separate-stderr nolandlock ENOSYS env -i PATH="$SBX_PATH" HOME="$HOME" \
		"$SBX" --root "$WS" --mode best-effort -- "$OUT/dropped" abi
	[ "$status" -eq 126 ]
	assert_code MGS2005
	[[ "$stderr" == *"[MGS2007]"*"$OUT/dropped"* ]]
	refute_output
}

@test "no Landlock, best-effort: no_new_privs and the capability drop still apply" {
	run --separate-stderr nolandlock ENOSYS env -i PATH="$SBX_PATH" HOME="$HOME" \
		"$SBX" --root "$WS" --mode best-effort -- cat /proc/self/status
	assert_success
	assert_line --regexp '^CapEff:[[:space:]]+0+$'
	assert_line --regexp '^CapPrm:[[:space:]]+0+$'
}

@test "no Landlock, print-policy says binding-level checks only" {
	run --separate-stderr nolandlock ENOSYS env -i PATH="$SBX_PATH" HOME="$HOME" \
		"$SBX" --root "$WS" --mode best-effort --print-policy -- true
	assert_success
	assert_line "landlock      none (Function not implemented): binding-level checks only"
}

@test "ENOSYS and EOPNOTSUPP, required: MGS2012, exit 78, the workspace named, nothing runs" {
	for err in ENOSYS EOPNOTSUPP; do
		run --separate-stderr nolandlock "$err" env -i PATH="$SBX_PATH" HOME="$HOME" \
			"$SBX" --root "$WS" --mode required -- touch "$WS/ran"
		[ "$status" -eq 78 ]
		assert_code MGS2012
		[[ "$stderr" == *"'$WS'"* ]]
		[[ "$stderr" == *"run on Linux 6.2 or newer with Landlock enabled, or use best-effort"* ]]
		[[ "$stderr" == *"hint: "* ]]
	done
	[ ! -e "$WS/ran" ]
}

@test "creating the ruleset failing after the probe succeeded: MGS2015, exit 71, nothing runs" {
	need_abi 1
	# The version probe passes flags 1; creating a ruleset passes 0.
	run --separate-stderr "$PROBE_BIN" fail 444@0 ENOMEM -- env -i PATH="$SBX_PATH" \
		HOME="$HOME" "$SBX" --root "$WS" --mode best-effort --tmp "$TMPD" -- touch "$WS/ran"
	[ "$status" -eq 71 ]
	assert_code MGS2015
	[[ "$stderr" == *"cannot create the Landlock ruleset"* ]]
	[ ! -e "$WS/ran" ]
}

@test "adding a rule failing: MGS2015, exit 71, nothing runs, never a partial ruleset" {
	need_abi 1
	run --separate-stderr "$PROBE_BIN" fail 445 ENOMEM -- env -i PATH="$SBX_PATH" \
		HOME="$HOME" "$SBX" --root "$WS" --mode best-effort --tmp "$TMPD" -- touch "$WS/ran"
	[ "$status" -eq 71 ]
	assert_code MGS2015
	[[ "$stderr" == *"cannot add the Landlock rule"* ]]
	[ ! -e "$WS/ran" ]
}

@test "restrict_self failing after the ruleset was built: MGS2015, exit 71, nothing runs" {
	need_abi 1
	for tmp in --tmp=$TMPD ''; do
		mkdir -p "$T/tmproot"
		run --separate-stderr "$PROBE_BIN" fail 446 EPERM -- env -i PATH="$SBX_PATH" \
			HOME="$HOME" TMPDIR="$T/tmproot" "$SBX" --root "$WS" --mode best-effort $tmp \
			-- touch "$WS/ran"
		[ "$status" -eq 71 ]
		assert_code MGS2015
		[[ "$stderr" == *"cannot apply the Landlock ruleset"* ]]
		[ ! -e "$WS/ran" ]
		# The temp dir made for the run is gone too.
		[ -z "$(ls -A "$T/tmproot")" ]
	done
}

@test "doctor without Landlock: none, with the errno's hint" {
	run --separate-stderr nolandlock EOPNOTSUPP magus doctor
	assert_success
	assert_line "landlock:       none (Operation not supported)"
	assert_line --partial "hint: Landlock is built in but disabled at boot"
	assert_line --regexp '^  required +refuses to run \(MGS2012\)'
	assert_line --regexp '^  best-effort +no Landlock'
}

@test "doctor and print-policy agree on the ABI and what is not enforced" {
	need_abi 1
	for n in 1 4 7; do
		MAGUS_LANDLOCK_ABI_MAX=$n run --separate-stderr magus doctor
		doc=$(grep '^  not enforced: ' <<<"$output" | sed 's/^  not enforced: //')
		[[ "$output" == *"ABI $n used"* ]]
		SBX_ENV="MAGUS_LANDLOCK_ABI_MAX=$n" run --separate-stderr \
			sbx --mode best-effort --network none --print-policy -- true
		pol=$(grep '^not enforced' <<<"$output" | sed 's/^not enforced  //')
		[ "$doc" = "$pol" ] || fail "ABI $n: doctor '$doc', print-policy '$pol'"
	done
}
