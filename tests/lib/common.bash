# Shared setup for magus's bats suites.
#
# make check exports MAGUS_BUILD_DIR, MAGUS_SRC_DIR, MAGUS_EXEC_PATH and
# puts bin-wrappers/ first on PATH.  A suite run by hand from the build
# tree works too: the defaults below point at the tree this file is in.

bats_require_minimum_version 1.5.0

bats_load_library bats-support 2>/dev/null || load /usr/lib/bats/bats-support/load
bats_load_library bats-assert 2>/dev/null || load /usr/lib/bats/bats-assert/load

: "${MAGUS_SRC_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${MAGUS_BUILD_DIR:=$MAGUS_SRC_DIR}"
: "${MAGUS_EXEC_PATH:=$MAGUS_BUILD_DIR/exec-path}"
export MAGUS_SRC_DIR MAGUS_BUILD_DIR MAGUS_EXEC_PATH
case ":$PATH:" in
*":$MAGUS_BUILD_DIR/bin-wrappers:"*) ;;
*) PATH="$MAGUS_BUILD_DIR/bin-wrappers:$PATH" ;;
esac

# A private scratch area per test, with a home and config dirs of its own,
# so no test reads the developer's real ~/.config/magus.
common_setup() {
	T="$(mktemp -d "${BATS_TMPDIR:-/tmp}/magus-test.XXXXXX")"
	export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
	mkdir -p "$HOME" "$XDG_CONFIG_HOME"
	unset MAGUS_SANDBOX MAGUS_CONTAINER_API MAGUS_CACHE_DIR MAGUS_OUTPUT \
		MAGUS_RELEASE_INDEX MAGUS_RELEASE_PUBKEY MAGUS_PLATFORM_NETWORK \
		MAGUS_ROOT MAGUS_CONFIG MAGUS_VERBOSE
	cd "$T" || return 1
}

common_teardown() {
	cd / || true
	[ -n "${T:-}" ] && rm -rf "$T"
}

# Tests skip only where this machine cannot do the thing.  CI sets
# MAGUS_TEST_MUST_WORK=1, which turns every such skip into a failure.
skip_unless() {
	local why=$1
	shift
	if "$@" >/dev/null 2>&1; then
		return 0
	fi
	if [ "${MAGUS_TEST_MUST_WORK:-0}" = 1 ]; then
		fail "cannot run here and MAGUS_TEST_MUST_WORK=1: $why"
	fi
	skip "$why"
}

# Write a workspace file: mkws DIR <<EOF ... EOF
mkws() {
	mkdir -p "$1"
	cat >"$1/magus.yaml"
}

# The MGS code in the first diagnostic line of $output (or of stderr when
# run with --separate-stderr).
assert_code() {
	local want=$1 text=${stderr:-$output}
	if ! grep -q "\[$want\]" <<<"$text"; then
		fail "expected diagnostic $want in: $text"
	fi
}

# test_ca PREFIX: a throwaway P-256 CA valid two days, PREFIX.key and
# PREFIX.pem, named after PREFIX's last component (so two CAs differ).
test_ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -keyout "$1.key" -out "$1.pem" -days 2 \
		-subj "/CN=magus test CA ${1##*/}" >/dev/null 2>&1
}

# test_cert CA OUT CN SAN: a server certificate OUT.pem and key OUT.key
# signed by the CA made by test_ca CA, for subjectAltName SAN (as
# "IP:127.0.0.1,DNS:localhost").
test_cert() {
	local ca=$1 out=$2 cn=$3 san=$4
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$out.key" -out "$out.csr" -subj "/CN=$cn" >/dev/null 2>&1
	printf 'subjectAltName=%s\n' "$san" >"$out.ext"
	openssl x509 -req -in "$out.csr" -CA "$ca.pem" -CAkey "$ca.key" \
		-CAcreateserial -days 2 -extfile "$out.ext" -out "$out.pem" \
		>/dev/null 2>&1
	[ -s "$out.pem" ]
}
