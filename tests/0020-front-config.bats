#!/usr/bin/env bats
# magus.yaml, the user tier, the environment and the flags.

load lib/common

setup() {
	common_setup
	WS="$T/ws"
	mkdir -p "$WS"
	cd "$WS"
}
teardown() { common_teardown; }

user_config() {
	mkdir -p "$XDG_CONFIG_HOME/magus"
	cat >"$XDG_CONFIG_HOME/magus/config.yaml"
}

# The tree's state, to show a refusal wrote nothing.
snapshot() { (cd "$T" && find . -printf '%p %s %T@\n' | sort); }

@test "defaults show their origin as 'default'" {
	mkws "$WS" </dev/null
	run magus config list
	assert_success
	assert_line "default	sandbox.mode=off"
	assert_line "default	cache.dir=.magus"
	assert_line "default	output=text"
}

@test "a workspace value shows file and line" {
	mkws "$WS" <<-'EOF'
	# comment
	sandbox:
	  mode: best-effort
	cache:
	  dir: build/cache
	EOF
	run magus config list
	assert_success
	assert_line "file:$WS/magus.yaml:3	sandbox.mode=best-effort"
	assert_line "file:$WS/magus.yaml:5	cache.dir=build/cache"
}

@test "magus env is config list" {
	mkws "$WS" </dev/null
	run magus env
	assert_success
	assert_line "default	sandbox.mode=off"
}

@test "precedence: flag, then environment, then workspace, then user, then default" {
	user_config <<-'EOF'
	container:
	  api: unix:///user.sock
	cache:
	  dir: /user-cache
	EOF
	mkws "$WS" <<-'EOF'
	cache:
	  dir: ws-cache
	EOF
	run magus config list
	assert_line "file:$XDG_CONFIG_HOME/magus/config.yaml:2	container.api=unix:///user.sock"
	assert_line "file:$WS/magus.yaml:2	cache.dir=ws-cache"
	MAGUS_CONTAINER_API=unix:///env.sock MAGUS_CACHE_DIR=/env-cache run magus config list
	assert_line "env:MAGUS_CONTAINER_API	container.api=unix:///env.sock"
	assert_line "env:MAGUS_CACHE_DIR	cache.dir=/env-cache"
	MAGUS_CONTAINER_API=unix:///env.sock run magus --container-api unix:///flag.sock config list
	assert_line "flag:--container-api	container.api=unix:///flag.sock"
}

@test "container.api in the workspace tier is exit 2 naming the user tier" {
	mkws "$WS" <<-'EOF'
	container:
	  api: unix:///run/x.sock
	EOF
	local before; before=$(snapshot)
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1008
	[[ "$stderr" == *"magus.yaml:1"* ]]
	[[ "$stderr" == *"container"* ]]
	[[ "$stderr" == *"$XDG_CONFIG_HOME/magus/config.yaml"* ]]
	[ "$(snapshot)" = "$before" ]
}

@test "an unknown key is exit 2 naming file, line and key, with a suggestion" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  mode: off
	  alow: []
	EOF
	run --separate-stderr magus doctor
	[ "$status" -eq 2 ]
	assert_code MGS1005
	[[ "$stderr" == *"$WS/magus.yaml:3: key 'sandbox.alow'"* ]]
	[[ "$stderr" == *"did you mean 'sandbox.allow'"* ]]
	[ -z "$output" ]
}

@test "an unknown top-level key in the user tier names that file" {
	user_config <<-'EOF'
	contaner:
	  api: unix:///x
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1005
	[[ "$stderr" == *"config.yaml:1: key 'contaner'"* ]]
}

@test "a wrong type is exit 2 with MGS1006" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  allow: ro:/opt
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1006
	[[ "$stderr" == *"magus.yaml:2: key 'sandbox.allow'"* ]]
}

@test "a bad value is exit 2 with MGS1007" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  mode: strict
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1007
	[[ "$stderr" == *"'strict'"* ]]
}

@test "broken YAML is exit 2 with MGS1004 and the position" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  mode: "off
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1004
	[[ "$stderr" == *"$WS/magus.yaml:"* ]]
}

@test "a duplicate key is refused" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  mode: off
	  mode: required
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1004
	[[ "$stderr" == *"duplicate key"* ]]
}

@test "a top level that is not a mapping is refused" {
	printf -- '- a\n- b\n' >"$WS/magus.yaml"
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1006
}

@test "sandbox entries: short or unterminated passthrough prefixes are MGS2004" {
	for p in 'M*' 'AB*' 'ABC*' 'A-B'; do
		mkws "$WS" <<-EOF
		sandbox:
		  env:
		    passthrough: ["$p"]
		EOF
		run --separate-stderr magus config list
		[ "$status" -eq 2 ] || fail "pattern $p accepted"
		assert_code MGS2004
	done
	mkws "$WS" <<-'EOF'
	sandbox:
	  env:
	    passthrough: ["MISE_*", GOPATH]
	EOF
	run magus config list
	assert_success
	assert_line "file:$WS/magus.yaml:3	sandbox.env.passthrough=MISE_*"
}

@test "sandbox entries: a relative allow path or an unknown mode is MGS2004" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  allow:
	    - path: relative/dir
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS2004
	mkws "$WS" <<-'EOF'
	sandbox:
	  allow:
	    - {path: /opt, mode: wx}
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS2004
	[[ "$stderr" == *"'wx'"* ]]
	mkws "$WS" <<-'EOF'
	sandbox:
	  allow:
	    - {path: ~/.cache/x, mode: rw}
	    - {path: /opt}
	EOF
	run magus config list
	assert_success
	assert_line "file:$WS/magus.yaml:3	sandbox.allow=rw:~/.cache/x"
	assert_line "file:$WS/magus.yaml:4	sandbox.allow=ro:/opt"
}

@test "targets: run as a string or a list; unknown deps are MGS1013" {
	mkws "$WS" <<-'EOF'
	targets:
	  build:
	    run: make -j2
	  test:
	    run: [sh, -c, "echo hi"]
	    deps: [build]
	EOF
	run magus config list
	assert_success
	assert_line "file:$WS/magus.yaml:2	targets.build.run=make -j2"
	assert_line "file:$WS/magus.yaml:4	targets.test.run=sh -c echo hi"
	mkws "$WS" <<-'EOF'
	targets:
	  test:
	    run: "true"
	    deps: [biuld]
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1013
	[[ "$stderr" == *"'biuld'"* ]]
}

@test "targets: a target without run, or a weaker per-target sandbox, is refused" {
	mkws "$WS" <<-'EOF'
	targets:
	  t:
	    deps: []
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1007
	mkws "$WS" <<-'EOF'
	sandbox:
	  mode: required
	targets:
	  t:
	    run: "true"
	    sandbox: best-effort
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1007
	[[ "$stderr" == *"weaker"* ]]
}

@test "platform images must be pinned and may not set MAGUS_*" {
	mkws "$WS" <<-'EOF'
	platform:
	  images:
	    linux: {ref: "busybox:latest"}
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1007
	[[ "$stderr" == *"busybox:latest"* ]]
	mkws "$WS" <<-'EOF'
	platform:
	  images:
	    linux:
	      ref: "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	      env: {MAGUS_SANDBOX: "off"}
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1007
	[[ "$stderr" == *"MAGUS_SANDBOX"* ]]
}

@test "indexers: the bounds are required numbers" {
	mkws "$WS" <<-'EOF'
	indexers:
	  - project: svc/api
	    tool: scip-go
	    image: "x@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	    cpus: 1
	    pids: 256
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1007
	[[ "$stderr" == *"memory_mb"* ]]
	sed -i 's/    cpus: 1/    memory_mb: "768"\n    cpus: 1/' "$WS/magus.yaml"
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1006
	sed -i 's/"768"/768/' "$WS/magus.yaml"
	run magus config list
	assert_success
	assert_output --partial "indexers.svc/api=tool=scip-go"
}

@test "MAGUS_SANDBOX is a floor: a weaker flag is MGS2010" {
	mkws "$WS" </dev/null
	MAGUS_SANDBOX=required run --separate-stderr magus --sandbox=best-effort config list
	[ "$status" -eq 2 ]
	assert_code MGS2010
}

@test "MAGUS_SANDBOX raises a weaker workspace mode and never lowers a stronger one" {
	mkws "$WS" <<-'EOF'
	sandbox:
	  mode: best-effort
	EOF
	MAGUS_SANDBOX=required run magus config list
	assert_line "env:MAGUS_SANDBOX	sandbox.mode=required"
	MAGUS_SANDBOX=off run magus config list
	assert_line "file:$WS/magus.yaml:2	sandbox.mode=best-effort"
	MAGUS_SANDBOX=best-effort run magus --sandbox=required config list
	assert_line "flag:--sandbox	sandbox.mode=required"
}

@test "an unknown MAGUS_SANDBOX value is refused naming the variable" {
	mkws "$WS" </dev/null
	MAGUS_SANDBOX=strict run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	[[ "$stderr" == *MAGUS_SANDBOX* ]]
}

@test "--config FILE is read in place of magus.yaml; a missing one is MGS1003" {
	cat >"$T/alt.yaml" <<-'EOF'
	sandbox:
	  mode: required
	EOF
	run magus --config "$T/alt.yaml" config list
	assert_success
	assert_line "file:$T/alt.yaml:2	sandbox.mode=required"
	run --separate-stderr magus --config "$T/missing.yaml" config list
	[ "$status" -eq 2 ]
	assert_code MGS1003
}

@test "-o json lists each value as a JSON line" {
	mkws "$WS" </dev/null
	run magus -o json config list
	assert_success
	assert_line '{"key":"sandbox.mode","value":"off","origin":"default"}'
}

@test "a refusal writes nothing" {
	mkws "$WS" <<-'EOF'
	cache: {dir: c}
	bogus: 1
	EOF
	local before; before=$(snapshot)
	run magus doctor
	[ "$status" -eq 2 ]
	[ "$(snapshot)" = "$before" ]
}

@test "a dependency cycle is exit 2 with MGS1014 printing the cycle" {
	mkws "$WS" <<-'EOF'
	targets:
	  a: {run: "true", deps: [b]}
	  b: {run: "true", deps: [c]}
	  c: {run: "true", deps: [a]}
	  d: {run: "true", deps: [d]}
	EOF
	run --separate-stderr magus config list
	[ "$status" -eq 2 ]
	assert_code MGS1014
	[[ "$stderr" == *"a -> b -> c -> a"* ]]
	mkws "$WS" <<-'EOF'
	targets:
	  a: {run: "true", deps: [b, c]}
	  b: {run: "true", deps: [c]}
	  c: {run: "true"}
	EOF
	run magus config list
	assert_success
}
