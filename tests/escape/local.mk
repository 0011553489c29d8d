# The sandbox escape suite: attack programs (tests/escape/esc-*), the bats
# suites that run each attack inside magus-sandbox-exec, the demo
# workspace and the benchmark.  Included from the top Makefile.am after
# tests/local.mk.
ESCAPE_COMMON = tests/escape/escape.h
check_PROGRAMS += tests/escape/esc-file tests/escape/esc-ipc \
	tests/escape/esc-net tests/escape/esc-priv tests/escape/esc-env \
	tests/escape/esc-abi
tests_escape_esc_file_SOURCES = tests/escape/esc-file.c $(ESCAPE_COMMON)
tests_escape_esc_ipc_SOURCES = tests/escape/esc-ipc.c $(ESCAPE_COMMON)
tests_escape_esc_net_SOURCES = tests/escape/esc-net.c $(ESCAPE_COMMON)
tests_escape_esc_priv_SOURCES = tests/escape/esc-priv.c $(ESCAPE_COMMON)
tests_escape_esc_env_SOURCES = tests/escape/esc-env.c
tests_escape_esc_abi_SOURCES = tests/escape/esc-abi.c

ESCAPE_TESTS = \
	tests/0170-sandbox-escape-files.bats \
	tests/0172-sandbox-escape-truncate.bats \
	tests/0174-sandbox-escape-exec.bats \
	tests/0176-sandbox-escape-proc.bats \
	tests/0178-sandbox-escape-ipc.bats \
	tests/0180-sandbox-escape-network.bats \
	tests/0182-sandbox-escape-privileges.bats \
	tests/0184-sandbox-escape-env.bats \
	tests/0186-sandbox-escape-tty.bats \
	tests/0190-sandbox-build.bats \
	tests/0199-sandbox-demo.bats
dist_check_SCRIPTS += $(ESCAPE_TESTS)
TESTS += $(ESCAPE_TESTS)
EXTRA_DIST += tests/lib/escape.bash
EXTRA_DIST += examples/demo/magus.yaml examples/demo/src/hello.c \
	examples/demo/postinstall.sh examples/demo/run.sh \
	bench/sandbox-exec.sh
