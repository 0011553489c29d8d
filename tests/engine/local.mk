# The engine client's tests: unit tests of its byte-level parts, a CLI
# over each API call, a scriptable fake engine, and the scripts that
# start and stop a real test engine (podman's Docker-compatible service).
check_PROGRAMS += tests/unit/test-engine
tests_unit_test_engine_SOURCES = tests/unit/test-engine.c tests/unit/tap.h
tests_unit_test_engine_LDADD = $(ENGINE_LIBS) -lm

check_PROGRAMS += tests/engine/engine-cli
tests_engine_engine_cli_SOURCES = tests/engine/engine-cli.c
tests_engine_engine_cli_LDADD = $(ENGINE_LIBS) -lm

check_PROGRAMS += tests/fake-engine/fake-engine
tests_fake_engine_fake_engine_SOURCES = tests/fake-engine/fake-engine.c
tests_fake_engine_fake_engine_LDADD = lib/libmagus.a -lm

TESTS += tests/unit/test-engine
ENGINE_BATS = \
	tests/0200-engine-socket.bats \
	tests/0210-engine-api.bats \
	tests/0220-engine-attach.bats \
	tests/0230-engine-faults.bats
dist_check_SCRIPTS += $(ENGINE_BATS)
TESTS += $(ENGINE_BATS)
EXTRA_DIST += tests/lib/engine.bash tests/engine/rootfs.sh \
	tests/engine/start-engine.sh tests/engine/stop-engine.sh
