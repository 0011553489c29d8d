#!/usr/bin/env bats
# magus-self-fetch and `magus self fetch`: usage, bad input refused before
# any request (exit 2, nothing written), the man page, linked libraries.

load lib/common
load lib/selffetch

setup() {
	common_setup
	export XDG_CACHE_HOME=$T/cache
	mkdir -p "$XDG_CACHE_HOME"
	# A key in the right form: the checks below come before any use of it.
	export MAGUS_RELEASE_PUBKEY=RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3
}
teardown() { common_teardown; }

@test "usage mirrors the SYNOPSIS of magus-self-fetch(1)" {
	run "$SF_FETCH" --help
	assert_success
	local usage man
	usage=$(printf '%s\n' "$output" | sed -e 's/^usage: //' -e 's/^ *//' | tr -s ' ')
	man=$(mandoc -T ascii -O width=200 "$MAGUS_SRC_DIR/man/magus-self-fetch.1" |
		sed 's/.\x08//g' | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' |
		sed -e '1d' -e '$d' -e 's/^ *//' | sed '/^$/d' | tr -s ' ')
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
}

@test "magus help lists self and magus(1) documents it" {
	run magus help self
	assert_success
	assert_output --partial "self fetch OS/ARCH"
	run magus self fetch --help
	assert_success
	assert_output "usage: magus self fetch OS/ARCH[/VARIANT]"
	run grep -c '^\.It Cm self fetch' "$MAGUS_SRC_DIR/man/magus.1"
	assert_output 1
}

@test "an unknown or bare platform: exit 2, MGS4001, nothing written" {
	for p in linux linux/sparc freebsd/amd64 linux/amd64/v9 "" linux//; do
		run --separate-stderr "$SF_FETCH" --index https://127.0.0.1:1/i.json "$p"
		[ "$status" -eq 2 ] || fail "'$p': status $status"
		assert_code MGS4001
	done
	run --separate-stderr magus self fetch linux
	[ "$status" -eq 2 ]
	assert_code MGS4001
	[[ "$stderr" == *"linux/$SF_ARCH"* ]]
	[ -z "$(find "$XDG_CACHE_HOME" -mindepth 1)" ]
}

@test "an index URL that is not HTTPS: exit 2, MGS4002, no request" {
	for u in http://example.invalid/i.json ftp://127.0.0.1/i.json file:///etc/passwd \
		"not a url" http://127.0.0.1.example.invalid/i.json; do
		run --separate-stderr "$SF_FETCH" --index "$u" "$SF_PLATFORM"
		[ "$status" -eq 2 ] || fail "'$u': status $status: $stderr"
		assert_code MGS4002
	done
	MAGUS_RELEASE_INDEX=http://example.invalid/i.json run --separate-stderr \
		magus self fetch "$SF_PLATFORM"
	[ "$status" -eq 2 ]
	assert_code MGS4002
	[[ "$stderr" == *"http://example.invalid/i.json"* ]]
	[ -z "$(find "$XDG_CACHE_HOME" -mindepth 1)" ]
}

@test "plain HTTP to a loopback address is allowed (for tests)" {
	mkdir -p "$T/www"
	"$SF_HTTPSD" --root "$T/www" --port-file "$T/port" --log "$T/log" 3>&- &
	local pid=$!
	for _ in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	run --separate-stderr "$SF_FETCH" --index "http://127.0.0.1:$(cat "$T/port")/i.json" \
		"$SF_PLATFORM"
	kill "$pid"
	wait "$pid" || true
	# It asked (and got a 404): the URL was not refused.
	[ "$status" -eq 1 ]
	assert_code MGS4004
	grep -q '^GET /i.json 404' "$T/log"
}

@test "no public key, or a bad one: exit 2, MGS4003" {
	unset MAGUS_RELEASE_PUBKEY
	if [ -n "$(sed -n 's/^#define MAGUS_RELEASE_PUBKEY_DEFAULT "\(.*\)"$/\1/p' \
		"$MAGUS_BUILD_DIR/autoconf.h")" ]; then
		skip "this build has a release key compiled in"
	fi
	run --separate-stderr "$SF_FETCH" --index https://127.0.0.1:1/i.json "$SF_PLATFORM"
	[ "$status" -eq 2 ]
	assert_code MGS4003
	run --separate-stderr "$SF_FETCH" --index https://127.0.0.1:1/i.json \
		--pubkey RWQnotakey "$SF_PLATFORM"
	[ "$status" -eq 2 ]
	assert_code MGS4003
	[ -z "$(find "$XDG_CACHE_HOME" -mindepth 1)" ]
}

@test "bad command lines: exit 2" {
	run --separate-stderr "$SF_FETCH"
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr "$SF_FETCH" --frob "$SF_PLATFORM"
	[ "$status" -eq 2 ]
	run --separate-stderr "$SF_FETCH" "$SF_PLATFORM" "$SF_OTHER"
	[ "$status" -eq 2 ]
	run --separate-stderr "$SF_FETCH" --index
	[ "$status" -eq 2 ]
	run --separate-stderr magus self
	[ "$status" -eq 2 ]
	run --separate-stderr magus self get linux/amd64
	[ "$status" -eq 2 ]
	run --separate-stderr magus self fetch --index x linux/amd64
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus self fetch linux/amd64 linux/arm64
	[ "$status" -eq 2 ]
}

@test "every MGS40xx code has a page" {
	local c
	for c in 4001 4002 4003 4004 4005 4006 4007 4008 4009 4010 4011 4012 4013 4014; do
		run magus explain "MGS$c"
		assert_success
	done
}

@test "magus-self-fetch links libcurl; the front and the release tool do not" {
	run readelf -d "$MAGUS_BUILD_DIR/libexec/self-fetch/magus-self-fetch"
	assert_output --partial libcurl
	run readelf -d "$MAGUS_BUILD_DIR/bin/magus"
	refute_output --partial libcurl
	refute_output --partial libcrypto
	run readelf -d "$SF_TOOL"
	refute_output --partial libcurl
}

@test "the release tool's usage names every command" {
	run "$SF_TOOL" --help
	assert_success
	for c in keygen sign sign-index verify check find index install; do
		assert_output --partial "magus-release $c "
	done
	run "$SF_TOOL" frobnicate
	[ "$status" -eq 2 ]
}
