#!/usr/bin/env bats
# magus-relay's usage and man page, and the front's --platform: the host's
# own platform changes nothing; another is handed to magus-relay with the
# crossing global flags (no engine is needed to see that: the relay's
# refusals before the socket say what it was given).

load lib/common
load lib/relay

setup() { common_setup; }
teardown() { common_teardown; }

@test "usage mirrors the SYNOPSIS of magus-relay(1), and the page is lint-clean" {
	run "$RELAY" --help
	assert_success
	local usage man
	# The usage's continuation lines (indented, starting with '[') join
	# their form, as the man page's lines do.
	usage=$(printf '%s\n' "$output" | sed '/^$/,$d' |
		sed -e 's/^usage: //' -e 's/^ *//' |
		awk '/^\[/ { line = line " " $0; next } { if (line != "") print line; line = $0 } END { print line }' |
		tr -s ' ')
	man=$(mandoc -T ascii -O width=200 "$MAGUS_SRC_DIR/man/magus-relay.1" |
		sed 's/.\x08//g' | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' |
		sed -e '1d' -e '$d' -e 's/^ *//' | sed '/^$/d' | tr -s ' ')
	[ "$usage" = "$man" ] || fail "usage: [$usage] man: [$man]"
	run mandoc -T lint -W warning "$MAGUS_SRC_DIR/man/magus-relay.1"
	assert_success
	assert_output ""
}

@test "magus-relay refuses a command line without --platform, --root or a verb (exit 2)" {
	mkws "$T/ws" </dev/null
	run --separate-stderr "$RELAY" --root "$T/ws" -- run x
	assert_equal "$status" 2
	assert_code MGS1002
	run --separate-stderr "$RELAY" --platform linux/amd64 -- run x
	assert_equal "$status" 2
	run --separate-stderr "$RELAY" --platform linux/amd64 --root "$T/ws" --bogus -- run x
	assert_equal "$status" 2
	assert_code MGS1002
}

@test "magus --platform with the host's own platform runs the verb here, silently" {
	mkws "$T/ws" <<-'EOF'
	targets:
	  here:
	    run: ["sh", "-c", "echo ran-here; exit 5"]
	EOF
	cd "$T/ws"
	run --separate-stderr magus --platform "$RELAY_PLATFORM" run here
	assert_equal "$status" 5
	assert_output "ran-here"
	assert_equal "$stderr" ""
}

@test "magus --platform with another platform execs magus-relay with the crossing flags" {
	other=linux/arm64
	[ "$HOST_ARCH" != arm64 ] || other=linux/amd64
	mkws "$T/ws" <<-'EOF'
	platform:
	  images:
	    linux: {ref: "localhost/x@sha256:0000000000000000000000000000000000000000000000000000000000000000"}
	EOF
	mkdir -p "$T/ws/sub"
	cd "$T/ws/sub"
	export MAGUS_CONTAINER_API=unix://$T/nobody.sock
	# A verb that reads is refused by the relay, before any socket.
	run --separate-stderr magus --platform "$other" doctor
	assert_equal "$status" 2
	assert_code MGS3035
	[[ $stderr == "magus-relay: "* ]] || fail "not the relay's refusal: $stderr"
	# -C crosses as typed and is checked against the root.
	run --separate-stderr magus -C /tmp --root "$T/ws" --platform "$other" run x
	assert_equal "$status" 2
	assert_code MGS3036
	[[ $stderr == *"-C '/tmp'"* ]]
	# No inner magus for that platform: the command that fetches one.
	run --separate-stderr magus --platform "$other" run x
	assert_equal "$status" 2
	assert_code MGS3040
	[[ $stderr == *"magus self fetch $other"* ]]
	# Bare linux never reaches the relay.
	run --separate-stderr magus --platform linux run x
	assert_equal "$status" 2
	[[ $stderr == *"linux/$HOST_ARCH"* ]]
}
