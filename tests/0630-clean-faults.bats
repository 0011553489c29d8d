#!/usr/bin/env bats
# magus-clean against the fake engine, for what a real engine does not do
# on demand: an object in use for a while (409, podman's 500), one already
# gone (404), one that stays in use, objects newer than the scan, a list
# that ignores the label filter, an unreadable answer; and the exact
# requests sent.

load lib/common
load lib/engine
load lib/clean

setup() {
	common_setup
	clean_ws
	# A pid that has exited: the owner of every object below.
	sleep 0 &
	DEAD=$!
	wait "$DEAD"
	LABELS="{$(owner_labels "$DEAD" 1)}"
}

teardown() { fake_down; common_teardown; }

# A container list entry: container ID [CREATED [LABELS]].
container_json() {
	printf '{"Id":"%s","Names":["/magus-relay-%s"],"Image":"x","State":"exited","Status":"Exited (0)","Created":%s,"Labels":%s}' \
		"$1" "$1" "${2:-1000000000}" "${3:-$LABELS}"
}

# A volume list entry: volume NAME [CREATED-AT [LABELS]].
volume_json() {
	printf '{"Name":"%s","Driver":"local","Mountpoint":"/x","CreatedAt":"%s","Labels":%s}' \
		"$1" "${2:-2001-09-09T01:46:40Z}" "${3:-$LABELS}"
}

# The scenario's two list answers: lists CONTAINERS-JSON VOLUMES-JSON.
lists() {
	echo "GET /v1.41/containers/json 200 body=[$1]"
	echo "GET /v1.41/volumes 200 body={\"Volumes\":[$2],\"Warnings\":[]}"
}

deletes() {
	fake_log | grep -c " DELETE $1" || true
}

@test "a container in use twice (409) and a volume in use twice (podman's 500) are tried again, then removed" {
	{
		lists "$(container_json c1)" "$(volume_json v1)"
		echo 'DELETE /v1.41/containers/c1 409 times=2 body={"message":"removal of container c1 is already in progress"}'
		echo 'DELETE /v1.41/containers/c1 204'
		echo 'DELETE /v1.41/volumes/v1 500 times=2 body={"cause":"volume is being used","message":"volume v1 is being used","response":500}'
		echo 'DELETE /v1.41/volumes/v1 204'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	assert_success
	assert_line --partial "removed container c1 (magus-relay-c1)"
	assert_line --partial "removed volume v1"
	assert_line "removed 1 container, 1 volume, 0 stores; kept 0; failed 0"
	[ "$(deletes /v1.41/containers/c1)" -eq 3 ]
	[ "$(deletes /v1.41/volumes/v1)" -eq 3 ]
	# Containers are forced out with their anonymous volumes; a volume is
	# never forced (podman's force removes the containers using it).
	fake_log | grep -q " DELETE /v1.41/containers/c1?force=1&v=1$"
	[ "$(fake_log | grep " DELETE /v1.41/volumes/" | grep -c force)" -eq 0 ]
	# Every container delete comes before the first volume delete.
	local lc fv
	lc=$(fake_log | grep -n " DELETE /v1.41/containers/" | tail -n 1 | cut -d: -f1)
	fv=$(fake_log | grep -n " DELETE /v1.41/volumes/" | head -n 1 | cut -d: -f1)
	[ "$lc" -lt "$fv" ]
	# The filter named this workspace, with every container (all=1).
	local q
	q=$(fake_log | grep -m1 " GET /v1.41/containers/json")
	[[ $q == *"all=1"* ]]
	q=$(printf '%b' "$(sed 's/%/\\x/g' <<<"$q")")
	[[ $q == *"{\"label\":[\"magus.workspace=$WS\"]}"* ]]
}

@test "404 on delete counts as done" {
	{
		lists "$(container_json c1)" "$(volume_json v1)"
		echo 'DELETE /v1.41/containers/c1 404 body={"message":"no such container"}'
		echo 'DELETE /v1.41/volumes/v1 404 body={"message":"no such volume"}'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL" -o json
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	jq -se '.[0].id == "c1" and .[0].result == "already-gone" and
		.[1].id == "v1" and .[1].result == "already-gone" and
		(last | .containers == 1 and .volumes == 1 and .failed == 0)' <<<"$output"
	[ "$(deletes /v1.41/containers/c1)" -eq 1 ]
}

@test "an object that stays in use is tried a bounded number of times: exit 1, MGS6005" {
	{
		lists "$(container_json c1),$(container_json c2)" "$(volume_json v1)"
		echo 'DELETE /v1.41/containers/c1 204'
		echo 'DELETE /v1.41/containers/c2 204'
		echo 'DELETE /v1.41/volumes/v1 409 body={"message":"volume is in use by a container of someone else"}'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	[ "$status" -eq 1 ]
	assert_code MGS6005
	[[ $stderr == *"volume 'v1' is still in use after 5 tries"* ]]
	assert_line --partial "failed to remove volume v1"
	assert_line "removed 2 containers, 0 volumes, 0 stores; kept 0; failed 1"
	[ "$(deletes /v1.41/volumes/v1)" -eq 5 ]
}

@test "another refusal of the engine is its own diagnostic; the rest still goes; exit 71" {
	mkstore linux-arm64
	{
		lists "$(container_json c1),$(container_json c2)" "$(volume_json v1)"
		echo 'DELETE /v1.41/containers/c1 500 body={"message":"storage driver exploded"}'
		echo 'DELETE /v1.41/containers/c2 204'
		echo 'DELETE /v1.41/volumes/v1 204'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	[ "$status" -eq 71 ]
	assert_code MGS3006
	[[ $stderr == *"storage driver exploded"* ]]
	[ "$(deletes /v1.41/containers/c1)" -eq 1 ]
	assert_line --partial "removed container c2"
	assert_line --partial "removed volume v1"
	assert_line --partial "removed store $WS/.magus/platform/linux-arm64"
}

@test "objects created since the scan began are left alone" {
	local later
	later=$(($(date +%s) + 3600))
	{
		lists "$(container_json c1 "$later"),$(container_json c2)" \
			"$(volume_json v1 "$(date -u -d "@$later" +%Y-%m-%dT%H:%M:%S.123456789Z)"),$(volume_json v2 2001-09-09T03:46:40+02:00)"
		echo 'DELETE /v1.41/containers/c2 204'
		echo 'DELETE /v1.41/volumes/v2 204'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	assert_success
	assert_line --partial "kept container c1 (magus-relay-c1)"
	assert_line --partial "kept volume v1"
	assert_line --regexp "^kept container c1 .*: created since this scan began$"
	assert_line --partial "removed container c2"
	assert_line --partial "removed volume v2"
	[ "$(deletes /v1.41/containers/c1)" -eq 0 ]
	[ "$(deletes /v1.41/volumes/v1)" -eq 0 ]
}

@test "an engine that ignores the label filter still gets only this workspace's objects judged" {
	local other unl
	other="{$(owner_labels "$DEAD" 1 '' '' /elsewhere)}"
	unl='{"com.example":"1"}'
	{
		lists "$(container_json o1 '' "$other"),$(container_json u1 '' "$unl"),$(container_json c1)" \
			"$(volume_json ov '' "$other"),$(volume_json uv '' '{}')"
		echo 'DELETE /v1.41/containers/c1 204'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	assert_success
	assert_line "removed 1 container, 0 volumes, 0 stores; kept 0; failed 0"
	refute_output --partial o1
	refute_output --partial u1
	[ "$(fake_log | grep -c ' DELETE ')" -eq 1 ]
	# The same with --platform: an object of another platform is not
	# this clean's either.
	fake_down
	rm -rf "$T/fake"
	{
		lists "$(container_json c1 '' "{$(owner_labels "$DEAD" 1 '' linux/amd64)}"),$(container_json c2 '' "{$(owner_labels "$DEAD" 1 '' linux/arm64)}")" ""
		echo 'DELETE /v1.41/containers/c2 204'
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm64 --container-api "$FAKE_URL"
	assert_success
	assert_line "removed 1 container, 0 volumes, 0 stores; kept 0; failed 0"
	[ "$(deletes /v1.41/containers/c1)" -eq 0 ]
}

@test "a list answer that cannot be read: the stores still go, exit 71 (MGS3032)" {
	mkstore linux-arm64
	fake_up <<-'EOF'
	GET /v1.41/containers/json 200 body=this is not json
	EOF
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL" -o json
	[ "$status" -eq 71 ]
	jq -e 'select(.code) | .code == "MGS3032"' <<<"$stderr"
	jq -se 'last | .engine == "failed" and .stores == 1' <<<"$output"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	[ "$status" -eq 71 ]
	assert_code MGS3032
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
	[ "$(fake_log | grep -c ' DELETE ')" -eq 0 ]
}

@test "--dry-run sends no delete" {
	{
		lists "$(container_json c1)" "$(volume_json v1)"
	} >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --dry-run --container-api "$FAKE_URL"
	assert_success
	assert_line --partial "would remove container c1"
	assert_line --partial "would remove volume v1"
	fake_log | grep -vq ' DELETE '
	[ "$(fake_log | grep -c ' DELETE ')" -eq 0 ]
}

@test "a kept relay container keeps its platform's store; one that names no platform keeps them all" {
	mkstore linux-arm64
	mkstore linux-amd64
	local live_arm live_any live_scip
	live_arm="{$(owner_labels $$ '' '' linux/arm64)}"
	live_any="{$(owner_labels $$)}"
	live_scip=$(jq -c '."magus.use" = "scip"' <<<"$live_any")
	lists "$(container_json c1 '' "$live_arm"),$(container_json c2 '' "$live_scip")" "" >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	assert_success
	assert_line "kept store $WS/.magus/platform/linux-arm64: in use by kept container c1"
	assert_line "removed store $WS/.magus/platform/linux-amd64: platform store"
	fake_down
	rm -rf "$T/fake"
	mkstore linux-amd64
	lists "$(container_json c3 '' "$live_any")" "" >"$T/sc"
	fake_up <"$T/sc"
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api "$FAKE_URL"
	assert_success
	assert_line "kept store $WS/.magus/platform/linux-amd64: in use by kept container c3"
	assert_line "kept store $WS/.magus/platform/linux-arm64: in use by kept container c3"
	[ -d "$WS/.magus/platform/linux-amd64" ] && [ -d "$WS/.magus/platform/linux-arm64" ]
}
