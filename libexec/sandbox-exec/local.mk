# magus-sandbox-exec: Landlock, the environment allowlist, no_new_privs
# and the capability drop, then exec.  The only program linking libcap;
# it reads no configuration, so it links no libyaml either.  Included
# from the top Makefile.am after tests/local.mk (its suites are listed
# here).
pkglibexec_PROGRAMS += libexec/sandbox-exec/magus-sandbox-exec
libexec_sandbox_exec_magus_sandbox_exec_SOURCES = \
	libexec/sandbox-exec/main.c libexec/sandbox-exec/sandbox.h \
	libexec/sandbox-exec/policy.c libexec/sandbox-exec/env.c \
	libexec/sandbox-exec/confine.c libexec/sandbox-exec/print.c \
	libexec/sandbox-exec/netproxy.c
# --egress-allow entries are checked by magus-egress's own allowlist code.
libexec_sandbox_exec_magus_sandbox_exec_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/libexec/egress
if SANDBOX_MUSL
# Against musl (configure.ac says why): the lib/ and libegress sources it
# uses, compiled for musl too; the link names any that is missing.  And
# lib/smalloc.c as its malloc, which spares it musl's mappings at every
# start (lib/smalloc.h says why).
libexec_sandbox_exec_magus_sandbox_exec_SOURCES += \
	lib/config-words.c lib/diag.c lib/execpath.c lib/json.c \
	lib/landlock.c lib/proc.c lib/strbuf.c lib/strutil.c lib/strvec.c \
	lib/tmpdir.c lib/xalloc.c libexec/egress/allow.c \
	lib/smalloc.c lib/smalloc-libc.c
libexec_sandbox_exec_magus_sandbox_exec_CFLAGS = $(AM_CFLAGS) \
	$(SANDBOX_MUSL_CFLAGS)
libexec_sandbox_exec_magus_sandbox_exec_LDADD = $(SANDBOX_MUSL_LIBS)
else
libexec_sandbox_exec_magus_sandbox_exec_CFLAGS = $(AM_CFLAGS) $(CAP_CFLAGS)
libexec_sandbox_exec_magus_sandbox_exec_LDADD = \
	libexec/egress/libegress.a lib/libmagus.a $(CAP_LIBS)
endif
libexec_sandbox_exec_magus_sandbox_exec_LDFLAGS = $(AM_LDFLAGS) \
	$(SANDBOX_EXEC_LDFLAGS)

dist_man_MANS += man/magus-sandbox-exec.1

# Its tests: the suites (the policy, the environment, the modes at every
# ABI, the errno paths, the build, magus run, magus queue gate), and a
# probe making one system call at a time.
check_PROGRAMS += tests/sandbox/sbx-probe tests/unit/test-sandbox \
	tests/unit/test-smalloc
tests_sandbox_sbx_probe_SOURCES = tests/sandbox/sbx-probe.c
tests_unit_test_sandbox_SOURCES = tests/unit/test-sandbox.c tests/unit/tap.h
tests_unit_test_sandbox_LDADD = lib/libmagus.a
tests_unit_test_smalloc_SOURCES = tests/unit/test-smalloc.c tests/unit/tap.h
tests_unit_test_smalloc_LDADD = lib/libmagus.a
TESTS += tests/unit/test-sandbox tests/unit/test-smalloc
SANDBOX_TESTS = \
	tests/0100-sandbox-policy.bats \
	tests/0110-sandbox-env.bats \
	tests/0120-sandbox-modes.bats \
	tests/0130-sandbox-errno.bats \
	tests/0140-sandbox-build.bats \
	tests/0150-run.bats \
	tests/0160-queue-gate.bats
dist_check_SCRIPTS += $(SANDBOX_TESTS)
TESTS += $(SANDBOX_TESTS)
EXTRA_DIST += tests/lib/sandbox.bash

# --network proxy: the suites run real curl inside the sandbox against
# origin servers in network namespaces of their own (tests/lib/netproxy.bash).
# tests/local.mk already adds all of $(dist_check_SCRIPTS) to TESTS.
dist_check_SCRIPTS += \
	tests/0450-netproxy-cli.bats \
	tests/0452-netproxy-egress.bats \
	tests/0454-netproxy-lifetime.bats \
	tests/0456-netproxy-run.bats
EXTRA_DIST += tests/lib/netproxy.bash
