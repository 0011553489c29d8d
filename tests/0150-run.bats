#!/usr/bin/env bats
# magus run TARGET [-- ARG...]: targets of magus.yaml, deps first, each
# through magus-sandbox-exec with a private temp dir.

load lib/common
load lib/sandbox

setup() {
	sandbox_setup
	export PATH="$MAGUS_BUILD_DIR/bin-wrappers:$SBX_PATH"
}
teardown() { sandbox_teardown; }

@test "a string target runs through /bin/sh -c in the workspace root" {
	mkws "$WS" <<-'EOF'
	targets:
	  hello: {run: 'echo "hello from $0 in $(pwd)"'}
	EOF
	mkdir -p "$WS/sub"
	cd "$WS/sub"
	run --separate-stderr magus run hello
	assert_success
	assert_output "hello from hello in $WS"
}

@test "a list target is the argument vector; ARGs go to the invoked target only" {
	mkws "$WS" <<-'EOF'
	targets:
	  dep: {run: [/bin/sh, -c, 'echo "dep:$#"', dep]}
	  top: {run: [/bin/sh, -c, 'echo "top:$*"', top], deps: [dep]}
	  str: {run: 'echo str', deps: [dep]}
	EOF
	run --separate-stderr magus run top -- a 'b c'
	assert_success
	assert_line --index 0 "dep:0"
	assert_line --index 1 "top:a b c"
	run --separate-stderr magus run str -- 'x y' z
	assert_success
	assert_line --index 1 "str x y z"
}

@test "deps run first, in order, each once" {
	mkws "$WS" <<-'EOF'
	targets:
	  a: {run: 'echo a >>order'}
	  b: {run: 'echo b >>order', deps: [a]}
	  c: {run: 'echo c >>order', deps: [a]}
	  all: {run: 'echo all >>order', deps: [b, c, a]}
	EOF
	run --separate-stderr magus run all
	assert_success
	[ "$(cat "$WS/order" | tr '\n' ' ')" = "a b c all " ]
}

@test "the target's exit status passes through; the first failing dep stops the run" {
	mkws "$WS" <<-'EOF'
	targets:
	  three: {run: 'exit 3'}
	  after: {run: 'touch ran', deps: [three]}
	  seven: {run: 'exit 7'}
	EOF
	run --separate-stderr magus run seven
	[ "$status" -eq 7 ]
	run --separate-stderr magus run after
	[ "$status" -eq 3 ]
	[ ! -e "$WS/ran" ]
	[[ "$stderr" == *"'three' failed with status 3"* ]]
}

@test "targets run in the sandbox with a private temp dir, removed afterwards" {
	mkws "$WS" <<-'EOF'
	sandbox: {mode: required}
	targets:
	  peek: {run: 'echo "$TMPDIR" >tmpname; echo "$MAGUS_SANDBOX"; cat ~/.ssh/id_rsa; echo secret:$AWS_SECRET_ACCESS_KEY'}
	EOF
	AWS_SECRET_ACCESS_KEY=$SECRET run --separate-stderr magus run peek
	assert_success
	assert_line --index 0 required
	assert_line "secret:"
	[[ "$output" != *"$SECRET"* ]]
	[[ "$stderr" == *"Permission denied"* ]]
	tmp=$(cat "$WS/tmpname")
	[[ "$tmp" == */magus-run.* ]]
	[ ! -e "$tmp" ]
}

@test "a target's sandbox strengthens the workspace's; allow entries add up" {
	mkdir -p "$OUT/cache"
	echo cached >"$OUT/cache/f"
	mkws "$WS" <<-EOF
	sandbox: {mode: best-effort, allow: [{path: $OUT/cache, mode: ro}]}
	targets:
	  soft: {run: 'echo \$MAGUS_SANDBOX; cat $OUT/cache/f'}
	  hard: {run: 'echo \$MAGUS_SANDBOX', sandbox: required}
	  net: {run: '$WS/probe tcp-bind', sandbox: {mode: required, network: none}}
	EOF
	run --separate-stderr magus run soft
	assert_success
	assert_output "best-effort
cached"
	run --separate-stderr magus run hard
	assert_success
	assert_output required
	if [ "$ABI" -ge 4 ]; then
		run --separate-stderr magus run net
		assert_output EACCES
	fi
}

@test "--sandbox=required as a global flag reaches the target; a weaker one than the floor is MGS2010" {
	mkws "$WS" <<-'EOF'
	targets:
	  mode: {run: 'echo $MAGUS_SANDBOX'}
	EOF
	run --separate-stderr magus --sandbox=required run mode
	assert_success
	assert_output required
	MAGUS_SANDBOX=required run --separate-stderr magus --sandbox=off run mode
	[ "$status" -eq 2 ]
	assert_code MGS2010
}

@test "an unknown target: MGS1013, exit 2, with a did-you-mean, nothing runs" {
	mkws "$WS" <<-'EOF'
	targets:
	  build: {run: 'touch ran'}
	EOF
	run --separate-stderr magus run biuld
	[ "$status" -eq 2 ]
	assert_code MGS1013
	[[ "$stderr" == *"'biuld'"* ]]
	[[ "$stderr" == *"did you mean 'build'?"* ]]
	[ ! -e "$WS/ran" ]
}

@test "a dependency cycle: MGS1014, exit 2, the cycle named, nothing runs" {
	mkws "$WS" <<-'EOF'
	targets:
	  a: {run: 'touch ran', deps: [b]}
	  b: {run: 'touch ran', deps: [a]}
	EOF
	run --separate-stderr magus run a
	[ "$status" -eq 2 ]
	assert_code MGS1014
	[[ "$stderr" == *"a -> b -> a"* || "$stderr" == *"b -> a -> b"* ]]
	[ ! -e "$WS/ran" ]
}

@test "an unknown dep: MGS1013 at load time, nothing runs" {
	mkws "$WS" <<-'EOF'
	targets:
	  a: {run: 'touch ran', deps: [nope]}
	EOF
	run --separate-stderr magus run a
	[ "$status" -eq 2 ]
	assert_code MGS1013
	[ ! -e "$WS/ran" ]
}

@test "no workspace: MGS1015, exit 2" {
	cd "$T"
	run --separate-stderr magus run build
	[ "$status" -eq 2 ]
	assert_code MGS1015
}

@test "usage errors: no target, a stray argument, an unknown option" {
	mkws "$WS" <<-'EOF'
	targets:
	  a: {run: 'touch ran'}
	EOF
	run --separate-stderr magus run
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus run a b
	[ "$status" -eq 2 ]
	assert_code MGS1002
	run --separate-stderr magus run --sandbox=off a
	[ "$status" -eq 2 ]
	assert_code MGS1002
	[[ "$stderr" == *"global flags must precede the verb"* ]]
	[ ! -e "$WS/ran" ]
}

@test "a bad allow entry in magus.yaml stops the run with MGS2004" {
	mkws "$WS" <<-EOF
	sandbox: {mode: best-effort, allow: [{path: $T/missing, mode: ro}]}
	targets:
	  a: {run: 'touch ran'}
	EOF
	run --separate-stderr magus run a
	[ "$status" -eq 2 ]
	assert_code MGS2004
	[ ! -e "$WS/ran" ]
}
