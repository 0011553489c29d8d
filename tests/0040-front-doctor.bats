#!/usr/bin/env bats
# magus doctor: the host, the workspace, the configuration; nothing remote.

load lib/common

setup() { common_setup; }
teardown() { common_teardown; }

# The kernel's Landlock ABI, asked directly with the syscall.
kernel_abi() {
	cat >"$T/abi.c" <<-'EOC'
	#include <stdio.h>
	#include <unistd.h>
	#include <sys/syscall.h>
	int main(void) {
		long v = syscall(444, NULL, 0, 1U);
		printf("%ld\n", v < 0 ? 0 : v);
		return 0;
	}
	EOC
	${CC:-cc} -o "$T/abi" "$T/abi.c" && "$T/abi"
}

@test "doctor reports version, exec path, workspace and config files" {
	mkws "$T/ws" <<-'EOF'
	sandbox: {mode: best-effort}
	EOF
	run magus -C "$T/ws" doctor
	assert_success
	assert_line --index 0 --regexp '^magus [0-9]+\.'
	assert_line "exec path:      $MAGUS_EXEC_PATH"
	assert_line "workspace:      $T/ws"
	assert_line "config files:   $T/ws/magus.yaml (read)"
	assert_line --partial "$XDG_CONFIG_HOME/magus/config.yaml (not present)"
	assert_line --partial "sandbox.mode:   best-effort (file:$T/ws/magus.yaml:1)"
}

@test "doctor outside a workspace says so" {
	run magus -C "$T" doctor
	assert_success
	assert_line --partial "workspace:      none"
}

@test "doctor's Landlock ABI is the kernel's" {
	local abi used
	abi=$(kernel_abi)
	run magus doctor
	assert_success
	if [ "$abi" -gt 0 ]; then
		used=$((abi > 7 ? 7 : abi))
		assert_line --partial "ABI $abi found, ABI $used used"
	else
		assert_line --partial "landlock:       none"
	fi
}

@test "doctor says what each sandbox mode would do here" {
	local abi
	abi=$(kernel_abi)
	run magus doctor
	assert_line --regexp '^  off +runs commands unconfined'
	if [ "$abi" -ge 3 ]; then
		assert_line --regexp "^  required +runs confined at Landlock ABI"
	else
		assert_line --regexp '^  required +refuses to run \(MGS2012\)'
	fi
}

@test "doctor shows container.api as configured without connecting" {
	mkdir -p "$XDG_CONFIG_HOME/magus"
	echo 'container: {api: "unix:///nonexistent/engine.sock"}' \
		>"$XDG_CONFIG_HOME/magus/config.yaml"
	run magus doctor
	assert_success
	assert_line --partial "container.api:  unix:///nonexistent/engine.sock (file:"
	skip_unless "strace is not installed" command -v strace
	# LeakSanitizer cannot run under ptrace; the leak check is not the point here.
	ASAN_OPTIONS=detect_leaks=0 run strace -f -e trace=connect,socket -o "$T/trace" magus doctor
	assert_success
	run grep -E 'connect\(|socket\(' "$T/trace"
	refute_output
}

@test "doctor -o json is one JSON object on stdout" {
	run --separate-stderr magus -o json doctor
	assert_success
	[[ "$output" == '{"version":"'* ]]
	[[ "$output" == *'"landlock":{"abi_found":'* ]]
	[[ "$output" == *'"sandbox_modes":{"off":'* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "doctor takes no arguments" {
	run --separate-stderr magus doctor extra
	[ "$status" -eq 2 ]
	assert_code MGS1002
}
