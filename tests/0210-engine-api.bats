#!/usr/bin/env bats
# Each Engine API call of lib/engine.h against the real test engine
# (podman's Docker-compatible service): versions, info, images, the
# container life cycle, kill, resize, delete, lists by label, volumes, a
# pull failing inside its 200 stream, mount sources, and an OOM kill read
# from inspect.

load lib/common
load lib/engine

setup_file() { engine_up; }
teardown_file() { engine_down; }
setup() { common_setup; engine_require; }
teardown() { engine_cleanup; common_teardown; }

@test "ping negotiates API 1.41 and /version names the engine" {
	run engine_cli ping
	assert_success
	assert_line "used=1.41"
	assert_line "api=1.41"
	assert_line "name=Podman Engine"
	assert_line "os=linux"
}

@test "info reports SecurityOptions; a rootful engine is not rootless" {
	run engine_cli info
	assert_success
	assert_line "rootless=no"
	assert_line --regexp '^security_option=name=seccomp'
	run --separate-stderr engine_cli info --require-rootless
	assert_equal "$status" 71
	assert_code MGS3034
	[[ $stderr == *'SecurityOptions is ["name=seccomp'* ]]
}

@test "image inspect gives os, architecture, digest and Config.Env" {
	run engine_cli image-inspect "$ENGINE_IMAGE"
	assert_success
	assert_line "os=linux"
	assert_line "arch=amd64"
	assert_line "variant="
	assert_line --regexp '^digest=localhost/magus-test@sha256:[0-9a-f]{64}$'
	assert_line --regexp '^env=PATH=/usr/local/sbin:'
	assert_line "cmd=/bin/sh"
}

@test "an absent image: exit 71, MGS3005, naming it" {
	run --separate-stderr engine_cli image-inspect localhost/no-such-image:1
	assert_equal "$status" 71
	assert_code MGS3005
	[[ $stderr == *"'localhost/no-such-image:1'"* ]]
	engine_body 'true' | sed 's|localhost/magus-test:1|localhost/no-such-image:1|' >"$T/body"
	run --separate-stderr engine_cli create "$T/body"
	assert_equal "$status" 71
	assert_code MGS3005
	assert_equal "$(engine_containers)" ""
}

@test "a pull that fails inside the engine's 200 stream: MGS3033" {
	# No registry answers on port 1: podman says so inside a 200.
	run --separate-stderr engine_cli image-pull localhost:1/nope:1
	assert_equal "$status" 71
	assert_code MGS3033
	[[ $stderr == *"localhost:1"* ]]
	[[ $stderr == *"(HTTP 200)"* ]]
}

@test "create, start, wait and inspect one container" {
	engine_body 'echo hi; exit 3' '"Env":["GREETING=hello"]' >"$T/body"
	run engine_cli create "$T/body"
	assert_success
	id=${lines[-1]}
	[[ $id =~ ^[0-9a-f]{64}$ ]]
	run engine_cli inspect "$id"
	assert_line "status=created"
	assert_line "running=0"
	assert_line "env=GREETING=hello"
	assert_line "label=$ENGINE_LABEL"
	run engine_cli start "$id"
	assert_success
	run engine_cli wait "$id"
	assert_success
	assert_line "status=3"
	run engine_cli inspect "$id"
	assert_line "status=exited"
	assert_line "exit_code=3"
	assert_line "oom_killed=0"
	assert_line "pid=0"
	# Starting a started container again is not an error (304).
	run engine_cli start "$id"
	assert_success
}

@test "kill by signal name: TERM through the init is 143; a stopped one is a conflict" {
	engine_body 'sleep 60' >"$T/body"
	id=$(engine_cli create "$T/body")
	engine_cli start "$id"
	run engine_cli kill "$id" TERM
	assert_success
	run engine_cli wait "$id"
	assert_line "status=143"
	# podman says 500 where Docker says 409: both are a conflict.
	run --separate-stderr engine_cli kill "$id" TERM
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"kind: conflict"* ]]
	run --separate-stderr engine_cli kill "$id" NOPE
	assert_equal "$status" 71
	assert_code MGS3006
}

@test "resize reaches a TTY container's terminal" {
	engine_body 'for i in $(seq 200); do [ "$(stty size)" = "33 77" ] && echo resized && exit 0; sleep 0.05; done; stty size; exit 1' \
		'"Tty":true' >"$T/body"
	run engine_cli run "$T/body" --tty --resize 33x77
	assert_success
	assert_output --partial resized
}

@test "delete: force removes a running one; a second delete is not found" {
	engine_body 'sleep 60' >"$T/body"
	id=$(engine_cli create "$T/body")
	engine_cli start "$id"
	run --separate-stderr engine_cli rm "$id"
	assert_equal "$status" 71
	[[ $stderr == *"kind: conflict"* ]]
	run engine_cli rm "$id" --force --volumes
	assert_success
	run --separate-stderr engine_cli rm "$id" --force
	assert_equal "$status" 71
	assert_code MGS3006
	[[ $stderr == *"kind: notfound"* ]]
	assert_equal "$(engine_containers)" ""
}

@test "list by label: only what carries every label, running or not" {
	engine_body 'true' >"$T/body"
	a=$(engine_cli create "$T/body")
	engine_body 'true' '' '' '"magus.use":"relay"' >"$T/body2"
	b=$(engine_cli create "$T/body2")
	engine_cli start "$a"
	engine_cli wait "$a" >/dev/null
	run engine_containers
	assert_equal "$(sort <<<"$output")" "$(printf '%s\n' "$a" "$b" | sort)"
	run engine_containers "$ENGINE_LABEL" magus.use=relay
	assert_output "$b"
	run engine_containers "$ENGINE_LABEL" magus.use
	assert_output "$b"
	run engine_containers "$ENGINE_LABEL" magus.use=scip
	assert_output ""
}

@test "volumes: create with labels, list by label, delete" {
	name=magus-test-vol-$$-$BATS_TEST_NUMBER
	run engine_cli volume-create "$name" "$ENGINE_LABEL" magus.use=relay
	assert_success
	assert_output "$name"
	run engine_volumes
	assert_output "$name"
	run engine_volumes "$ENGINE_LABEL" magus.use=relay
	assert_output "$name"
	run engine_cli volumes "$ENGINE_LABEL"
	assert_output "$name $ENGINE_LABEL magus.use=relay"
	# Several labels select the volumes carrying all of them, even where
	# the engine (podman 4.3) answers with those carrying any.
	engine_cli volume-create "$name-use" "$ENGINE_LABEL" magus.use=scip
	engine_cli volume-create "$name-other" "${ENGINE_LABEL}x" magus.use=relay
	engine_volumes "$ENGINE_LABEL" magus.use=relay >"$T/both"
	# A key alone matches any value.
	engine_volumes "${ENGINE_LABEL%%=*}" magus.use=relay >"$T/key"
	engine_cli volume-rm "$name-other"
	engine_cli volume-rm "$name-use"
	run cat "$T/both"
	assert_output "$name"
	run cat "$T/key"
	assert_line "$name"
	assert_line "$name-other"
	refute_line "$name-use"
	# In use: a conflict.
	engine_body 'sleep 60' '' '"Mounts":[{"Type":"volume","Source":"'"$name"'","Target":"/home/user","ReadOnly":false}]' >"$T/body"
	id=$(engine_cli create "$T/body")
	engine_cli start "$id"
	run --separate-stderr engine_cli volume-rm "$name"
	assert_equal "$status" 71
	[[ $stderr == *"kind: conflict"* ]]
	engine_cli rm "$id" --force
	run engine_cli volume-rm "$name"
	assert_success
	assert_equal "$(engine_volumes)" ""
	run --separate-stderr engine_cli volume-rm "$name"
	assert_equal "$status" 71
	[[ $stderr == *"kind: notfound"* ]]
}

@test "a missing bind source is refused before create, and not created (MGS3007)" {
	engine_body 'true' '' '"Mounts":[{"Type":"bind","Source":"'"$T"'/absent","Target":"/x","ReadOnly":true}]' >"$T/body"
	run --separate-stderr engine_cli create "$T/body"
	assert_equal "$status" 71
	assert_code MGS3007
	[[ $stderr == *"'$T/absent'"* ]]
	[ ! -e "$T/absent" ]
	assert_equal "$(engine_containers)" ""
}

@test "a bind source gone between create and start: the engine's words map to MGS3007" {
	mkdir "$T/src"
	engine_body 'true' '' '"Mounts":[{"Type":"bind","Source":"'"$T"'/src","Target":"/x","ReadOnly":true}]' >"$T/body"
	id=$(engine_cli create "$T/body")
	rmdir "$T/src"
	run --separate-stderr engine_cli start "$id"
	assert_equal "$status" 71
	assert_code MGS3007
	[[ $stderr == *"'$T/src'"* ]]
}

@test "a create request using Binds is refused: it would create a missing source" {
	engine_body 'true' '' '"Binds":["'"$T"':/x:ro"]' >"$T/body"
	run --separate-stderr engine_cli create "$T/body"
	assert_equal "$status" 71
	[[ $stderr == *"HostConfig.Binds"* ]]
	assert_equal "$(engine_containers)" ""
}

@test "an OOM kill is read from inspect (MGS3008), a plain SIGKILL is not one" {
	engine_body 'dd if=/dev/zero of=/dev/null bs=64M count=1' '' \
		'"Memory":16777216,"MemorySwap":16777216' >"$T/body"
	run --separate-stderr engine_cli -v run "$T/body" --keep
	assert_equal "$status" 71
	assert_code MGS3008
	[[ $stderr == *"status=137"* ]]
	id=$(engine_containers)
	run engine_cli inspect "$id"
	assert_line "oom_killed=1"
	assert_line "exit_code=137"
	# The same 137 from a SIGKILL: passed through, no OOM.
	engine_body 'kill -KILL $$' >"$T/body"
	run --separate-stderr engine_cli -v run "$T/body"
	assert_equal "$status" 137
	[[ $stderr == *"oom=0"* ]]
	[[ $stderr != *MGS3008* ]]
}
