# Helpers for the magus-clean suites.  Load after lib/common (and
# lib/engine for the engine suites).
#
# A workspace with a store:	clean_ws; mkstore linux-arm64
# Labels for an owner:		owner_labels PID [START] [HOST] [PLATFORM]
# Objects of a dead owner:	plant_orphans PLATFORM  (sets ORPHAN_* vars)

CLEAN=$MAGUS_BUILD_DIR/exec-path/magus-clean
export CLEAN

# A workspace at $T/ws (WS, its real path) with an empty cache dir.
clean_ws() {
	mkdir -p "$T/ws/.magus/platform"
	: >"$T/ws/magus.yaml"
	WS=$(cd "$T/ws" && pwd -P)
	export WS
}

# mkstore NAME: a store with a few files, a subdirectory and a link.
mkstore() {
	local s=$WS/.magus/platform/$1
	mkdir -p "$s/.cache/go/mod" "$s/home"
	echo built >"$s/.cache/go/mod/a.txt"
	echo x >"$s/home/.profile"
	ln -s a.txt "$s/.cache/go/mod/link"
}

# The start time of PID in clock ticks (field 22 of /proc/PID/stat).
pid_start() {
	local s
	s=$(<"/proc/$1/stat") || return 1
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo "${20}"
}

# owner_labels PID [START] [HOST] [PLATFORM] [WORKSPACE]: magus's labels as
# JSON members, for an owner PID (START defaults to its real start time).
owner_labels() {
	local pid=$1 start=${2:-} host=${3:-} plat=${4:-} ws=${5:-$WS}
	[ -n "$start" ] || start=$(pid_start "$pid")
	[ -n "$host" ] || host=$(</proc/sys/kernel/hostname)
	printf '"magus.workspace":%s,"magus.use":"relay",' "$(json_str "$ws")"
	printf '"magus.invocation":"%032x","magus.host":%s,' "$pid" \
		"$(json_str "$host")"
	printf '"magus.boot":"%s","magus.pid":"%s","magus.pid-start":"%s"' \
		"$(</proc/sys/kernel/random/boot_id)" "$pid" "$start"
	[ -z "$plat" ] || printf ',"magus.platform":"%s"' "$plat"
}

# The same labels as KEY=VALUE words for engine-cli volume-create.
labels_words() {
	local json="{$1}"
	jq -r 'to_entries[] | "\(.key)=\(.value)"' <<<"$json"
}

# plant_container NAME LABELS [RUN]: a container with this test's label and
# LABELS (JSON members), created (and started when RUN is "run").
plant_container() {
	local name=$1 labels=$2 id
	engine_body 'sleep 300' '' '' "$labels" >"$T/body.json"
	id=$(engine_cli -H "$ENGINE_URL" create "$T/body.json" "$name") || return 1
	if [ "${3:-}" = run ]; then
		engine_cli -H "$ENGINE_URL" start "$id" >/dev/null || return 1
	fi
	echo "$id"
}

# plant_volume NAME LABELS: a volume with this test's label and LABELS.
plant_volume() {
	local words
	mapfile -t words < <(labels_words "$2")
	engine_cli -H "$ENGINE_URL" volume-create "$1" "$ENGINE_LABEL" \
		"${words[@]}"
}

# plant_orphans [PLATFORM] [run]: a background process labels two
# containers (the first started when "run" is given) and a volume with its
# own pid and start time, and is then killed with SIGKILL, as a relay
# killed with -9 leaves them.  Sets ORPHAN_RUNNING (the first container),
# ORPHAN_STOPPED, ORPHAN_VOLUME and ORPHAN_PID.
plant_orphans() {
	local plat=${1:-} run=${2:-} pid
	# The planting process is a new bash: it needs these.
	export T WS
	export -f owner_labels pid_start plant_container plant_volume \
		labels_words engine_body json_str engine_cli
	rm -f "$T/orphans.ready"
	(
		# exec keeps the pid and its start time: the labels name the
		# process that is then killed.
		exec bash -c '
			labels=$(owner_labels $$ "" "" "$1")
			plant_container "magus-relay-$$-a" "$labels" "$2" \
				>"$T/orphans" &&
			plant_container "magus-relay-$$-b" "$labels" \
				>>"$T/orphans" &&
			plant_volume "magus-home-$$" "$labels" >>"$T/orphans" &&
			touch "$T/orphans.ready"
			exec sleep 300' orphan-owner "$plat" "$run"
	) </dev/null >/dev/null 2>"$T/orphans.err" 3>&- &
	pid=$!
	for _ in $(seq 300); do
		[ -e "$T/orphans.ready" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -e "$T/orphans.ready" ] ||
		fail "planting orphans failed: $(cat "$T/orphans.err")"
	{ kill -9 "$pid"; wait "$pid"; } 2>/dev/null || true
	ORPHAN_PID=$pid
	ORPHAN_RUNNING=$(sed -n 1p "$T/orphans")
	ORPHAN_STOPPED=$(sed -n 2p "$T/orphans")
	ORPHAN_VOLUME=$(sed -n 3p "$T/orphans")
	export ORPHAN_PID ORPHAN_RUNNING ORPHAN_STOPPED ORPHAN_VOLUME
}

# An engine object's creation time is in whole seconds, and clean leaves
# what was created in the second its scan began: let that second pass.
next_second() {
	local now
	now=$(date +%s)
	while [ "$(date +%s)" = "$now" ]; do
		sleep 0.05
	done
}

# Does the engine still hold container (or volume) $1?
has_container() {
	engine_containers "$ENGINE_LABEL" | grep -qx "$1"
}

has_volume() {
	engine_volumes "$ENGINE_LABEL" | grep -qx "$1"
}

# Fail unless the engine no longer holds container (or volume) $1.  (A
# bare "! cmd" does not fail a bats test.)
refute_container() {
	if has_container "$1"; then
		fail "container $1 is still there"
	fi
}

refute_volume() {
	if has_volume "$1"; then
		fail "volume $1 is still there"
	fi
}
