#!/usr/bin/env bats
# magus-scip's command line and refusals, `magus scip` and its status
# report, without a container engine: what is refused changes nothing
# on disk, a missing runtime is recorded as 'unavailable' with the
# command that fixes it, and the report is read from disk only.

load lib/common
load lib/engine
load lib/scip

IMG=localhost/x@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

setup() {
	common_setup
	WS=$T/ws
	scip_ws "$WS" 2 1
	: >"$WS/magus.yaml"
}

teardown() {
	fake_down
	common_teardown
}

# magus-scip with the required options for project "small".
scip() {
	"$SCIP_HELPER" --root "$WS" --project small --image "$IMG" "$@"
}

@test "--help prints the usage and exits 0" {
	run "$SCIP_HELPER" --help
	assert_success
	assert_output --partial "usage: magus-scip --root DIR --project PATH --image REF"
}

@test "the options of the usage are the options of the man SYNOPSIS" {
	local usage man
	usage=$("$SCIP_HELPER" --help | grep -oE -- '--[a-z-]+' | sort -u)
	man=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$MAGUS_SRC_DIR/man/magus-scip.1" |
		grep -oE 'Fl -[a-z-]+' | awk '{ print "-" $NF }' | sort -u)
	[ -n "$usage" ]
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
}

@test "refusals of the command line are MGS5001, exit 2, and touch nothing" {
	local -a cases=(
		"--project small --image $IMG -- x"
		"--root $WS --image $IMG -- x"
		"--root $WS --project small -- x"
		"--root ws --project small --image $IMG -- x"
		"--root / --project small --image $IMG -- x"
		"--root $WS/nope --project small --image $IMG -- x"
		"--root $WS --project /small --image $IMG -- x"
		"--root $WS --project ../ws/small --image $IMG -- x"
		"--root $WS --project small/ --image $IMG -- x"
		"--root $WS --project nope --image $IMG -- x"
		"--root $WS --project small/main.go --image $IMG -- x"
		"--root $WS --project .magus --image $IMG -- x"
		"--root $WS --project small --image localhost/x:1 -- x"
		"--root $WS --project small --image $IMG --memory-mb 5 -- x"
		"--root $WS --project small --image $IMG --cpus 0 -- x"
		"--root $WS --project small --image $IMG --pids 7 -- x"
		"--root $WS --project small --image $IMG --cache 1X -- x"
		"--root $WS --project small --image $IMG --bogus -- x"
		"--root $WS --project small --image $IMG"
		"--root $WS --project small --image $IMG x"
		"--root $WS --project small --image $IMG --"
	)
	local c
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086 # one word per option
		run --separate-stderr "$SCIP_HELPER" $c
		[ "$status" -eq 2 ] || fail "'$c': status $status: $stderr"
		assert_code MGS5001
		[ ! -e "$WS/.magus" ] || fail "'$c' created $WS/.magus"
	done
}

@test "a project leading out of the workspace through a link is refused" {
	ln -s "$T" "$WS/out"
	run --separate-stderr scip --project out -- x
	[ "$status" -eq 2 ]
	assert_code MGS5001
	[[ "$stderr" == *"leads out of the workspace"* ]]
}

@test "a cache that cannot be given is MGS5008, exit 2, and touches nothing" {
	mkdir -p "$T/gocache"
	run --separate-stderr env -u FAKECACHE "$SCIP_HELPER" --root "$WS" \
		--project small --image "$IMG" --cache FAKECACHE -- x
	[ "$status" -eq 2 ]
	assert_code MGS5008
	FAKECACHE=relative/path run --separate-stderr scip --cache FAKECACHE -- x
	[ "$status" -eq 2 ]
	assert_code MGS5008
	FAKECACHE=$T/nope run --separate-stderr scip --cache FAKECACHE -- x
	[ "$status" -eq 2 ]
	assert_code MGS5008
	FAKECACHE=/ run --separate-stderr scip --cache FAKECACHE -- x
	[ "$status" -eq 2 ]
	assert_code MGS5008
	for name in HOME GOPROXY GOCACHE PATH LD_PRELOAD MAGUS_ROOT; do
		run --separate-stderr env "$name=$T/gocache" "$SCIP_HELPER" \
			--root "$WS" --project small --image "$IMG" --cache "$name" -- x
		[ "$status" -eq 2 ] || fail "cache $name: $status"
		assert_code MGS5008
	done
	[ ! -e "$WS/.magus" ]
}

@test "no container runtime configured: MGS5002, exit 71, status unavailable with the fix" {
	run --separate-stderr scip --memory-mb 100 --cpus 0.5 --pids 99 -- x
	[ "$status" -eq 71 ]
	assert_code MGS5002
	[[ "$stderr" == *"hint: set container.api"* ]]
	[ "$(scip_status_field "$WS" small .state)" = unavailable ]
	[[ "$(scip_status_field "$WS" small .reason)" == *"no container runtime is configured"* ]]
	[[ "$(scip_status_field "$WS" small .fix)" == *"container.api"* ]]
	[ "$(scip_status_field "$WS" small .code)" = MGS5002 ]
	[ "$(scip_status_field "$WS" small .bounds.memory_mb)" = 100 ]
	[ "$(scip_status_field "$WS" small .bounds.cpus)" = 0.5 ]
	[ "$(scip_status_field "$WS" small .bounds.pids)" = 99 ]
	[ "$(scip_status_field "$WS" small .image)" = "$IMG" ]
	[ "$(scip_status_field "$WS" small .image_digest)" = "${IMG#*@}" ]
	[[ "$(scip_status_field "$WS" small .time)" =~ ^20[0-9-]+T[0-9:]+Z$ ]]
	[ ! -e "$WS/.magus/index/small/index.scip" ]
	# Written atomically: nothing but the status and the work directory.
	run ls -A "$WS/.magus/index/small"
	assert_output "$(printf '.magus-work\nstatus.json')"
	[ "$(stat -c %a "$WS/.magus/index/small/.magus-work")" = 700 ]
}

@test "the cache directory is MAGUS_CACHE_DIR, and '.' indexes the whole workspace" {
	MAGUS_CACHE_DIR=$T/cache run --separate-stderr "$SCIP_HELPER" \
		--root "$WS" --project . --image "$IMG" -- x
	[ "$status" -eq 71 ]
	[ "$(jq -r .state "$T/cache/index/status.json")" = unavailable ]
	[ "$(jq -r .project "$T/cache/index/status.json")" = . ]
}

@test "magus scip PROJECT hands the declaration to magus-scip" {
	cat >"$WS/magus.yaml" <<-EOF
	indexers:
	  - project: small
	    tool: scip-go
	    image: "$IMG"
	    memory_mb: 123
	    cpus: 1.5
	    pids: 77
	EOF
	run --separate-stderr magus -C "$WS" scip small
	[ "$status" -eq 71 ]
	assert_code MGS5002
	[ "$(scip_status_field "$WS" small .bounds.memory_mb)" = 123 ]
	[ "$(scip_status_field "$WS" small .bounds.cpus)" = 1.5 ]
	[ "$(scip_status_field "$WS" small .bounds.pids)" = 77 ]
	[ "$(scip_status_field "$WS" small .image)" = "$IMG" ]
}

@test "magus scip: an undeclared project is MGS5006, and bad usage exit 2" {
	cat >"$WS/magus.yaml" <<-EOF
	indexers:
	  - project: small
	    tool: scip-go
	    image: "$IMG"
	    memory_mb: 64
	    cpus: 1
	    pids: 64
	EOF
	run --separate-stderr magus -C "$WS" scip big
	[ "$status" -eq 2 ]
	assert_code MGS5006
	[[ "$stderr" == *"declared: 'small'"* ]]
	[ ! -e "$WS/.magus" ]
	run --separate-stderr magus -C "$WS" scip
	[ "$status" -eq 2 ]
	run --separate-stderr magus -C "$WS" scip --bogus
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus -C "$WS" scip small big
	[ "$status" -eq 2 ]
	run magus -C "$WS" scip --help
	assert_success
	assert_output --partial "magus scip status"
}

@test "magus run PROJECT::scip: the indexer, undeclared MGS5006, no arguments" {
	cat >"$WS/magus.yaml" <<-EOF
	indexers:
	  - project: small
	    tool: scip-go
	    image: "$IMG"
	    memory_mb: 99
	    cpus: 1
	    pids: 64
	EOF
	run --separate-stderr magus -C "$WS" run small::scip
	[ "$status" -eq 71 ]
	assert_code MGS5002
	[ "$(scip_status_field "$WS" small .bounds.memory_mb)" = 99 ]
	rm -rf "$WS/.magus"
	run --separate-stderr magus -C "$WS" run big::scip
	[ "$status" -eq 2 ]
	assert_code MGS5006
	run --separate-stderr magus -C "$WS" run small::scip -- x
	[ "$status" -eq 2 ]
	[ ! -e "$WS/.magus" ]
	# A bare "::scip" names no project: an ordinary unknown target.
	run --separate-stderr magus -C "$WS" run ::scip
	[ "$status" -eq 2 ]
	assert_code MGS1013
}

@test "indexers: a project that is not a canonical relative path is MGS1007" {
	for p in "a//b" "small/" "./small" "a/.magus-work" "/abs" "x/../y"; do
		cat >"$WS/magus.yaml" <<-EOF
		indexers:
		  - project: "$p"
		    tool: scip-go
		    image: "$IMG"
		    memory_mb: 64
		    cpus: 1
		    pids: 64
		EOF
		run --separate-stderr magus -C "$WS" config list
		[ "$status" -eq 2 ] || fail "project '$p' accepted"
		assert_code MGS1007
	done
}

@test "magus scip status and magus doctor read status.json and connect to nothing" {
	cat >"$WS/magus.yaml" <<-EOF
	indexers:
	  - project: small
	    tool: scip-go
	    image: "$IMG"
	    memory_mb: 64
	    cpus: 1
	    pids: 64
	  - project: big
	    tool: scip-python
	    image: "$IMG"
	    memory_mb: 64
	    cpus: 1
	    pids: 64
	EOF
	run --separate-stderr magus -C "$WS" scip small
	[ "$status" -eq 71 ]
	# An engine that records every request it gets, and gets none.
	fake_up </dev/null
	export MAGUS_CONTAINER_API=$FAKE_URL
	run --separate-stderr magus -C "$WS" scip status
	assert_success
	assert_line "small: unavailable ($(scip_status_field "$WS" small .time))"
	assert_line --partial "    fix: set container.api"
	assert_line "big: never run"
	assert_line "    index: none"
	run --separate-stderr magus -C "$WS" -o json scip status
	assert_success
	[ "$(jq -r '.[0].state' <<<"$output")" = unavailable ]
	[ "$(jq -r '.[0].status.code' <<<"$output")" = MGS5002 ]
	[ "$(jq -r '.[1].state' <<<"$output")" = none ]
	[ "$(jq -r '.[1].status' <<<"$output")" = null ]
	run --separate-stderr magus -C "$WS" doctor
	assert_success
	assert_line "indexers (last runs, from status.json):"
	assert_line --partial "  small: unavailable"
	assert_line "  big: never run"
	run --separate-stderr magus -C "$WS" -o json doctor
	assert_success
	[ "$(jq -r '.indexers[0].state' <<<"$output")" = unavailable ]
	[ -z "$(fake_log)" ] || fail "requests reached the engine: $(fake_log)"
}

@test "magus scip status: an index kept from an earlier run, a changed declaration, an unreadable status" {
	cat >"$WS/magus.yaml" <<-EOF
	indexers:
	  - project: small
	    tool: scip-go
	    image: "$IMG"
	    memory_mb: 64
	    cpus: 1
	    pids: 64
	EOF
	run magus -C "$WS" scip small
	[ "$status" -eq 71 ]
	printf 'not really an index' >"$WS/.magus/index/small/index.scip"
	run magus -C "$WS" scip status
	assert_line --partial "    index: an older index.scip is kept ("
	refute_line --partial "the declaration changed"
	sed -i 's/memory_mb: 64/memory_mb: 96/' "$WS/magus.yaml"
	run magus -C "$WS" scip status
	assert_line "    the declaration changed since this run (image or bounds): run 'magus scip small'"
	echo '{"state":' >"$WS/.magus/index/small/status.json"
	run magus -C "$WS" scip status
	assert_success
	assert_line "small: unreadable"
}

@test "magus scip status with no indexers declared" {
	run magus -C "$WS" scip status
	assert_success
	assert_output "no indexers declared"
}
