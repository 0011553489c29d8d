#!/usr/bin/env bats
# The release signer (contrib/release/magus-release, lib/minisign.c) and
# the real minisign(1), both ways: keys and signatures of each are read by
# the other.

load lib/common
load lib/selffetch

setup() {
	common_setup
	skip_unless "minisign(1) is not installed (Debian package minisign)" \
		command -v minisign
	echo "the release index, or any file" >"$T/file"
}
teardown() { common_teardown; }

@test "magus signs, minisign -V verifies, with magus's key" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	run "$SF_TOOL" sign -s "$T/k.key" -t "version 1 and some words" "$T/file"
	assert_success
	run minisign -V -p "$T/k.pub" -m "$T/file"
	assert_success
	assert_output --partial "Trusted comment: version 1 and some words"
	# minisign -V -P with the bare base64 line, the way users paste it.
	run minisign -V -P "$(tail -n 1 "$T/k.pub")" -m "$T/file"
	assert_success
}

@test "minisign signs with a key magus made; magus verifies" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	run minisign -S -s "$T/k.key" -m "$T/file" -t "from minisign"
	assert_success
	run "$SF_TOOL" verify -p "$T/k.pub" "$T/file"
	assert_success
	assert_output --partial "trusted comment: from minisign"
}

@test "minisign's own key: minisign signs, magus verifies" {
	minisign -G -W -p "$T/m.pub" -s "$T/m.key" >/dev/null
	minisign -S -s "$T/m.key" -m "$T/file" -t "minisign all along" >/dev/null
	run "$SF_TOOL" verify -p "$T/m.pub" "$T/file"
	assert_success
	assert_output --partial "trusted comment: minisign all along"
	run "$SF_TOOL" verify -p "$(tail -n 1 "$T/m.pub")" "$T/file"
	assert_success
}

@test "minisign's own key: magus signs, minisign -V verifies" {
	minisign -G -W -p "$T/m.pub" -s "$T/m.key" >/dev/null
	run "$SF_TOOL" sign -s "$T/m.key" -t "signed by magus" "$T/file"
	assert_success
	run minisign -V -p "$T/m.pub" -m "$T/file"
	assert_success
	assert_output --partial "Trusted comment: signed by magus"
}

@test "a password-protected minisign key is refused by name" {
	# minisign's format with the scrypt KDF ("Sc") in bytes 2..3, made
	# without waiting for scrypt: a key of ours, marked as encrypted.
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	{
		head -n 1 "$T/k.key"
		tail -n 1 "$T/k.key" | base64 -d | { printf 'EdSc'; tail -c +5; } | base64 -w 0
		echo
	} >"$T/enc.key"
	run "$SF_TOOL" sign -s "$T/enc.key" "$T/file"
	assert_failure
	assert_output --partial "protected by a password"
	[ ! -e "$T/file.minisig" ]
}

@test "a changed file fails both verifiers" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	"$SF_TOOL" sign -s "$T/k.key" "$T/file"
	echo "one more line" >>"$T/file"
	run minisign -V -p "$T/k.pub" -m "$T/file"
	assert_failure
	run "$SF_TOOL" verify -p "$T/k.pub" "$T/file"
	assert_failure
	assert_output --partial "does not match the signed data"
}

@test "an edited trusted comment fails both verifiers" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	"$SF_TOOL" sign -s "$T/k.key" -t "magus-release-index 0.1.0=linux/amd64" "$T/file"
	sed -i 's/^trusted comment: .*/trusted comment: magus-release-index 9.9.9=linux\/amd64/' \
		"$T/file.minisig"
	run minisign -V -p "$T/k.pub" -m "$T/file"
	assert_failure
	run "$SF_TOOL" verify -p "$T/k.pub" "$T/file"
	assert_failure
	assert_output --partial "trusted comment does not match"
}

@test "another key's signature fails both verifiers, naming the keys" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	minisign -G -W -p "$T/m.pub" -s "$T/m.key" >/dev/null
	minisign -S -s "$T/m.key" -m "$T/file" >/dev/null
	run minisign -V -p "$T/k.pub" -m "$T/file"
	assert_failure
	run "$SF_TOOL" verify -p "$T/k.pub" "$T/file"
	assert_failure
	local id
	id=$(head -n 1 "$T/k.pub" | awk '{ print $NF }')
	assert_output --partial "not by the trusted key $id"
}

@test "sign-index signs with the trusted comment the index names" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	printf 'x' >"$T/a.tar.gz"
	"$SF_TOOL" index -o "$T/index.json" 1.0.0 linux/arm64 a.tar.gz "$T/a.tar.gz"
	"$SF_TOOL" index -i "$T/index.json" -o "$T/index.json" 1.0.0 linux/amd64 \
		https://example.invalid/b.tar.gz "$T/a.tar.gz"
	run "$SF_TOOL" sign-index -s "$T/k.key" "$T/index.json"
	assert_success
	assert_output "trusted comment: magus-release-index 1.0.0=linux/amd64,linux/arm64"
	run minisign -V -p "$T/k.pub" -m "$T/index.json"
	assert_success
	assert_output --partial "Trusted comment: magus-release-index 1.0.0=linux/amd64,linux/arm64"
}

@test "keygen does not overwrite a key without -f, and the secret is private" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	run "$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key"
	assert_failure
	[ "$(stat -c %a "$T/k.key")" = 600 ]
	run "$SF_TOOL" keygen -f -p "$T/k.pub" -s "$T/k.key"
	assert_success
}
