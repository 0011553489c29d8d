#!/usr/bin/env bats
# magus-clean against the real test engine: what a relay killed with -9
# leaves goes; a live owner, a reused pid, another host, another workspace
# and objects without magus's labels are judged as the spec says; a dry
# run changes nothing; containers go before the volumes they hold.

load lib/common
load lib/engine
load lib/clean

setup_file() { engine_up; }
teardown_file() { engine_down; }

setup() {
	common_setup
	engine_require
	clean_ws
	OWNER_PID=
}

teardown() {
	[ -z "${OWNER_PID:-}" ] || { kill -9 "$OWNER_PID"; wait "$OWNER_PID"; } 2>/dev/null
	engine_cleanup
	common_teardown
}

# A process that stays alive while the test runs: a live owner.
live_owner() {
	sleep 300 </dev/null >/dev/null 2>&1 3>&- &
	OWNER_PID=$!
}

@test "orphans of a relay killed with SIGKILL are found and removed" {
	plant_orphans linux/arm64 run
	mkstore linux-arm64
	has_container "$ORPHAN_RUNNING"
	engine_cli -H "$ENGINE_URL" inspect "$ORPHAN_RUNNING" | grep -qx running=1
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_line --partial "removed container ${ORPHAN_RUNNING:0:12} (magus-relay-"
	assert_line --partial "removed container ${ORPHAN_STOPPED:0:12}"
	assert_line --partial "removed volume $ORPHAN_VOLUME"
	assert_line --partial "removed store $WS/.magus/platform/linux-arm64"
	assert_line "removed 2 containers, 1 volume, 1 store; kept 0; failed 0"
	# Each line says the labels that matched and why.
	assert_line --partial "magus.workspace=$WS magus.platform=linux/arm64 magus.use=relay"
	assert_line --partial "magus.pid=$ORPHAN_PID"
	assert_line --partial ": owner process is not running"
	# Containers go before volumes, stores last.
	local c v s
	c=$(grep -n 'removed container' <<<"$output" | tail -n 1 | cut -d: -f1)
	v=$(grep -n 'removed volume' <<<"$output" | cut -d: -f1)
	s=$(grep -n 'removed store' <<<"$output" | cut -d: -f1)
	[ "$c" -lt "$v" ] && [ "$v" -lt "$s" ]
	refute_container "$ORPHAN_RUNNING"
	refute_container "$ORPHAN_STOPPED"
	refute_volume "$ORPHAN_VOLUME"
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
}

@test "a live owner in another process is listed as live and spared" {
	local id vol
	live_owner
	id=$(plant_container magus-relay-live "$(owner_labels "$OWNER_PID" '' '' linux/arm64)" run)
	vol=$(plant_volume magus-home-live "$(owner_labels "$OWNER_PID" '' '' linux/arm64)")
	mkstore linux-arm64
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "kept container ${id:0:12} (magus-relay-live)"
	assert_line --partial "kept volume $vol"
	assert_line --partial "magus.pid=$OWNER_PID"
	assert_line --partial ": owner process is running"
	# Its platform's store is in use by the kept container.
	assert_line --partial "kept store $WS/.magus/platform/linux-arm64: in use by kept container ${id:0:12}"
	has_container "$id"
	has_volume "$vol"
	[ -f "$WS/.magus/platform/linux-arm64/home/.profile" ]
}

@test "a container whose labeled pid was reused by an unrelated process is removed" {
	local id start
	live_owner
	start=$(pid_start "$OWNER_PID")
	# The same pid number, but a start time the running process does not
	# have: the owner died and the pid went to someone else.
	id=$(plant_container magus-relay-reused "$(owner_labels "$OWNER_PID" "$((start - 1))")")
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "removed container ${id:0:12} (magus-relay-reused)"
	assert_line --partial ": owner pid was reused by a later process"
	refute_container "$id"
	kill -0 "$OWNER_PID"
}

@test "objects of another workspace and objects without magus's labels survive, whatever their name" {
	local other unl half vol_other vol_unl dead
	sleep 0 & dead=$!
	wait "$dead"
	# Another workspace: a dead owner, a name like ours.  One is a prefix
	# of ours, one has ours as a prefix: the label must match exactly.
	other=$(plant_container magus-relay-other "$(owner_labels "$dead" 1 '' '' "$WS-other")")
	half=$(plant_container magus-relay-sub "$(owner_labels "$dead" 1 '' '' "$WS/sub")")
	vol_other=$(plant_volume magus-home-other "$(owner_labels "$dead" 1 '' '' "${WS%/*}")")
	# No magus labels at all, named as magus names its objects.
	unl=$(plant_container magus-relay-unlabeled '')
	vol_unl=$(engine_cli -H "$ENGINE_URL" volume-create magus-home-unlabeled "$ENGINE_LABEL")
	# This workspace's label alone is not magus's labels either.
	local wsonly
	wsonly=$(plant_container magus-relay-wsonly "\"magus.workspace\":$(json_str "$WS")")
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	refute_line --partial "removed container"
	refute_line --partial "removed volume"
	assert_line --partial "kept container ${wsonly:0:12} (magus-relay-wsonly) [magus.workspace=$WS]: not labeled by magus"
	has_container "$other"
	has_container "$half"
	has_container "$unl"
	has_container "$wsonly"
	has_volume "$vol_other"
	has_volume "$vol_unl"
}

@test "another host's objects are never judged dead: kept, with the reason" {
	local id vol dead
	sleep 0 & dead=$!
	wait "$dead"
	id=$(plant_container magus-relay-far "$(owner_labels "$dead" 1 elsewhere.invalid)")
	vol=$(plant_volume magus-home-far "$(owner_labels "$dead" 1 elsewhere.invalid)")
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "kept container ${id:0:12} (magus-relay-far)"
	assert_line --partial "magus.host=elsewhere.invalid"
	assert_line --partial ": created on another host: never judged dead here"
	assert_line --partial "kept volume $vol"
	assert_line "removed 0 containers, 0 volumes, 0 stores; kept 2; failed 0"
	has_container "$id"
	has_volume "$vol"
}

@test "--dry-run lists the plan and changes nothing" {
	local before_c before_v live
	plant_orphans linux/arm64
	live_owner
	live=$(plant_container magus-relay-live "$(owner_labels "$OWNER_PID" '' '' linux/arm64)")
	mkstore linux-arm64
	mkstore linux-amd64
	before_c=$(engine_containers | sort)
	before_v=$(engine_volumes | sort)
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all --dry-run
	assert_success
	assert_line --partial "would remove container ${ORPHAN_RUNNING:0:12}"
	assert_line --partial "would remove container ${ORPHAN_STOPPED:0:12}"
	assert_line --partial "would remove volume $ORPHAN_VOLUME"
	assert_line --partial "keep container ${live:0:12} (magus-relay-live)"
	assert_line --partial "would remove store $WS/.magus/platform/linux-amd64: platform store"
	assert_line --partial "keep store $WS/.magus/platform/linux-arm64: in use by kept container ${live:0:12}"
	assert_line "would remove 2 containers, 1 volume, 1 store; would keep 2"
	[ "$(engine_containers | sort)" = "$before_c" ]
	[ "$(engine_volumes | sort)" = "$before_v" ]
	[ -f "$WS/.magus/platform/linux-arm64/.cache/go/mod/a.txt" ]
	[ -f "$WS/.magus/platform/linux-amd64/.cache/go/mod/a.txt" ]
}

@test "--platform removes that platform's objects and store only" {
	local amd
	plant_orphans linux/arm64
	local arm_running=$ORPHAN_RUNNING arm_volume=$ORPHAN_VOLUME
	plant_orphans linux/amd64
	amd=$ORPHAN_RUNNING
	mkstore linux-arm64
	mkstore linux-amd64
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm64
	assert_success
	assert_line --partial "removed container ${arm_running:0:12}"
	assert_line --partial "removed volume $arm_volume"
	refute_line --partial "${amd:0:12}"
	assert_line "removed 2 containers, 1 volume, 1 store; kept 0; failed 0"
	refute_container "$arm_running"
	has_container "$amd"
	has_volume "$ORPHAN_VOLUME"
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
	[ -d "$WS/.magus/platform/linux-amd64" ]
}

@test "a volume held by an orphan container goes after the container" {
	local dead labels vol id
	sleep 0 & dead=$!
	wait "$dead"
	labels=$(owner_labels "$dead" 1)
	vol=$(plant_volume "magus-home-held-$$" "$labels")
	engine_body 'sleep 300' '' \
		"\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"$vol\",\"Target\":\"/home/user\",\"ReadOnly\":false}]" \
		"$labels" >"$T/held.json"
	id=$(engine_cli -H "$ENGINE_URL" create "$T/held.json" magus-relay-held)
	engine_cli -H "$ENGINE_URL" start "$id" >/dev/null
	# While the container holds it, the engine refuses the volume.
	run engine_cli -H "$ENGINE_URL" volume-rm "$vol"
	assert_failure
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "removed container ${id:0:12}"
	assert_line --partial "removed volume $vol"
	refute_container "$id"
	refute_volume "$vol"
}

@test "-o json: one object per line, and a summary, that jq reads" {
	local live
	plant_orphans linux/arm64
	live_owner
	live=$(plant_container magus-relay-live "$(owner_labels "$OWNER_PID" '' '' linux/arm64)")
	next_second
	run --separate-stderr "$CLEAN" --root "$WS" --all --dry-run -o json
	assert_success
	jq -e . <<<"$output" >/dev/null
	[ "$(jq -s length <<<"$output")" -eq 5 ]
	jq -se --arg id "$ORPHAN_RUNNING" --arg ws "$WS" '.[] |
		select(.id == $id) | .kind == "container" and .action == "remove"
		and .dry_run == true and .labels["magus.workspace"] == $ws and
		.why == "owner process is not running" and (has("result") | not)' \
		<<<"$output"
	jq -se --arg id "$live" '.[] | select(.id == $id) |
		.action == "keep" and .why == "owner process is running"' <<<"$output"
	jq -se 'last | .kind == "summary" and .containers == 2 and .volumes == 1
		and .stores == 0 and .kept == 1 and .engine == "checked"' <<<"$output"
	run --separate-stderr "$CLEAN" --root "$WS" --all -o json
	assert_success
	jq -se --arg v "$ORPHAN_VOLUME" '.[] | select(.id == $v) |
		.kind == "volume" and .result == "removed" and .dry_run == false' \
		<<<"$output"
	refute_volume "$ORPHAN_VOLUME"
}

@test "magus clean end to end: the front passes the workspace, the cache dir and the engine" {
	plant_orphans linux/arm64
	mkstore linux-arm64
	mkdir -p "$WS/sub/dir"
	cd "$WS/sub/dir"
	next_second
	run --separate-stderr magus clean --platform linux/arm64
	assert_success
	assert_line --partial "removed container ${ORPHAN_RUNNING:0:12}"
	assert_line --partial "removed store $WS/.magus/platform/linux-arm64"
	refute_container "$ORPHAN_STOPPED"
	# -o json is the front's global flag.
	run --separate-stderr magus -o json clean --all --dry-run
	assert_success
	jq -se 'last | .kind == "summary" and .dry_run' <<<"$output"
}
