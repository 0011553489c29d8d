# magus-sandbox-exec: Landlock, the environment allowlist, no_new_privs
# and the capability drop, then exec.  The only program linking libcap;
# it reads no configuration, so it links no libyaml either.
pkglibexec_PROGRAMS += libexec/sandbox-exec/magus-sandbox-exec
libexec_sandbox_exec_magus_sandbox_exec_SOURCES = \
	libexec/sandbox-exec/main.c libexec/sandbox-exec/sandbox.h \
	libexec/sandbox-exec/policy.c libexec/sandbox-exec/env.c \
	libexec/sandbox-exec/confine.c libexec/sandbox-exec/print.c
libexec_sandbox_exec_magus_sandbox_exec_CFLAGS = $(AM_CFLAGS) $(CAP_CFLAGS)
libexec_sandbox_exec_magus_sandbox_exec_LDADD = lib/libmagus.a $(CAP_LIBS)

# Its tests: the suites, and a probe making one system call at a time.
check_PROGRAMS += tests/sandbox/sbx-probe
tests_sandbox_sbx_probe_SOURCES = tests/sandbox/sbx-probe.c
dist_man_MANS += man/magus-sandbox-exec.1
