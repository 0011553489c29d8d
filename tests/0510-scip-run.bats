#!/usr/bin/env bats
# magus scip against the real test engine, with the fake indexer's image
# (tests/lib/scip.bash): a good index installed; an OOM against a tight
# bound, a crash, garbage, absolute paths, no output and a planted link
# all refused with the old index kept; the built-in commands; a signal
# passed on; and the container read back through inspect while it runs.
# Each run costs about a second of podman time.

load lib/common
load lib/engine
load lib/scip

setup_file() {
	engine_up
	scip_image_up
}

teardown_file() {
	engine_down
}

setup() {
	common_setup
	engine_require
	WS=$T/ws
	scip_ws "$WS" 20 4
}

teardown() {
	local id
	# Whatever a failed test left behind in this workspace.
	for id in $(scip_containers "$WS" 2>/dev/null); do
		engine_cli -H "$ENGINE_URL" rm "$id" --force >/dev/null 2>&1
	done
	engine_cleanup
	common_teardown
}

# decl PROJECT MEMORY_MB [FAKE-INDEXER ARGS...] >> magus.yaml
decl() {
	[ -s "$WS/magus.yaml" ] || echo "indexers:" >"$WS/magus.yaml"
	scip_decl "$@" >>"$WS/magus.yaml"
}

index_of() {
	echo "$WS/.magus/index/$1/index.scip"
}

@test "a good run installs a well-formed index and records ok" {
	decl small 64
	run --separate-stderr magus -C "$WS" scip small
	assert_success
	# The indexer's own output, streamed through.
	assert_line --partial "fake-indexer: 2 files"
	[[ "$stderr" == *"magus-scip: indexed 'small': 2 documents"* ]]
	[ -s "$(index_of small)" ]
	[ "$(scip_status_field "$WS" small .state)" = ok ]
	[ "$(scip_status_field "$WS" small .index.documents)" = 2 ]
	[ "$(scip_status_field "$WS" small .index.bytes)" = "$(stat -c %s "$(index_of small)")" ]
	[ "$(scip_status_field "$WS" small .exit_status)" = 0 ]
	[ "$(scip_status_field "$WS" small .image)" = "$SCIP_IMAGE" ]
	# The document paths in the index are the project's files.
	grep -q 'pkg/x.go' "$(index_of small)"
	# The temporary output is gone, and so is the container.
	[ ! -e "$WS/.magus/index/small/.magus-work/out" ]
	[ -z "$(scip_containers "$WS")" ]
	run magus -C "$WS" scip status
	assert_line "small: ok ($(scip_status_field "$WS" small .time))"
	assert_line --regexp "^    index: index.scip \(.*Z\)$"
}

@test "magus run PROJECT::scip is the same run as magus scip PROJECT" {
	decl small 64
	run --separate-stderr magus -C "$WS" run small::scip
	assert_success
	assert_line --partial "fake-indexer: 2 files"
	[[ "$stderr" == *"magus-scip: indexed 'small': 2 documents"* ]]
	[ -s "$(index_of small)" ]
	[ "$(scip_status_field "$WS" small .state)" = ok ]
	[ -z "$(scip_containers "$WS")" ]
}

@test "an OOM against a tight bound: status oom naming the bound, exit 71, old index kept" {
	decl big 32 --allocate 200
	mkdir -p "$WS/.magus/index/big"
	printf 'the old index' >"$WS/.magus/index/big/index.scip"
	run --separate-stderr magus -C "$WS" scip big
	[ "$status" -eq 71 ]
	assert_code MGS5003
	[[ "$stderr" == *"the indexer of 'big' exceeded its declared memory bound, memory_mb: 32"* ]]
	[[ "$stderr" == *"the previous index is kept"* ]]
	[ "$(scip_status_field "$WS" big .state)" = oom ]
	[ "$(scip_status_field "$WS" big .code)" = MGS5003 ]
	[[ "$(scip_status_field "$WS" big .reason)" == *"memory_mb: 32"* ]]
	[ "$(scip_status_field "$WS" big .exit_status)" = 137 ]
	[ "$(cat "$(index_of big)")" = "the old index" ]
	[ -z "$(scip_containers "$WS")" ]
}

@test "a crash: status failed with the indexer's status, which passes through; old index kept" {
	decl big 64
	run magus -C "$WS" scip big
	assert_success
	cp "$(index_of big)" "$T/good.scip"
	sed -i 's|"{project}"\]|"--exit", "3", "{project}"]|' "$WS/magus.yaml"
	run --separate-stderr magus -C "$WS" scip big
	[ "$status" -eq 3 ]
	assert_code MGS5004
	[[ "$stderr" == *"fake-indexer: exiting 3 as asked"* ]]
	[ "$(scip_status_field "$WS" big .state)" = failed ]
	[ "$(scip_status_field "$WS" big .exit_status)" = 3 ]
	[[ "$(scip_status_field "$WS" big .reason)" == *"exited with status 3; the previous index is kept"* ]]
	cmp "$(index_of big)" "$T/good.scip"
	run magus -C "$WS" scip status
	assert_line --partial "big: failed"
	assert_line --partial "    index: an older index.scip is kept"
}

@test "garbage, absolute paths, no output, a planted link: refused (MGS5005), old index kept" {
	local how
	mkdir -p "$WS/.magus/index/small"
	printf 'the old index' >"$WS/.magus/index/small/index.scip"
	for how in --garbage --absolute --no-output "--symlink /etc/passwd"; do
		rm -f "$WS/magus.yaml"
		# shellcheck disable=SC2086 # one word per argument
		decl small 64 $how
		run --separate-stderr magus -C "$WS" scip small
		[ "$status" -eq 1 ] || fail "$how: status $status: $stderr"
		assert_code MGS5005
		[ "$(scip_status_field "$WS" small .state)" = failed ]
		[ "$(cat "$(index_of small)")" = "the old index" ] ||
			fail "$how replaced the index"
		case $how in
		--garbage) [[ "$stderr" == *"is not a well-formed SCIP index (at byte 0:"* ]] ;;
		--absolute) [[ "$stderr" == *"is absolute"* ]] ;;
		--no-output) [[ "$stderr" == *"left no index"* ]] ;;
		--symlink*) [[ "$stderr" == *"a symbolic link"* ]] ;;
		esac
	done
	[ -z "$(scip_containers "$WS")" ]
}

@test "the built-in commands run their tool read-only and offline" {
	local tool
	for tool in scip-python scip-go scip-typescript; do
		cat >"$WS/magus.yaml" <<-EOF
		indexers:
		  - project: small
		    tool: $tool
		    image: "$SCIP_IMAGE"
		    memory_mb: 64
		    cpus: 1
		    pids: 64
		EOF
		run --separate-stderr magus -C "$WS" scip small
		assert_success
		assert_line "arg: $tool"
		case $tool in
		scip-python)
			assert_line "arg: --project-version"
			assert_line "arg: local"
			assert_line "arg: $WS/.magus/index/small/.magus-work/empty-environment.json"
			assert_line "environment: []"
			;;
		scip-go)
			assert_line "arg: --output=$WS/.magus/index/small/.magus-work/out/index.scip"
			assert_line "arg: --repository-root=$WS"
			assert_line "arg: --module-version=local"
			;;
		scip-typescript)
			assert_line "arg: --cwd"
			assert_line "arg: $WS/small"
			refute_line "arg: --infer-tsconfig"
			;;
		esac
		[ "$(scip_status_field "$WS" small .state)" = ok ]
	done
}

@test "the create request, read back through inspect while the indexer runs" {
	local id json pid envnames i
	mkdir -p "$T/gocache/mod"
	echo cached >"$T/gocache/mod/x"
	decl small 64 --probe --probe-write "$T/gocache" --wait-for "$WS/go"
	sed -i 's/^    pids: 64$/    pids: 64\n    caches: [FAKECACHE]/' "$WS/magus.yaml"
	MAGUS_TEST_CANARY=canary-value-$$ FAKECACHE=$T/gocache \
		magus -C "$WS" scip small >"$T/out" 2>"$T/err" 3>&- &
	pid=$!
	for i in $(seq 300); do
		id=$(scip_containers "$WS")
		[ -n "$id" ] && grep -q '^probe: net=' "$T/out" && break
		sleep 0.05
	done
	[ -n "$id" ] || { kill "$pid"; fail "no container: $(cat "$T/err")"; }
	json=$(curl -sS --unix-socket "${ENGINE_URL#unix://}" \
		"http://d/v1.41/containers/$id/json")
	touch "$WS/go"
	wait "$pid" || fail "magus scip failed: $(cat "$T/err")"

	jq -e '.State.Running == true' <<<"$json"
	# Bounds as declared, no swap, no network, no privilege.
	jq -e '.HostConfig.Memory == 67108864 and .HostConfig.MemorySwap == 67108864' <<<"$json"
	jq -e '.HostConfig.PidsLimit == 64' <<<"$json"
	jq -e '.HostConfig.NanoCpus == 1000000000 or .HostConfig.CpuQuota == 100000' <<<"$json"
	jq -e '.HostConfig.NetworkMode == "none"' <<<"$json"
	jq -e '.NetworkSettings.Networks == {} or .NetworkSettings.Networks == null' <<<"$json"
	jq -e '.HostConfig.Privileged == false and .HostConfig.ReadonlyRootfs == true' <<<"$json"
	jq -e '.HostConfig.SecurityOpt | index(["no-new-privileges"])' <<<"$json"
	jq -e '(.HostConfig.CapAdd // []) == []' <<<"$json"
	jq -e ".Config.User == \"$(id -u):$(id -g)\"" <<<"$json"
	# Mounts: the workspace and the cache read-only, only the work
	# directory writable, nothing else (no engine socket).
	jq -e "[.Mounts[] | {(.Destination): .RW}] | add == {
		\"$WS\": false,
		\"$WS/.magus/index/small/.magus-work\": true,
		\"$T/gocache\": false }" <<<"$json"
	# Env: the names the contract gives, the image's and the engine's own.
	envnames=$(jq -r '.Config.Env[] | sub("=.*"; "")' <<<"$json" | sort | tr '\n' ' ')
	[ "$envnames" = "FAKECACHE GOCACHE GOPROXY GOTOOLCHAIN HOME HOSTNAME NODE_OPTIONS PATH TERM TMPDIR XDG_CACHE_HOME container " ] ||
		fail "env names: $envnames"
	jq -e '.Config.Env | index(["GOPROXY=off"]) and index(["GOTOOLCHAIN=local"])' <<<"$json"
	jq -e ".Config.Env | index([\"FAKECACHE=$T/gocache\"])" <<<"$json"
	if grep -q canary-value "$T/out"; then fail "a host variable crossed"; fi
	[[ "$json" != *canary-value* ]]
	# Labels for magus clean.
	jq -e '.Config.Labels["magus.use"] == "scip"' <<<"$json"
	jq -e ".Config.Labels[\"magus.workspace\"] == \"$WS\"" <<<"$json"
	jq -e '.Config.Labels["magus.invocation"] | test("^[0-9a-f]{32}$")' <<<"$json"
	jq -e '.Config.Labels["magus.pid"] | test("^[0-9]+$")' <<<"$json"
	jq -e '.Config.Labels | has("magus.host") and has("magus.boot") and has("magus.pid-start")' <<<"$json"

	# What the indexer saw from inside.
	grep -qx 'probe: CapEff=0000000000000000' "$T/out"
	grep -qx 'probe: NoNewPrivs=1' "$T/out"
	grep -qx 'probe: project=EROFS' "$T/out"
	grep -qx 'probe: rootfs=EROFS' "$T/out"
	grep -qx 'probe: home=writable' "$T/out"
	grep -qx "probe: $T/gocache=EROFS" "$T/out"
	grep -qx 'probe: net=lo' "$T/out"
	grep -qx 'probe: memory-limit=67108864' "$T/out"
	grep -qx 'probe: memsw-limit=67108864' "$T/out"
	grep -qx 'probe: pids-max=64' "$T/out"
	[ "$(scip_status_field "$WS" small .state)" = ok ]
	[ -z "$(scip_containers "$WS")" ]
}

@test "the cgroup's peak memory and CPU time are recorded while it was readable" {
	local pid i peak cpu
	# The indexer touches 40 MiB and then waits for a file, so the run
	# lasts until the test has seen the counters being read.
	decl big 128 --allocate 40 --wait-for "$WS/go"
	MAGUS_VERBOSE=1 magus -C "$WS" scip big >"$T/out" 2>"$T/err" 3>&- &
	pid=$!
	for i in $(seq 300); do
		grep -q 'fake-indexer: 32 MiB' "$T/err" && break
		sleep 0.05
	done
	touch "$WS/go"
	wait "$pid" || fail "$(cat "$T/err")"
	grep -q "reading the counters of cgroup '/sys/fs/cgroup/" "$T/err"
	peak=$(scip_status_field "$WS" big .measured.peak_memory_bytes)
	cpu=$(scip_status_field "$WS" big .measured.cpu_usec)
	[ "$peak" -ge $((40 * 1048576)) ] || fail "peak $peak"
	[ "$peak" -le $((128 * 1048576)) ] || fail "peak $peak"
	[ "$cpu" -gt 0 ] || fail "cpu $cpu"
	[ "$(scip_status_field "$WS" big .measured.oom_kills)" = 0 ]
	run magus -C "$WS" scip status
	assert_line --regexp '^    measured: peak memory [0-9.]+ MiB, cpu [0-9.]+ s$'
}

@test "SIGTERM reaches the indexer; the run is failed, 143, and the container removed" {
	local rc
	decl small 64 --wait-for "$WS/never"
	magus -C "$WS" scip small >"$T/out" 2>"$T/err" 3>&- &
	local pid=$! i
	for i in $(seq 300); do
		grep -q 'indexing' "$T/out" && break
		sleep 0.05
	done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ] || fail "status $rc: $(cat "$T/err")"
	[ "$(scip_status_field "$WS" small .state)" = failed ]
	[[ "$(scip_status_field "$WS" small .reason)" == *"stopped by SIGTERM"* ]]
	[ ! -e "$(index_of small)" ]
	[ -z "$(scip_containers "$WS")" ]
}

@test "an image the engine does not have: unavailable, and the fix is --fetch" {
	cat >"$WS/magus.yaml" <<-EOF
	indexers:
	  - project: small
	    tool: scip-go
	    image: "$SCIP_ABSENT_IMAGE"
	    memory_mb: 64
	    cpus: 1
	    pids: 64
	EOF
	run --separate-stderr magus -C "$WS" scip small
	[ "$status" -eq 71 ]
	assert_code MGS3005
	[ "$(scip_status_field "$WS" small .state)" = unavailable ]
	[ "$(scip_status_field "$WS" small .fix)" = "magus --fetch scip small (pulls the pinned image '$SCIP_ABSENT_IMAGE')" ]
	[ -z "$(scip_containers "$WS")" ]
}
