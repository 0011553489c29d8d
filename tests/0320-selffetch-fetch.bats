#!/usr/bin/env bats
# magus-self-fetch against a real loopback HTTPS server (tests/selffetch/
# httpsd) with a CA made here, and a real release made with the project's
# own tooling from the static build of this tree.  Every failure must
# fail closed: exit non-zero, the code, and nothing left in the cache.

load lib/common
load lib/selffetch

setup_file() { sf_setup_file; }
setup() { sf_setup; }
teardown() { sf_teardown; }

@test "a good fetch puts a verified build in the cache and prints its path" {
	sf_serve "$SF/good"
	sf_fetch "$SF_PLATFORM"
	assert_success
	assert_output "$SF_ENTRY"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "magus-self-fetch: fetched magus $SF_VERSION for $SF_PLATFORM into '$SF_ENTRY'"* ]]
	run "$SF_TOOL" check -f "$SF_ENTRY" "$SF_PLATFORM" "$SF_VERSION"
	assert_success
	cmp "$SF_ENTRY/bin/magus" "$SF_INNER/bin/magus"
	run "$SF_ENTRY/bin/magus" --version
	assert_output "magus $SF_VERSION"
	run grep -x "sha256 $(sha256sum <"$SF/good/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz" | cut -c1-64)" \
		"$SF_ENTRY/FETCH-INFO"
	assert_success
	# The entry and nothing beside it.
	run ls -A "$XDG_CACHE_HOME/magus/self/$SF_VERSION"
	assert_output "linux-$SF_ARCH"
	[ "$(sf_requests /index.json)" = 1 ]
	[ "$(sf_requests /index.json.minisig)" = 1 ]
}

@test "a cache hit is verified and answered with the server stopped" {
	sf_serve "$SF/good"
	sf_fetch "$SF_PLATFORM"
	assert_success
	sf_stop
	local before
	before=$(wc -l <"$T/server.log")
	sf_fetch "$SF_PLATFORM"
	assert_success
	assert_output "$SF_ENTRY"
	[[ "$stderr" == *"is in '$SF_ENTRY' (verified)"* ]]
	[ "$(wc -l <"$T/server.log")" = "$before" ]
	# Even with no index configured at all: no network is needed.
	run --separate-stderr "$SF_FETCH" --index https://192.0.2.1/none.json "$SF_PLATFORM"
	assert_success
}

@test "a damaged cache entry is not used: it is fetched again and replaced" {
	sf_serve "$SF/good"
	sf_fetch "$SF_PLATFORM"
	assert_success
	printf 'X' | dd of="$SF_ENTRY/bin/magus" bs=1 seek=4000 conv=notrunc 2>/dev/null
	sf_fetch "$SF_PLATFORM"
	assert_success
	[[ "$stderr" == *"fetched magus"* ]]
	cmp "$SF_ENTRY/bin/magus" "$SF_INNER/bin/magus"
	run ls -A "$XDG_CACHE_HOME/magus/self/$SF_VERSION"
	assert_output "linux-$SF_ARCH"
}

@test "a flipped byte in the artifact: MGS4011, nothing cached" {
	sf_copy_good
	local tgz=$T/rel/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz
	printf '\001' | dd of="$tgz" bs=1 seek=2000 conv=notrunc 2>/dev/null
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4011
	[[ "$stderr" == *"SHA-256"* ]]
	[ -z "$output" ]
	assert_cache_empty
}

@test "a truncated body: MGS4011 after bounded retries, nothing cached" {
	local name=magus-$SF_VERSION-linux-$SF_ARCH.tar.gz
	sf_serve "$SF/good" --rule "/$name=truncate:1000"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4011
	[[ "$stderr" == *"truncated"* ]]
	[ "$(sf_requests "/$name")" = 3 ]
	assert_cache_empty
}

@test "a body shorter than the index says (the server closes early): MGS4011" {
	sf_copy_good
	local tgz=$T/rel/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz
	head -c 5000 "$tgz" >"$tgz.cut" && mv "$tgz.cut" "$tgz.short"
	# The index is for the whole file; the server holds a short one.
	mv "$tgz.short" "$tgz"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4011
	assert_cache_empty
}

@test "a wrong size in the signed index: MGS4011, nothing cached" {
	sf_copy_good
	local size
	size=$(stat -c %s "$T/rel/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz")
	sed -i "s/\"size\":$size,/\"size\":$((size + 1)),/" "$T/rel/index.json"
	sf_sign "$T/rel"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4011
	assert_cache_empty
	# Smaller than the file: refused before it is all read.
	sed -i "s/\"size\":$((size + 1)),/\"size\":$((size - 1)),/" "$T/rel/index.json"
	sf_sign "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4011
	assert_cache_empty
}

@test "an index changed after signing: MGS4007, nothing cached" {
	sf_copy_good
	sed -i 's/"format":1/"format":1 /' "$T/rel/index.json"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	[[ "$stderr" == *"does not match the signed data"* ]]
	[ "$(sf_requests "/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz")" = 0 ]
	assert_cache_empty
}

@test "a missing signature: MGS4007, nothing cached" {
	sf_copy_good
	rm "$T/rel/index.json.minisig"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	[[ "$stderr" == *"no signature"* ]]
	assert_cache_empty
}

@test "a malformed signature file: MGS4007" {
	sf_copy_good
	echo "not a signature" >"$T/rel/index.json.minisig"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	assert_cache_empty
}

@test "a signature by another key: MGS4007 naming it, nothing cached" {
	sf_copy_good
	sf_sign "$T/rel" "$SF/k2.key"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	[[ "$stderr" == *"not by the trusted key"* ]]
	assert_cache_empty
}

@test "an edited trusted comment: MGS4007, nothing cached" {
	sf_copy_good
	sed -i "s/^trusted comment: .*/& linux\/riscv64/" "$T/rel/index.json.minisig"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	[[ "$stderr" == *"trusted comment"* ]]
	assert_cache_empty
}

@test "a validly signed trusted comment that names other versions: MGS4007" {
	sf_copy_good
	"$SF_TOOL" sign -s "$SF/k.key" -t "magus-release-index 9.9.9=$SF_PLATFORM" \
		"$T/rel/index.json"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	[[ "$stderr" == *"does not name what the index lists"* ]]
	assert_cache_empty
}

@test "an index without the running version: MGS4009 naming both" {
	mkdir -p "$T/rel"
	sf_release "$T/rel" "$SF_INNER" 0.0.1-other
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4009
	[[ "$stderr" == *"magus $SF_VERSION"* ]]
	[[ "$stderr" == *"0.0.1-other"* ]]
	assert_cache_empty
}

@test "a platform absent from the index: MGS4010 naming what it has" {
	sf_serve "$SF/good"
	sf_fetch "$SF_OTHER"
	[ "$status" -eq 1 ]
	assert_code MGS4010
	[[ "$stderr" == *"$SF_OTHER"* ]]
	[[ "$stderr" == *"it has: $SF_PLATFORM"* ]]
	assert_cache_empty
}

@test "an artifact whose ELF is for another architecture: MGS4013 naming both" {
	cp -R "$SF_INNER" "$T/inner"
	chmod -R u+w "$T/inner"
	# e_machine (offset 18) of aarch64 is 183, of x86-64 62.
	local m=183
	[ "$SF_ARCH" = arm64 ] && m=62
	printf "$(printf '\\%03o' "$m")\\000" |
		dd of="$T/inner/bin/magus" bs=1 seek=18 conv=notrunc 2>/dev/null
	"$SF_RELEASE/write-buildinfo.sh" "$T/inner" "$SF_VERSION" "$SF_PLATFORM" "$SF_HASH"
	sf_release "$T/rel" "$T/inner" "$SF_VERSION"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4013
	[[ "$stderr" == *"executable for ${SF_OTHER#linux/}, not for $SF_PLATFORM"* ]]
	assert_cache_empty
}

@test "a tarball holding a symlink or a path outside the layout: MGS4012" {
	cp -R "$SF_INNER" "$T/inner"
	ln -s /etc/passwd "$T/inner/libexec/magus/magus-evil"
	mkdir -p "$T/rel"
	tar --format=ustar -C "$T/inner" -cf - BUILD-INFO bin libexec | gzip -n >"$T/rel/a.tar.gz"
	"$SF_TOOL" index -o "$T/rel/index.json" "$SF_VERSION" "$SF_PLATFORM" a.tar.gz "$T/rel/a.tar.gz"
	sf_sign "$T/rel"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4012
	[[ "$stderr" == *"magus-evil"* ]]
	assert_cache_empty

	rm "$T/inner/libexec/magus/magus-evil"
	tar --format=ustar -P --transform 's,^bin/magus$,../escape,' \
		-C "$T/inner" -cf - BUILD-INFO bin/magus | gzip -n >"$T/rel/a.tar.gz"
	"$SF_TOOL" index -o "$T/rel/index.json" "$SF_VERSION" "$SF_PLATFORM" a.tar.gz "$T/rel/a.tar.gz"
	sf_sign "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4012
	[[ "$stderr" == *"'../escape'"* ]]
	assert_cache_empty
	[ ! -e "$XDG_CACHE_HOME/../escape" ] && [ ! -e "$T/escape" ]
}

@test "HTTP 404 for the artifact: MGS4004, nothing cached" {
	sf_copy_good
	rm "$T/rel/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4004
	[[ "$stderr" == *"HTTP 404"* ]]
	# A 404 is not retried.
	[ "$(sf_requests "/magus-$SF_VERSION-linux-$SF_ARCH.tar.gz")" = 1 ]
	assert_cache_empty
}

@test "HTTP 500: retried a bounded number of times, then MGS4004" {
	sf_serve "$SF/good" --rule "/index.json=status:500"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4004
	[[ "$stderr" == *"HTTP 500"* ]]
	[ "$(sf_requests /index.json)" = 3 ]
	assert_cache_empty
}

@test "a failure that passes is retried: 503 twice, then the file" {
	sf_serve "$SF/good" --rule "/index.json=flaky:2"
	sf_fetch "$SF_PLATFORM"
	assert_success
	[ "$(sf_requests /index.json)" = 3 ]
}

@test "a TLS certificate from an untrusted CA: MGS4005 with the hint, nothing cached" {
	sf_serve "$SF/good" --cert srv2
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4005
	[[ "$stderr" == *"hint: "*"MAGUS_CA_BUNDLE"* ]]
	# Not retried: it would not pass.
	[ "$(grep -c 'TLS handshake failed' "$T/server.log")" = 1 ]
	assert_cache_empty
	# Trusting that CA (as one would a TLS-inspecting proxy's) works.
	MAGUS_CA_BUNDLE=$SF/ca2.pem sf_fetch "$SF_PLATFORM"
	assert_success
}

@test "the system's CA store is not enough for a private CA; SSL_CERT_FILE is honored" {
	sf_serve "$SF/good"
	unset MAGUS_CA_BUNDLE
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4005
	SSL_CERT_FILE=$SF/ca.pem sf_fetch "$SF_PLATFORM"
	assert_success
}

@test "a redirect to plain HTTP is refused: MGS4006, nothing cached" {
	sf_serve "$SF/good" --rule "/index.json=redirect:http://127.0.0.1:1/index.json"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4006
	[[ "$stderr" == *"http://127.0.0.1:1/index.json"* ]]
	assert_cache_empty
}

@test "a redirect to HTTPS is followed" {
	sf_serve "$SF/good" --rule "/moved/index.json=redirect:/index.json"
	sf_fetch "$SF_PLATFORM"
	assert_success
	run --separate-stderr "$SF_FETCH" --index "$SF_URL/moved/index.json" "$SF_OTHER"
	# It got as far as the (signed, verified) index.
	assert_code MGS4010
}

@test "a malformed index, validly signed: exit 2, MGS4008 naming the field" {
	sf_copy_good
	sed -i 's/"size":\([0-9]*\)/"size":"\1"/' "$T/rel/index.json"
	# magus-release sign-index refuses such an index; sign it as a file.
	"$SF_TOOL" sign -s "$SF/k.key" -t "magus-release-index $SF_VERSION=$SF_PLATFORM" \
		"$T/rel/index.json"
	sf_serve "$T/rel"
	sf_fetch "$SF_PLATFORM"
	[ "$status" -eq 2 ]
	assert_code MGS4008
	[[ "$stderr" == *".size: not a positive whole number"* ]]
	assert_cache_empty
}

@test "two fetches at once end with one good copy" {
	sf_serve "$SF/good"
	"$SF_FETCH" --index "$SF_URL/index.json" "$SF_PLATFORM" >"$T/o1" 2>"$T/e1" 3>&- &
	local p1=$!
	"$SF_FETCH" --index "$SF_URL/index.json" "$SF_PLATFORM" >"$T/o2" 2>"$T/e2" 3>&- &
	local p2=$!
	wait "$p1" || fail "first fetch: $(cat "$T/e1")"
	wait "$p2" || fail "second fetch: $(cat "$T/e2")"
	[ "$(cat "$T/o1")" = "$SF_ENTRY" ] && [ "$(cat "$T/o2")" = "$SF_ENTRY" ]
	run ls -A "$XDG_CACHE_HOME/magus/self/$SF_VERSION"
	assert_output "linux-$SF_ARCH"
	run "$SF_TOOL" check -f "$SF_ENTRY" "$SF_PLATFORM" "$SF_VERSION"
	assert_success
}

@test "-o json: a JSON object on stdout, nothing else on stderr" {
	sf_serve "$SF/good"
	MAGUS_OUTPUT=json sf_fetch "$SF_PLATFORM"
	assert_success
	assert_output "{\"path\":\"$SF_ENTRY\",\"version\":\"$SF_VERSION\",\"platform\":\"$SF_PLATFORM\",\"fetched\":true}"
	[ -z "$stderr" ]
}

@test "the public key may be a minisign.pub file" {
	sf_serve "$SF/good"
	sf_fetch --pubkey "$SF/k.pub" "$SF_PLATFORM"
	assert_success
}

@test "magus self fetch takes self.index and self.pubkey from the user configuration" {
	sf_serve "$SF/good"
	unset MAGUS_RELEASE_PUBKEY
	mkdir -p "$XDG_CONFIG_HOME/magus"
	printf 'self:\n  index: %s/index.json\n  pubkey: %s\n' "$SF_URL" \
		"$(tail -n 1 "$SF/k.pub")" >"$XDG_CONFIG_HOME/magus/config.yaml"
	run --separate-stderr magus self fetch "$SF_PLATFORM"
	assert_success
	assert_output "$SF_ENTRY"
	# Another key configured: the same index is refused.
	rm -rf "$XDG_CACHE_HOME"/*
	printf 'self:\n  index: %s/index.json\n  pubkey: %s\n' "$SF_URL" \
		"$(tail -n 1 "$SF/k2.pub")" >"$XDG_CONFIG_HOME/magus/config.yaml"
	run --separate-stderr magus self fetch "$SF_PLATFORM"
	[ "$status" -eq 1 ]
	assert_code MGS4007
	assert_cache_empty
}

@test "https_proxy is honored: the fetch goes through the proxy's tunnel" {
	sf_serve "$SF/good"
	"$SF_HTTPSD" --proxy --port-file "$T/pport" --log "$T/proxy.log" 3>&- &
	local ppid=$!
	for _ in $(seq 1 100); do [ -s "$T/pport" ] && break; sleep 0.05; done
	https_proxy=http://127.0.0.1:$(cat "$T/pport") sf_fetch "$SF_PLATFORM"
	kill "$ppid"
	wait "$ppid" || true
	assert_success
	run grep -c "^CONNECT 127.0.0.1:$SF_PORT$" "$T/proxy.log"
	[ "$output" -ge 1 ]
}

@test "on a terminal, a progress bar; otherwise one summary line" {
	skip_unless "script(1) is not installed" command -v script
	sf_serve "$SF/good"
	run script -qefc "'$SF_FETCH' --index '$SF_URL/index.json' '$SF_PLATFORM'" /dev/null
	assert_success
	assert_output --partial "100%"
	assert_output --partial "[##############################]"
	assert_output --partial "fetched magus $SF_VERSION"
	# Not a terminal: no bar, just the line (first test).
}
