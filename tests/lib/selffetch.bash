# Helpers for the self-fetch and release suites (tests/03xx).
#
# make check builds one real static inner build with `make platform-store`
# into $SF_WS (see libexec/self-fetch/local.mk); these helpers pack it
# into releases with the project's own tooling, make a test CA, and run
# the loopback HTTPS server tests/selffetch/httpsd.

SF_TOOL=$MAGUS_BUILD_DIR/contrib/release/magus-release
SF_RELEASE=$MAGUS_SRC_DIR/contrib/release
SF_HTTPSD=$MAGUS_BUILD_DIR/tests/selffetch/httpsd
SF_FETCH=$MAGUS_EXEC_PATH/magus-self-fetch
SF_WS=$MAGUS_BUILD_DIR/tests/selffetch/ws
SF_ARCH=$(sed -n 's/^MAGUS_HOST_ARCH = //p' "$MAGUS_BUILD_DIR/Makefile")
SF_PLATFORM=linux/$SF_ARCH
SF_OTHER=linux/arm64
[ "$SF_ARCH" = arm64 ] && SF_OTHER=linux/amd64
SF_INNER=$SF_WS/.magus/platform/linux-$SF_ARCH/magus
SF_VERSION=$(magus --version | sed -n 's/^magus //p')
SF_HASH=$(sed -n 's/^const char magus_source_hash\[\] = "\([0-9a-f]*\)";$/\1/p' \
	"$MAGUS_BUILD_DIR/magus-source-hash.c")
export SOURCE_DATE_EPOCH=1700000000

# Keys, a CA with a server certificate for 127.0.0.1, a second CA the
# client does not trust, and the good release; once per file, in $SF.
sf_setup_file() {
	SF=$BATS_FILE_TMPDIR/sf
	mkdir -p "$SF"
	[ -f "$SF_INNER/BUILD-INFO" ] || {
		echo "no inner build in $SF_INNER: run make check" >&2
		return 1
	}
	"$SF_TOOL" keygen -p "$SF/k.pub" -s "$SF/k.key" >/dev/null
	"$SF_TOOL" keygen -p "$SF/k2.pub" -s "$SF/k2.key" >/dev/null
	test_ca "$SF/ca" && test_ca "$SF/ca2"
	test_cert "$SF/ca" "$SF/srv" localhost IP:127.0.0.1,DNS:localhost &&
		test_cert "$SF/ca2" "$SF/srv2" localhost IP:127.0.0.1,DNS:localhost
	mkdir -p "$SF/good"
	sf_release "$SF/good" "$SF_INNER" "$SF_VERSION"
}

# sf_release DIR INNERDIR VERSION [PLATFORM]: the tarball, index.json and
# its signature, made with contrib/release and magus-release.
sf_release() {
	local dir=$1 inner=$2 version=$3 platform=${4:-$SF_PLATFORM}
	local name
	name=magus-$version-$(echo "$platform" | tr / -).tar.gz
	mkdir -p "$dir"
	"$SF_RELEASE/pack.sh" "$inner" "$dir/$name"
	"$SF_TOOL" index -o "$dir/index.json" "$version" "$platform" "$name" "$dir/$name"
	"$SF_TOOL" sign-index -s "$SF/k.key" "$dir/index.json" >/dev/null
}

# sf_sign DIR [KEY]: sign DIR/index.json again (after an edit).
sf_sign() {
	"$SF_TOOL" sign-index -s "${2:-$SF/k.key}" "$1/index.json" >/dev/null
}

# sf_serve DIR [--cert NAME] [--rule PATH=ACTION]...: start httpsd on DIR,
# set SF_PORT and SF_URL; sf_stop stops it (by its saved pid).
sf_serve() {
	local dir=$1 cert=srv
	shift
	if [ "${1:-}" = --cert ]; then
		cert=$2
		shift 2
	fi
	rm -f "$T/port" "$T/server.log"
	"$SF_HTTPSD" --root "$dir" --port-file "$T/port" --log "$T/server.log" \
		--cert "$SF/$cert.pem" --key "$SF/$cert.key" "$@" 3>&- &
	SF_PID=$!
	local i
	for i in $(seq 1 100); do
		[ -s "$T/port" ] && break
		sleep 0.05
	done
	[ -s "$T/port" ] || fail "httpsd did not start"
	SF_PORT=$(cat "$T/port")
	SF_URL=https://127.0.0.1:$SF_PORT
}

sf_stop() {
	if [ -n "${SF_PID:-}" ]; then
		kill "$SF_PID" 2>/dev/null || true
		wait "$SF_PID" 2>/dev/null || true
		SF_PID=""
	fi
}

# Per test: a cache of its own, the test CA trusted, no proxy in the way.
sf_setup() {
	common_setup
	SF=$BATS_FILE_TMPDIR/sf
	export XDG_CACHE_HOME=$T/cache
	mkdir -p "$XDG_CACHE_HOME"
	export MAGUS_CA_BUNDLE=$SF/ca.pem
	export MAGUS_RELEASE_PUBKEY
	MAGUS_RELEASE_PUBKEY=$(tail -n 1 "$SF/k.pub")
	unset https_proxy HTTPS_PROXY http_proxy HTTP_PROXY all_proxy ALL_PROXY \
		no_proxy NO_PROXY CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR
	SF_ENTRY=$XDG_CACHE_HOME/magus/self/$SF_VERSION/linux-$SF_ARCH
}

sf_teardown() {
	sf_stop
	common_teardown
}

# sf_fetch [ARGS...]: run magus-self-fetch against $SF_URL/index.json.
sf_fetch() {
	run --separate-stderr "$SF_FETCH" --index "$SF_URL/index.json" "$@"
}

# A copy of the good release to break.
sf_copy_good() {
	rm -rf "$T/rel"
	cp -R "$SF/good" "$T/rel"
}

# Nothing in the cache: no entry, no temporary directory, no new
# directory at all.
assert_cache_empty() {
	local left
	left=$(find "$XDG_CACHE_HOME" -mindepth 1 2>/dev/null)
	[ -z "$left" ] || fail "left in the cache: $left"
}

# How many requests for PATH the server logged.
sf_requests() {
	grep -c "^GET $1 " "$T/server.log" || true
}
