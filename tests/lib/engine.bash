# Container engine helpers for the bats suites: a real test engine (podman's
# Docker-compatible service, tests/engine/start-engine.sh) and the fake one
# (tests/fake-engine/fake-engine).  Load after lib/common.
#
# A suite that needs the real engine:
#
#	setup_file() { engine_up; }
#	teardown_file() { engine_down; }
#	setup() { common_setup; engine_require; }
#	teardown() { engine_cleanup; common_teardown; }
#
# engine_up uses the engine named by MAGUS_TEST_ENGINE (unix:///...),
# which .ci/run starts once for the whole make check; without it, it
# starts a private engine for this file (root and podman needed; about
# 1-5 s) and engine_down stops it.  Where no engine can run, every test
# skips in engine_require, and MAGUS_TEST_MUST_WORK=1 turns that skip into
# a failure.  Afterwards ENGINE_URL and MAGUS_CONTAINER_API name the
# engine and ENGINE_IMAGE the local test image.
#
# Each test gets a label of its own, ENGINE_LABEL ("magus.test=..."): put
# it on what the test creates (engine_body does), list with
# engine_containers / engine_volumes, and engine_cleanup removes exactly
# that.  Containers always use NetworkMode none.
#
# The fake engine:
#
#	fake_up <<-EOF			# a scenario, see fake-engine.c
#	POST /v1.41/containers/*/kill 409 body={"message":"not running"}
#	EOF
#	run engine_cli -H "$FAKE_URL" kill abc TERM
#	fake_down			# in teardown too: it is idempotent
#
# fake_up [ARGS...] takes the scenario on stdin and passes ARGS to
# fake-engine (--api 1.40, ...).  It sets FAKE_URL, FAKE_DIR (requests
# land in $FAKE_DIR/req/NNNN.{head,body}) and FAKE_PID.

ENGINE_IMAGE=localhost/magus-test:1
ENGINE_CLI=$MAGUS_BUILD_DIR/tests/engine/engine-cli
FAKE_ENGINE=$MAGUS_BUILD_DIR/tests/fake-engine/fake-engine
export ENGINE_IMAGE ENGINE_CLI FAKE_ENGINE

# ---- the real engine ------------------------------------------------------

engine_up() {
	local log rc
	ENGINE_SKIP= ENGINE_BROKEN= ENGINE_PRIVATE=
	if [ -n "${MAGUS_TEST_ENGINE:-}" ]; then
		ENGINE_URL=$MAGUS_TEST_ENGINE
		if ! "$ENGINE_CLI" -H "$ENGINE_URL" ping >/dev/null 2>&1; then
			ENGINE_BROKEN="MAGUS_TEST_ENGINE=$ENGINE_URL does not answer"
		fi
	else
		ENGINE_PRIVATE=$(mktemp -d /tmp/magus-engine.XXXXXX)
		log=$ENGINE_PRIVATE/start.log
		rc=0
		# fd 3 is bats' own: the service must not hold it open.
		ENGINE_URL=$(ENGINE_STATE=$ENGINE_PRIVATE/state \
			"$MAGUS_SRC_DIR/tests/engine/start-engine.sh" \
			"$ENGINE_PRIVATE/engine.sock" 2>"$log" 3>&-) || rc=$?
		case $rc in
		0) ;;
		77) ENGINE_SKIP=$(grep 'cannot run' "$log" | tail -n 1) ;;
		*) ENGINE_BROKEN="start-engine.sh failed ($rc): $(tail -n 5 "$log")" ;;
		esac
	fi
	MAGUS_CONTAINER_API=$ENGINE_URL
	export ENGINE_URL ENGINE_SKIP ENGINE_BROKEN ENGINE_PRIVATE MAGUS_CONTAINER_API
}

engine_down() {
	[ -n "${ENGINE_PRIVATE:-}" ] || return 0
	if [ -d "$ENGINE_PRIVATE/state" ]; then
		ENGINE_STATE=$ENGINE_PRIVATE/state \
			"$MAGUS_SRC_DIR/tests/engine/stop-engine.sh" \
			"$ENGINE_PRIVATE/engine.sock" 2>/dev/null 3>&-
	fi
	rm -rf "$ENGINE_PRIVATE"
}

# In setup(): skip (or fail) when there is no engine; name this test's label.
engine_require() {
	[ -z "${ENGINE_BROKEN:-}" ] || fail "the test engine is broken: $ENGINE_BROKEN"
	if [ -n "${ENGINE_SKIP:-}" ]; then
		if [ "${MAGUS_TEST_MUST_WORK:-0}" = 1 ]; then
			fail "no test engine and MAGUS_TEST_MUST_WORK=1: $ENGINE_SKIP"
		fi
		skip "$ENGINE_SKIP"
	fi
	ENGINE_LABEL="magus.test=$(basename "$BATS_TEST_FILENAME" .bats)-$BATS_TEST_NUMBER-$$"
	export ENGINE_LABEL MAGUS_CONTAINER_API=$ENGINE_URL
}

# engine-cli against the test engine (or whatever -H names first).
engine_cli() {
	"$ENGINE_CLI" "$@"
}

# Ids of the containers carrying every LABEL (default: this test's).
engine_containers() {
	[ $# -gt 0 ] || set -- "$ENGINE_LABEL"
	"$ENGINE_CLI" -H "$ENGINE_URL" ps "$@" | cut -d' ' -f1
}

# Names of the volumes carrying every LABEL (default: this test's).
engine_volumes() {
	[ $# -gt 0 ] || set -- "$ENGINE_LABEL"
	"$ENGINE_CLI" -H "$ENGINE_URL" volumes "$@" | cut -d' ' -f1
}

# In teardown(): remove what carries this test's label.
engine_cleanup() {
	local id
	[ -n "${ENGINE_LABEL:-}" ] && [ -z "${ENGINE_SKIP:-}" ] || return 0
	for id in $(engine_containers 2>/dev/null); do
		"$ENGINE_CLI" -H "$ENGINE_URL" rm "$id" --force --volumes \
			>/dev/null 2>&1
	done
	for id in $(engine_volumes 2>/dev/null); do
		"$ENGINE_CLI" -H "$ENGINE_URL" volume-rm "$id" --force \
			>/dev/null 2>&1
	done
	return 0
}

# A JSON string literal of $1.
json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	s=${s//$'\r'/\\r}
	printf '"%s"' "$s"
}

# engine_body SCRIPT [CONFIG-EXTRA] [HOSTCONFIG-EXTRA] [LABELS-EXTRA]: a
# create request running SCRIPT with sh -c in the test image, with this
# test's label, Init and NetworkMode none.  The extras are JSON members
# added to the top level, to HostConfig and to Labels:
#	engine_body 'cat' '"OpenStdin":true' '' '"magus.use":"relay"'
engine_body() {
	local key=${ENGINE_LABEL%%=*} value=${ENGINE_LABEL#*=}
	printf '{"Image":"%s","Cmd":["sh","-c",%s],"Labels":{%s:%s%s}%s,' \
		"$ENGINE_IMAGE" "$(json_str "$1")" "$(json_str "$key")" \
		"$(json_str "$value")" "${4:+,$4}" "${2:+,$2}"
	printf '"HostConfig":{"NetworkMode":"none","Init":true%s}}\n' "${3:+,$3}"
}

# ---- the fake engine ---------------------------------------------------------

fake_up() {
	local i
	FAKE_DIR=$T/fake
	FAKE_SOCK=$T/fake.sock
	mkdir -p "$FAKE_DIR"
	cat >"$T/scenario"
	"$FAKE_ENGINE" --socket "$FAKE_SOCK" --dir "$FAKE_DIR" \
		--scenario "$T/scenario" "$@" \
		</dev/null >"$T/fake.log" 2>&1 3>&- &
	FAKE_PID=$!
	for i in $(seq 500); do
		[ -e "$FAKE_DIR/ready" ] && break
		kill -0 "$FAKE_PID" 2>/dev/null ||
			fail "fake-engine exited: $(cat "$T/fake.log")"
		sleep 0.01
	done
	[ -e "$FAKE_DIR/ready" ] || fail "fake-engine did not start"
	FAKE_URL=unix://$FAKE_SOCK
	export FAKE_DIR FAKE_SOCK FAKE_PID FAKE_URL
}

fake_down() {
	[ -n "${FAKE_PID:-}" ] || return 0
	kill -TERM "$FAKE_PID" 2>/dev/null
	wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
}

# The request line and headers, or the body, of request N (1, 2, ...).
fake_head() {
	cat "$FAKE_DIR/req/$(printf %04d "$1").head"
}

fake_body_file() {
	printf '%s/req/%04d.body' "$FAKE_DIR" "$1"
}

# The requests received so far: "NNNN METHOD TARGET" lines.
fake_log() {
	cat "$FAKE_DIR/requests.log" 2>/dev/null
}

# The number of the first request whose "METHOD TARGET" matches the
# extended regular expression $1.
fake_find() {
	fake_log | grep -E -m1 "^[0-9]+ $1" | cut -d' ' -f1 | sed 's/^0*//'
}
