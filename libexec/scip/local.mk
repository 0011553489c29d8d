# magus-scip: a SCIP indexer from its pinned image, bounded (spec/scip.md).
# The index check, the built-in commands and status.json live in lib/
# (lib/scip.h): the front reads the status without linking libcurl.
pkglibexec_PROGRAMS += libexec/scip/magus-scip
libexec_scip_magus_scip_SOURCES = \
	libexec/scip/magus-scip.c \
	libexec/scip/cgroup.c libexec/scip/cgroup.h
libexec_scip_magus_scip_LDADD = $(ENGINE_LIBS) -lm

dist_man_MANS += man/magus-scip.1

# Tests: the unit test of lib/scip, a static fake indexer that becomes
# the test image, and the suites.  The fake indexer is linked without
# the sanitizers (which cannot link statically): it runs in a container
# made of that one file.
check_PROGRAMS += tests/unit/test-scip tests/scip/fake-indexer
tests_unit_test_scip_SOURCES = tests/unit/test-scip.c tests/unit/tap.h
tests_unit_test_scip_LDADD = lib/libmagus.a -lm
tests_scip_fake_indexer_SOURCES = tests/scip/fake-indexer.c
tests_scip_fake_indexer_CFLAGS = -O2 -Wall -Wextra
tests_scip_fake_indexer_LDFLAGS = -static

TESTS += tests/unit/test-scip
# tests/local.mk already adds all of $(dist_check_SCRIPTS) to TESTS.
dist_check_SCRIPTS += \
	tests/0500-scip-cli.bats \
	tests/0510-scip-run.bats \
	tests/0520-scip-faults.bats
EXTRA_DIST += tests/lib/scip.bash bench/scip-bounds.sh
