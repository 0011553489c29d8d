#!/usr/bin/env bats
# magus-scip when the engine is gone or misbehaves: a stopped engine
# (socket removed), a crashed one (socket left, nobody listening), a
# refused URL, an old API, an image for another platform, a pull under
# --fetch; and, from the scriptable fake engine, a failed start, a cut
# stream, an engine error, an OOM kill and a plain 137, each with the
# container deleted, the status recorded and the old index kept.  The
# create request is checked byte for byte as the engine receives it.

load lib/common
load lib/engine
load lib/scip

IMG=localhost/x@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

setup() {
	common_setup
	WS=$T/ws
	scip_ws "$WS" 2 1
	mkdir -p "$WS/.magus/index/small"
	printf 'the old index' >"$WS/.magus/index/small/index.scip"
}

teardown() {
	fake_down
	common_teardown
}

scip() {
	"$SCIP_HELPER" --root "$WS" --project small --image "$IMG" \
		--memory-mb 64 --cpus 0.5 --pids 32 "$@" \
		-- /fake-indexer --output '{output}' '{project}'
}

old_index_kept() {
	[ "$(cat "$WS/.magus/index/small/index.scip")" = "the old index" ]
}

state() {
	scip_status_field "$WS" small .state
}

frames() {
	while [ $# -gt 0 ]; do
		printf '%s' "$2" | "$FAKE_ENGINE" frame "$1"
		shift 2
	done
}

IMAGE_JSON='{"Id":"sha256:1","Os":"linux","Architecture":"ARCH","RepoTags":[],"RepoDigests":[],"Config":{"Env":["PATH=/bin"]}}'

image_json() {
	local arch
	case $(uname -m) in
	x86_64) arch=amd64 ;;
	aarch64) arch=arm64 ;;
	*) arch=$(uname -m) ;;
	esac
	printf '%s' "${IMAGE_JSON/ARCH/${1:-$arch}}"
}

inspect_json() {
	printf '{"Id":"c1","State":{"Status":"%s","Running":%s,"OOMKilled":%s,"ExitCode":%s,"Error":"","Pid":0},"Config":{"Env":[],"Labels":{}}}' "$@"
}

# A whole run on the fake engine: $1 the wait's answer, $2 inspect's.
fake_run() {
	frames 1 $'indexing\n' >"$T/stream"
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack await=started file=$T/stream
	POST /v1.41/containers/c1/wait 200 chunked await=started body=$1
	POST /v1.41/containers/c1/start 204 mark=started
	GET /v1.41/containers/c1/json 200 body=$2
	DELETE /v1.41/containers/c1 204
	EOF
	export MAGUS_CONTAINER_API=$FAKE_URL
}

@test "a stopped engine (its socket gone): unavailable, MGS3002, the fix names the socket" {
	fake_up </dev/null
	fake_down
	[ ! -e "$T/fake.sock" ]
	MAGUS_CONTAINER_API=unix://$T/fake.sock run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS3002
	[ "$(state)" = unavailable ]
	[ "$(scip_status_field "$WS" small .code)" = MGS3002 ]
	[[ "$(scip_status_field "$WS" small .fix)" == "start the container runtime that serves '$T/fake.sock'"* ]]
	[[ "$stderr" == *"hint: start the container runtime that serves"* ]]
	old_index_kept
}

@test "a crashed engine (socket left, nobody listening): unavailable, MGS3002" {
	fake_up </dev/null
	kill -KILL "$FAKE_PID"
	wait "$FAKE_PID" 2>/dev/null || true
	FAKE_PID=
	[ -S "$T/fake.sock" ]
	MAGUS_CONTAINER_API=unix://$T/fake.sock run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS3002
	[ "$(state)" = unavailable ]
	old_index_kept
}

@test "a URL that is not unix://: unavailable, MGS3001, exit 2" {
	MAGUS_CONTAINER_API=tcp://127.0.0.1:2375 run --separate-stderr scip
	[ "$status" -eq 2 ]
	assert_code MGS3001
	[ "$(state)" = unavailable ]
	[[ "$(scip_status_field "$WS" small .fix)" == *"correct container.api"* ]]
	old_index_kept
}

@test "an engine older than API 1.41: unavailable, MGS3004" {
	fake_up --api 1.40 </dev/null
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS3004
	[ "$(state)" = unavailable ]
	[[ "$(scip_status_field "$WS" small .fix)" == *"upgrade the container runtime"* ]]
}

@test "an image for another platform: MGS5009 before any container" {
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json s390x)
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS5009
	[ "$(state)" = failed ]
	[ -z "$(fake_find 'POST /v1.41/containers/create')" ]
}

@test "--fetch pulls an absent image, then runs" {
	frames 1 $'indexing\n' >"$T/stream"
	fake_up <<-EOF
	GET /v1.41/images/*/json 404 times=1 body={"message":"no such image"}
	POST /v1.41/images/create 200 body={"status":"Pulling from x"}
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack await=started file=$T/stream
	POST /v1.41/containers/c1/wait 200 chunked await=started body={"StatusCode":4}
	POST /v1.41/containers/c1/start 204 mark=started
	GET /v1.41/containers/c1/json 200 body=$(inspect_json exited false false 4)
	DELETE /v1.41/containers/c1 204
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr scip --fetch
	[ "$status" -eq 4 ]
	assert_code MGS5004
	n=$(fake_find 'POST /v1.41/images/create')
	[ -n "$n" ]
	fake_head "$n" | head -n 1 | grep -q 'fromImage=localhost%2Fx'
	[ -n "$(fake_find 'DELETE /v1.41/containers/c1')" ]
	old_index_kept
}

@test "the create request as the engine receives it" {
	fake_run '{"StatusCode":0}' "$(inspect_json exited false false 0)"
	mkdir -p "$T/gocache"
	FAKECACHE=$T/gocache MAGUS_TEST_CANARY=canary-$$ \
		run --separate-stderr scip --cache FAKECACHE
	# The fake indexer never ran: no index, refused.
	[ "$status" -eq 1 ]
	assert_code MGS5005
	n=$(fake_find 'POST /v1.41/containers/create')
	body=$(fake_body_file "$n")
	fake_head "$n" | head -n 1 | grep -qE 'create\?name=magus-scip-[0-9a-f]{12} '
	jq -e '.Image == "'"$IMG"'"' "$body"
	jq -e '.Entrypoint == ["/fake-indexer"]' "$body"
	jq -e '.Cmd == ["--output", "'"$WS"'/.magus/index/small/.magus-work/out/index.scip", "'"$WS"'/small"]' "$body"
	jq -e '.WorkingDir == "'"$WS"'/small"' "$body"
	jq -e '.NetworkDisabled == true and .Tty == false and .OpenStdin == false' "$body"
	jq -e '.HostConfig.NetworkMode == "none"' "$body"
	jq -e '.HostConfig.Memory == 67108864 and .HostConfig.MemorySwap == 67108864' "$body"
	jq -e '.HostConfig.NanoCpus == 500000000 and .HostConfig.PidsLimit == 32' "$body"
	jq -e '.HostConfig.CapDrop == ["ALL"] and .HostConfig.SecurityOpt == ["no-new-privileges"]' "$body"
	jq -e '.HostConfig.Privileged == false and .HostConfig.ReadonlyRootfs == true' "$body"
	jq -e '.HostConfig.Init == true and .HostConfig.AutoRemove == false' "$body"
	jq -e '.HostConfig | has("Binds") | not' "$body"
	# Every mount says ReadOnly itself; only the work directory is writable.
	jq -e '[.HostConfig.Mounts[] | has("ReadOnly")] | all' "$body"
	jq -e '.HostConfig.Mounts == [
		{"Type":"bind","Source":"'"$WS"'","Target":"'"$WS"'","ReadOnly":true},
		{"Type":"bind","Source":"'"$WS"'/.magus/index/small/.magus-work","Target":"'"$WS"'/.magus/index/small/.magus-work","ReadOnly":false},
		{"Type":"bind","Source":"'"$T"'/gocache","Target":"'"$T"'/gocache","ReadOnly":true}]' "$body"
	w=$WS/.magus/index/small/.magus-work
	jq -e '.Env == ["GOPROXY=off", "GOTOOLCHAIN=local",
		"HOME='"$w"'/home", "TMPDIR='"$w"'/tmp",
		"XDG_CACHE_HOME='"$w"'/cache", "GOCACHE='"$w"'/go-build",
		"NODE_OPTIONS=--max-old-space-size=48",
		"FAKECACHE='"$T"'/gocache"]' "$body"
	if grep -q canary "$body"; then fail "a host variable crossed"; fi
	jq -e '.Labels["magus.use"] == "scip" and .Labels["magus.workspace"] == "'"$WS"'"' "$body"
	jq -e '.User == "'"$(id -u):$(id -g)"'"' "$body"
	# Attach and wait before start; inspect; delete last.
	order=$(fake_log | awk '{print $2, $3}' | sed 's/?.*//' | tr '\n' ,)
	assert_equal "$order" "GET /_ping,GET /v1.41/images/$(fake_log | sed -n 's|.*GET /v1.41/images/\(.*\)/json|\1|p' | head -n 1)/json,POST /v1.41/containers/create,POST /v1.41/containers/c1/attach,POST /v1.41/containers/c1/wait,POST /v1.41/containers/c1/start,GET /v1.41/containers/c1/json,GET /v1.41/containers/c1/json,DELETE /v1.41/containers/c1,"
	old_index_kept
}

@test "a failed start: the container is deleted, the run failed, MGS3006" {
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack hang
	POST /v1.41/containers/c1/wait 200 chunked hang
	POST /v1.41/containers/c1/start 500 body={"message":"runc create failed: unable to start container process"}
	DELETE /v1.41/containers/c1 204
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS3006
	[[ "$stderr" == *"runc create failed"* ]]
	[ "$(state)" = failed ]
	[ -n "$(fake_find 'DELETE /v1.41/containers/c1')" ]
	old_index_kept
}

@test "a stream cut inside a frame: MGS3032, the container deleted" {
	frames 1 $'hello\n' 1 $'world\n' >"$T/stream"
	fake_up <<-EOF
	GET /v1.41/images/*/json 200 body=$(image_json)
	POST /v1.41/containers/create 201 body={"Id":"c1","Warnings":[]}
	POST /v1.41/containers/c1/attach 200 hijack await=started drop=18 file=$T/stream
	POST /v1.41/containers/c1/wait 200 chunked hang
	POST /v1.41/containers/c1/start 204 mark=started
	DELETE /v1.41/containers/c1 204
	EOF
	MAGUS_CONTAINER_API=$FAKE_URL run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS3032
	assert_output "hello"
	[ "$(state)" = failed ]
	[ -n "$(fake_find 'DELETE /v1.41/containers/c1')" ]
	old_index_kept
}

@test "the engine's own error in the wait: MGS3006, failed" {
	fake_run '{"StatusCode":0,"Error":{"Message":"cgroup went away"}}' \
		"$(inspect_json exited false false 0)"
	run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS3006
	[[ "$stderr" == *"cgroup went away"* ]]
	[ "$(state)" = failed ]
	old_index_kept
}

@test "OOMKilled from inspect: oom (MGS5003); 137 without it is a plain failure" {
	fake_run '{"StatusCode":137}' "$(inspect_json exited false true 137)"
	run --separate-stderr scip
	[ "$status" -eq 71 ]
	assert_code MGS5003
	[ "$(state)" = oom ]
	[[ "$(scip_status_field "$WS" small .reason)" == *"memory_mb: 64"* ]]
	old_index_kept
	fake_down
	rm -rf "$T/fake"
	fake_run '{"StatusCode":137}' "$(inspect_json exited false false 137)"
	run --separate-stderr scip
	[ "$status" -eq 137 ]
	assert_code MGS5004
	[ "$(state)" = failed ]
	old_index_kept
}
