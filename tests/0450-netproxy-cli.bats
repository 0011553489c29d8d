#!/usr/bin/env bats
# magus-sandbox-exec --network proxy: the input it refuses before
# anything starts, what --print-policy says, the variables the command
# gets, and a proxy that cannot start.

load lib/common
load lib/sandbox

setup() { sandbox_setup; }
teardown() { sandbox_teardown; }

# sbx, with the exec path where magus-egress is.
psbx() {
	SBX_ENV="MAGUS_EXEC_PATH=$MAGUS_EXEC_PATH ${SBX_ENV:-}" sbx "$@"
}

@test "each malformed --egress-allow: exit 2, MGS2004 naming it, nothing ran" {
	local e
	for e in example.com 'example.com:*' '*.example.com' 'exa mple.com:80' \
		':80' 'a.example:0' 'a.example:65536' 'a.example:http' \
		'10.0.0.0/33:80' '[::1:80' '::1:80' '*:443' ''; do
		# A good entry first: the list is refused whole, never in part.
		run --separate-stderr sbx --mode required --network proxy \
			--egress-allow ok.example:443 --egress-allow "$e" -- \
			touch "$WS/ran"
		[ "$status" = 2 ] || fail "'$e': exit $status"
		assert_code MGS2004
		[[ "$stderr" == *"'$e'"* ]] || fail "'$e' not named: $stderr"
		[ ! -e "$WS/ran" ]
	done
}

@test "--egress-allow and --egress-log need --network proxy: exit 2" {
	run --separate-stderr sbx --mode required --egress-allow a.example:443 -- true
	assert_failure 2
	assert_code MGS1002
	run --separate-stderr sbx --mode required --network none --egress-log "$T/log" -- true
	assert_failure 2
	assert_code MGS1002
	run --separate-stderr sbx --mode required --network proxies -- true
	assert_failure 2
	assert_code MGS1002
}

@test "print-policy: the namespace, the port rule, the list; nothing is started" {
	need_abi 4
	run --separate-stderr sbx --mode required --network proxy \
		--egress-allow a.example:443 --egress-allow '*.b.example:80' \
		--print-policy -- true
	assert_success
	assert_line --regexp '^network +proxy: a new network namespace with loopback only'
	assert_line --regexp "^ +tcp: connect only to the forwarder's port, bind denied$"
	assert_line --regexp '^egress allow +a\.example:443 \*\.b\.example:80$'
	assert_line --regexp '^env .* HTTPS_PROXY HTTP_PROXY https_proxy http_proxy NO_PROXY no_proxy$'
	SBX_ENV=MAGUS_OUTPUT=json run --separate-stderr sbx --mode required \
		--network proxy --egress-allow a.example:443 --print-policy -- true
	assert_success
	[ "$(jq -c .network <<<"$output")" = \
		'{"mode":"proxy","denied":["bind_tcp","connect_tcp"],"namespace":"direct","port_rule":true,"allow":["a.example:443"],"log":null}' ]
	# Below ABI 4 the port rule is gone and the namespace stays.
	SBX_ENV=MAGUS_LANDLOCK_ABI_MAX=3 run --separate-stderr sbx --mode required \
		--network proxy --print-policy -- true
	assert_success
	assert_line --regexp '^ +tcp: the port rule is not enforced \(needs ABI 4\); the namespace holds$'
}

@test "the command's proxy variables point at the forwarder; the caller's never pass" {
	SBX_ENV="HTTPS_PROXY=http://evil.example:1 NO_PROXY=* no_proxy=* http_proxy=http://evil.example:1" \
		run --separate-stderr psbx --mode required --network proxy \
		--passthrough HTTPS_PROXY --passthrough NO_PROXY \
		--passthrough 'no_*' --passthrough http_proxy -- \
		/bin/sh -c 'for v in HTTPS_PROXY HTTP_PROXY https_proxy http_proxy; do
			eval "echo $v=\$$v"; done; echo "NO_PROXY=[$NO_PROXY] no_proxy=[$no_proxy]"'
	assert_success
	refute_output --partial evil
	local port
	port=$(sed -n 's|^HTTPS_PROXY=http://127\.0\.0\.1:\([0-9]*\)$|\1|p' <<<"$output")
	[ -n "$port" ] && [ "$port" != 65535 ]
	assert_line "HTTP_PROXY=http://127.0.0.1:$port"
	assert_line "https_proxy=http://127.0.0.1:$port"
	assert_line "http_proxy=http://127.0.0.1:$port"
	assert_line "NO_PROXY=[] no_proxy=[]"
}

@test "the command has loopback and nothing else" {
	run --separate-stderr psbx --mode required --network proxy -- \
		/bin/cat /proc/net/dev
	assert_success
	[ "$(tail -n +3 <<<"$output" | awk -F: '{gsub(/ /, "", $1); print $1}')" = lo ]
}

@test "no magus-egress in the exec path: MGS2020, exit 71, nothing ran" {
	mkdir "$T/empty"
	SBX_ENV="MAGUS_EXEC_PATH=$T/empty" run --separate-stderr sbx \
		--mode required --network proxy -- touch "$WS/ran"
	assert_failure 71
	assert_code MGS2020
	[ ! -e "$WS/ran" ]
}

@test "a proxy that stops before it is ready: its own diagnostic, then MGS2020, nothing ran" {
	mkdir "$T/logdir"
	run --separate-stderr psbx --mode required --network proxy --egress-log "$T/logdir" -- \
		touch "$WS/ran"
	assert_failure 71
	assert_code MGS7004
	[[ "$stderr" == *MGS2020* ]]
	[ ! -e "$WS/ran" ]
}

@test "the command inherits no descriptor of the proxy's machinery" {
	run sbx --mode off -- /bin/ls /proc/self/fd
	assert_success
	local unconfined=$output
	run --separate-stderr psbx --mode required --network proxy -- /bin/ls /proc/self/fd
	assert_success
	[ "$output" = "$unconfined" ]
}
