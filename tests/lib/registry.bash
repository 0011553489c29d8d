# A real image registry for the pull tests: Debian's docker-registry on
# 127.0.0.1 at a free port (tests/engine/start-registry.sh), and images
# pushed into it by the test engine itself.  Load after lib/common and
# lib/engine.
#
#	setup_file() { engine_up; registry_up; }
#	teardown_file() { registry_down; engine_down; }
#	setup() { common_setup; engine_require; registry_require; }
#
# registry_up starts the registry (REGISTRY, "127.0.0.1:PORT") and stops
# nothing else; registry_down stops it by the pid start-registry.sh saved
# (after checking that pid still is that registry) and deletes its store.
# Where the registry cannot run, registry_require skips, and
# MAGUS_TEST_MUST_WORK=1 turns the skip into a failure.
#
# The engine reaches the registry over plain HTTP because the test
# engine's registries.conf marks 127.0.0.1 insecure (start-engine.sh).
# Everything goes through the engine's API with curl: it works the same
# for a private engine and for the one MAGUS_TEST_ENGINE names.

START_REGISTRY=$MAGUS_SRC_DIR/tests/engine/start-registry.sh
export START_REGISTRY

registry_up() {
	local rc=0
	REGISTRY='' REGISTRY_SKIP='' REGISTRY_BROKEN=''
	REGISTRY_DIR=$(mktemp -d /tmp/magus-registry.XXXXXX)
	# fd 3 is bats' own: the registry must not hold it open.
	REGISTRY=$("$START_REGISTRY" "$REGISTRY_DIR" \
		2>"$REGISTRY_DIR/start.log" 3>&-) || rc=$?
	case $rc in
	0) ;;
	77) REGISTRY_SKIP=$(grep 'cannot run' "$REGISTRY_DIR/start.log" | tail -n 1) ;;
	*) REGISTRY_BROKEN="start-registry.sh failed ($rc): $(tail -n 5 "$REGISTRY_DIR/start.log")" ;;
	esac
	export REGISTRY REGISTRY_DIR REGISTRY_SKIP REGISTRY_BROKEN
}

# Whether pid $1 still is the registry serving from REGISTRY_DIR.  A
# zombie has no command line: the registry is not its starter's child,
# and whoever reaps it may take seconds to.
registry_alive() {
	tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null |
		grep -qF "serve $REGISTRY_DIR/config.yml"
}

registry_down() {
	local pid
	[ -n "${REGISTRY_DIR:-}" ] || return 0
	pid=$(cat "$REGISTRY_DIR/registry.pid" 2>/dev/null || true)
	if [ -n "$pid" ] && registry_alive "$pid"; then
		kill -TERM "$pid"
		for _ in $(seq 100); do
			registry_alive "$pid" || break
			sleep 0.05
		done
		registry_alive "$pid" && kill -KILL "$pid"
	fi
	rm -rf "$REGISTRY_DIR"
	REGISTRY_DIR=''
}

# In setup(), after engine_require.
registry_require() {
	[ -z "${REGISTRY_BROKEN:-}" ] || fail "the test registry is broken: $REGISTRY_BROKEN"
	if [ -n "${REGISTRY_SKIP:-}" ]; then
		if [ "${MAGUS_TEST_MUST_WORK:-0}" = 1 ]; then
			fail "no test registry and MAGUS_TEST_MUST_WORK=1: $REGISTRY_SKIP"
		fi
		skip "$REGISTRY_SKIP"
	fi
	[ -n "${REGISTRY:-}" ] || fail "registry_up was not called"
}

# engine_api METHOD PATH [CURL-ARGS...]: the test engine's API with curl;
# fails on a transport error or an HTTP status of 400 or more.
engine_api() {
	local method=$1 path=$2
	shift 2
	curl -sS --fail-with-body -m 120 --unix-socket "${ENGINE_URL#unix://}" \
		-X "$method" "$@" "http://engine/v1.41$path"
}

# registry_push REPO TAG [IMAGE]: push the test engine's image IMAGE
# (default ENGINE_IMAGE) into the registry as REPO:TAG through the
# engine, and print the manifest's digest as the registry names it.  The
# pushed image carries a label of its own ("magus.test.pushed=REPO:TAG"),
# so its id is not IMAGE's: pulling it back adds an image to the engine
# rather than a name to an image other suites use, and removing it
# touches nothing else.  The local copy and the container it was
# committed from are removed before this returns: afterwards the engine
# does not have the image.
registry_push() {
	local repo=$1 tag=$2 image=${3:-$ENGINE_IMAGE} name=$REGISTRY/$1
	local id out digest
	out=$(engine_api POST /containers/create \
		-H 'Content-Type: application/json' \
		-d "$(printf '{"Image":"%s","Cmd":["true"],"Labels":{"magus.test.registry":"%s"},"HostConfig":{"NetworkMode":"none"}}' \
			"$image" "$REGISTRY")") ||
		{ echo "registry_push: create failed: $out" >&2; return 1; }
	id=$(jq -r .Id <<<"$out")
	out=$(engine_api POST "/commit?container=$id&repo=$name&tag=$tag" \
		-H 'Content-Type: application/json' \
		-d "$(printf '{"Labels":{"magus.test.pushed":"%s:%s"}}' "$repo" "$tag")") ||
		{ echo "registry_push: commit failed: $out" >&2; return 1; }
	engine_api DELETE "/containers/$id?force=1" >/dev/null ||
		{ echo "registry_push: container '$id' not removed" >&2; return 1; }
	# The push answers 200 and reports a failure inside its stream.
	out=$(engine_api POST "/images/$name/push?tag=$tag" \
		-H 'X-Registry-Auth: e30=') ||
		{ echo "registry_push: push failed: $out" >&2; return 1; }
	if grep -q '"error' <<<"$out"; then
		echo "registry_push: push of '$name:$tag' failed: $out" >&2
		return 1
	fi
	engine_api DELETE "/images/$name:$tag" >/dev/null ||
		{ echo "registry_push: local '$name:$tag' not removed" >&2; return 1; }
	digest=$(registry_digest "$repo" "$tag") || return 1
	echo "$digest"
}

# registry_digest REPO REF: the digest the registry gives REPO's manifest
# REF (a tag or a digest), from its Docker-Content-Digest header.
registry_digest() {
	local d
	d=$(curl -sS -f -m 10 -I \
		-H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
		-H 'Accept: application/vnd.oci.image.manifest.v1+json' \
		"http://$REGISTRY/v2/$1/manifests/$2" |
		tr -d '\r' | sed -n 's/^[Dd]ocker-[Cc]ontent-[Dd]igest: //p')
	case $d in
	sha256:????????????????????????????????????????????????????????????????) echo "$d" ;;
	*) echo "registry_digest: no digest for '$1:$2' in '$REGISTRY'" >&2; return 1 ;;
	esac
}

# registry_retarget REPO TAG NEWTAG OS ARCH: a copy of REPO:TAG's manifest
# as REPO:NEWTAG whose image configuration says OS/ARCH (the layers are
# the same); print its digest.  The registry API does it directly: a new
# configuration blob, then a manifest naming it.
registry_retarget() {
	local repo=$1 tag=$2 new=$3 os=$4 arch=$5 base=http://$REGISTRY/v2/$1
	local mt=application/vnd.docker.distribution.manifest.v2+json
	local manifest config cdigest csize loc
	manifest=$(curl -sS -f -m 10 -H "Accept: $mt" "$base/manifests/$tag") ||
		return 1
	[ "$(jq -r .mediaType <<<"$manifest")" = "$mt" ] ||
		{ echo "registry_retarget: '$repo:$tag' is not a $mt" >&2; return 1; }
	config=$(curl -sS -f -m 10 \
		"$base/blobs/$(jq -r .config.digest <<<"$manifest")" |
		jq -c --arg os "$os" --arg arch "$arch" \
			'.os = $os | .architecture = $arch | del(.variant)') ||
		return 1
	cdigest=sha256:$(printf '%s' "$config" | sha256sum | cut -d' ' -f1)
	csize=$(printf '%s' "$config" | wc -c)
	loc=$(curl -sS -f -m 10 -X POST -D - -o /dev/null "$base/blobs/uploads/" |
		tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
	[ -n "$loc" ] || { echo "registry_retarget: no upload location" >&2; return 1; }
	case $loc in /*) loc=http://$REGISTRY$loc ;; esac
	case $loc in *\?*) loc="$loc&digest=$cdigest" ;; *) loc="$loc?digest=$cdigest" ;; esac
	printf '%s' "$config" | curl -sS -f -m 10 -X PUT \
		-H 'Content-Type: application/octet-stream' --data-binary @- \
		"$loc" >/dev/null || return 1
	jq -c --arg d "$cdigest" --argjson n "$csize" \
		'.config.digest = $d | .config.size = $n' <<<"$manifest" |
		curl -sS -f -m 10 -X PUT -H "Content-Type: $mt" --data-binary @- \
			"$base/manifests/$new" >/dev/null || return 1
	registry_digest "$repo" "$new"
}

# registry_rmi REF: remove the image REF from the test engine if it is
# there (a teardown's cleanup; quiet).
registry_rmi() {
	engine_api DELETE "/images/$1?force=1" >/dev/null 2>&1
	return 0
}
