#!/usr/bin/env bats
# magus-relay end to end against the real test engine: the inner magus
# runs a sandboxed target in the container; output and exit status pass
# through; line one; the request as the engine holds it (mounts, user,
# init, labels, the environment floor, nothing else crossing); every line
# and the status arrive run after run; an OOM kill read from inspect.

load lib/common
load lib/engine
load lib/relay

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() { common_setup; engine_require; relay_ws; }
teardown() { relay_cleanup; common_teardown; }

@test "a target runs in the container: stdout, stderr and the status pass through; line one first" {
	run --separate-stderr relay -- run hello
	assert_equal "$status" 3
	assert_equal "$output" "hello from Linux"
	[[ ${stderr_lines[0]} == "magus-relay: $RELAY_PLATFORM on "* ]] ||
		fail "line one: ${stderr_lines[0]}"
	[[ ${stderr_lines[0]} == *"at ${ENGINE_URL#unix://}, kernel "* ]] ||
		fail "line one names no socket or kernel: ${stderr_lines[0]}"
	[[ ${stderr_lines[0]} == *", image ${RELAY_IMAGE_REF#*@sha256:}" ]] ||
		[[ ${stderr_lines[0]} == *", image $(cut -c1-12 <<<"${RELAY_IMAGE_REF#*@sha256:}")" ]] ||
		fail "line one names no image digest: ${stderr_lines[0]}"
	[[ $stderr == *to-stderr* ]] || fail "the target's stderr is lost: $stderr"
	# The container is gone; the home volume stays, labeled.
	run relay_objects
	assert_equal "$(grep -c '^c ' <<<"$output")" 0
	assert_equal "$(grep -c '^v ' <<<"$output")" 1
}

@test "the target is sandboxed inside: --sandbox=required confines it with Landlock" {
	run --separate-stderr relay -- --sandbox=required run escape
	assert_equal "$status" 4
	[[ $output != *escaped* ]] || fail "the write outside the sandbox worked"
	assert_line "sandbox=required"
	[[ $stderr == *"escape-attempt"*"denied"* ]] ||
		fail "the denial does not show: $stderr"
}

@test "-o json: line one is a JSON object on stderr, the last line names the layer" {
	run --separate-stderr relay -o json -- run hello
	assert_equal "$status" 3
	assert_equal "$output" "hello from Linux"
	[[ ${stderr_lines[0]} == '{"platform":"'"$RELAY_PLATFORM"'","emulated":false,"runtime":'* ]] ||
		fail "line one: ${stderr_lines[0]}"
	assert_equal "${stderr_lines[-1]}" '{"layer":"invocation","status":3}'
}

@test "30000 lines on stdout, 7500 on stderr and a non-zero exit arrive complete, three runs in a row" {
	seq 30000 | sed 's/.*/line & of 30000/' >"$T/want-out"
	seq 4 4 30000 | sed 's/^/err /' >"$T/want-err"
	for i in 1 2 3; do
		rc=0
		relay -- run lines >"$T/out" 2>"$T/err" || rc=$?
		assert_equal "run $i: $rc" "run $i: 7"
		cmp "$T/want-out" "$T/out" || fail "run $i: stdout differs"
		grep '^err ' "$T/err" >"$T/err-lines"
		cmp "$T/want-err" "$T/err-lines" || fail "run $i: stderr differs"
	done
}

@test "describe tools runs its probes inside the image, names what the image lacks, and leaves no container" {
	relay_ws "tools: [sh, git, no-such-tool]"
	run --separate-stderr relay -- describe tools
	assert_equal "$status" 3
	assert_line --index 0 "tools on $RELAY_PLATFORM:"
	assert_line --regexp '^  sh +/bin/sh( |$)'
	# git is on this host (the suite runs git): missing here means the
	# probe looked inside the image.
	command -v git >/dev/null || fail "the host has no git to compare with"
	assert_line --regexp '^  git +missing \(not on PATH\)$'
	assert_line --regexp '^  no-such-tool +missing'
	assert_code MGS1016
	[[ $stderr == *"'git', 'no-such-tool'"* ]] || fail "not named: $stderr"
	[[ ${stderr_lines[0]} == "magus-relay: $RELAY_PLATFORM on "* ]] ||
		fail "line one: ${stderr_lines[0]}"
	run relay_objects
	assert_equal "$(grep -c '^c ' <<<"$output")" 0
}

@test "a relay run by a user other than root: the container runs as that uid, and the home volume is its own across runs" {
	local uid=4242 sock link
	sock=${ENGINE_URL#unix://}
	# The engine's socket is root's; a second name for it, in a directory
	# this user may enter, lets the user connect without opening the
	# engine's own directory.  The mode is put back afterwards.
	mkdir -p "$T/sock"
	link=$T/sock/engine.sock
	ln "$sock" "$link" || fail "cannot link the engine's socket into \$T (another file system?)"
	chmod 0666 "$link"
	chmod 0711 "$T" "$T/sock"
	chown -R "$uid:$uid" "$WS" "$HOME"
	as_user() {
		(cd "$WS" && exec setpriv --reuid="$uid" --regid="$uid" \
			--clear-groups env MAGUS_CONTAINER_API="unix://$link" \
			"$RELAY" --platform "$RELAY_PLATFORM" --root "$WS" -- run home)
	}
	run --separate-stderr as_user
	local first_status=$status first_output=$output
	# Shown when the test fails.
	printf 'first run: %s\n%s\n%s\n' "$first_status" "$first_output" "$stderr"
	run --separate-stderr as_user
	chmod 0600 "$link"
	rm -f "$link"
	assert_equal "$first_status" 0
	assert_equal "$(sed -n 1p <<<"$first_output")" "$uid"
	assert_equal "$(sed -n 3p <<<"$first_output")" wrote
	home=$(sed -n 2p <<<"$first_output")
	[ -n "$home" ] && [ "$home" != / ] || fail "no home: $first_output"
	# The second run finds the first run's file in the same home.
	assert_success
	assert_line --index 0 "$uid"
	assert_line --index 1 "$home"
	assert_line --index 2 --regexp '^mark-[0-9]+$'
	assert_line --index 3 wrote
	# One home volume, labeled with the workspace.
	run relay_objects
	assert_equal "$(grep -c '^v ' <<<"$output")" 1
}

@test "the request as the engine holds it: mounts, user, init, labels, and only the named environment" {
	# (the harness's own MAGUS_* would cross too, as every told value does)
	unset MAGUS_BUILD_DIR MAGUS_SRC_DIR MAGUS_TEST_ENGINE MAGUS_TEST_MUST_WORK
	export SECRET_TOKEN=do-not-cross SSH_AUTH_SOCK=/tmp/agent \
		DOCKER_HOST=tcp://x:1 MAGUS_LOG_FORMAT=json TERM=dumb \
		MAGUS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
		MAGUS_RELEASE_INDEX=https://127.0.0.1:1/index.json
	relay_bg -- run sleep
	pid=$RELAY_PID
	id=$(relay_await_running) || { kill -KILL $pid; fail "no container ran"; }
	engine_cli inspect "$id" >"$T/inspect"
	curl -sf --unix-socket "${ENGINE_URL#unix://}" \
		"http://d/v1.41/containers/$id/json" >"$T/raw.json"
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	assert_equal "$rc" 143

	# The environment: the floor, the told values, the declaration's;
	# nothing else of the caller's.
	grep '^env=' "$T/inspect" | sed 's/^env=//' | sort >"$T/env"
	for want in MAGUS_SANDBOX=off MAGUS_CACHE_REMOTE_WRITE_ENABLED=false \
	    MAGUS_NO_BOOTSTRAP_EXEC=1 MAGUS_BROKER=off \
	    "MAGUS_PLATFORM=$RELAY_PLATFORM" MAGUS_LOG_FORMAT=json TERM=dumb \
	    FROM_DECLARATION=yes "USER=$(id -un)" "HOME=/home/$(id -un)"; do
		grep -qx "$want" "$T/env" || fail "missing $want in: $(cat "$T/env")"
	done
	# (the release index and CA bundle serve magus self fetch, a verb that
	# is never relayed: they stay on this side, not refused)
	! grep -E 'SECRET_TOKEN|SSH_AUTH_SOCK|DOCKER_HOST|MAGUS_EXEC_PATH|MAGUS_CONTAINER_API|MAGUS_CA_BUNDLE|MAGUS_RELEASE_INDEX' "$T/env" ||
		fail "a variable crossed that must not"
	# Whatever else is there came from the image or the engine itself.
	grep -vE '^(MAGUS_(SANDBOX|CACHE_REMOTE_WRITE_ENABLED|NO_BOOTSTRAP_EXEC|BROKER|PLATFORM|LOG_FORMAT)|TERM|FROM_DECLARATION|USER|HOME|PATH|HOSTNAME|container)=' \
		"$T/env" >"$T/extra" || true
	assert_equal "$(cat "$T/extra")" ""

	# Labels, pid start time included.
	for l in "magus.workspace=$WS" magus.use=relay "magus.host=$(hostname)" \
	    "magus.pid=$pid" "magus.platform=$RELAY_PLATFORM"; do
		grep -qx "label=$l" "$T/inspect" || fail "label $l missing"
	done
	grep -qE '^label=magus.pid-start=[0-9]+$' "$T/inspect"
	grep -qE '^label=magus.invocation=[0-9a-f]{32}$' "$T/inspect"

	# User, Init, no privilege, the mounts as the spec lists them.
	python3 - "$T/raw.json" "$WS" "$(id -u):$(id -g)" "$HOST_ARCH" <<-'EOF'
	import json, sys
	c = json.load(open(sys.argv[1]))
	ws, ug = sys.argv[2], sys.argv[3]
	assert c["Config"]["User"] == ug, c["Config"]["User"]
	hc = c["HostConfig"]
	assert hc["Init"] is True
	assert hc["Privileged"] is False
	assert hc["NetworkMode"] == "none", hc["NetworkMode"]
	assert "no-new-privileges" in (hc.get("SecurityOpt") or []), hc.get("SecurityOpt")
	assert c["Config"]["WorkingDir"] == ws
	m = {x["Destination"]: x for x in c["Mounts"]}
	assert m[ws]["Source"] == ws and m[ws]["RW"] is False, m[ws]
	st = m[ws + "/.magus"]
	assert st["Source"] == ws + "/.magus/platform/linux-" + sys.argv[4], st
	assert st["RW"] is True
	inner = m["/usr/local/lib/magus"]
	assert inner["Source"] == st["Source"] + "/magus", inner
	assert inner["RW"] is False
	home = [x for x in c["Mounts"] if x["Type"] == "volume"]
	assert len(home) == 1 and home[0]["Destination"].startswith("/home/"), home
	assert len(c["Mounts"]) == 4, c["Mounts"]
	EOF
}

@test "the checkout is read-only inside and the platform store over .magus is writable" {
	cat >>"$WS/magus.yaml" <<-'EOF'
	  write:
	    run: ["sh", "-c", "touch $PWD/intree 2>/dev/null && echo tree-writable; touch $PWD/.magus/note && echo store-writable"]
	EOF
	run --separate-stderr relay -- run write
	assert_success
	assert_output "store-writable"
	[ ! -e "$WS/intree" ]
	[ -e "$WS/.magus/platform/$(echo "$RELAY_PLATFORM" | tr / -)/note" ]
}

@test "an OOM kill is read from inspect and reported: exit 71, MGS3008" {
	relay_ws "  memory_mb: 16"
	run --separate-stderr relay -- run oom
	assert_equal "$status" 71
	assert_code MGS3008
	run relay_objects
	assert_equal "$(grep -c '^c ' <<<"$output")" 0
}
