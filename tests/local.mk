# Tests: bats suites run through automake's TAP driver, plus test-lib,
# a small C program testing the lib units, also speaking TAP.
TEST_EXTENSIONS = .bats
TAP_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
LOG_DRIVER = $(TAP_DRIVER)
BATS_LOG_DRIVER = $(TAP_DRIVER)
BATS_LOG_COMPILER = $(BATS) --tap
AM_TESTS_ENVIRONMENT = \
	MAGUS_BUILD_DIR='$(abs_top_builddir)'; export MAGUS_BUILD_DIR; \
	MAGUS_SRC_DIR='$(abs_top_srcdir)'; export MAGUS_SRC_DIR; \
	MAGUS_EXEC_PATH='$(abs_top_builddir)/exec-path'; export MAGUS_EXEC_PATH; \
	PATH='$(abs_top_builddir)/bin-wrappers':"$$PATH"; export PATH;

check_PROGRAMS += tests/unit/test-lib
tests_unit_test_lib_SOURCES = tests/unit/test-lib.c tests/unit/tap.h
tests_unit_test_lib_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tests_unit_test_lib_LDADD = lib/libmagus.a $(YAML_LIBS) -lm

TESTS += tests/unit/test-lib
dist_check_SCRIPTS = \
	tests/0001-build-layout.bats \
	tests/0010-front-dispatch.bats \
	tests/0020-front-config.bats \
	tests/0030-diag-explain.bats \
	tests/0040-front-doctor.bats \
	tests/0045-front-describe.bats
TESTS += $(dist_check_SCRIPTS)
EXTRA_DIST += tests/lib/common.bash
