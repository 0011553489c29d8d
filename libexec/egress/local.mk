# magus-egress: the allowlist proxy (spec/egress.md).  The decisions
# (allowlist, request head, body framing) live in a small library the
# unit tests link too.
noinst_LIBRARIES += libexec/egress/libegress.a
libexec_egress_libegress_a_SOURCES = \
	libexec/egress/allow.c libexec/egress/http.c libexec/egress/egress.h

pkglibexec_PROGRAMS += libexec/egress/magus-egress
libexec_egress_magus_egress_SOURCES = \
	libexec/egress/egress.c \
	libexec/egress/resolver.c libexec/egress/resolver.h
libexec_egress_magus_egress_LDADD = \
	libexec/egress/libegress.a lib/libmagus.a -lpthread -lm

dist_man_MANS += man/magus-egress.1

# Tests: the unit test of the decisions, a small origin server the suites
# and the benchmark run on loopback, and the suites.
check_PROGRAMS += tests/unit/test-egress tests/egress/egress-origin \
	tests/egress/egress-client
tests_unit_test_egress_SOURCES = tests/unit/test-egress.c tests/unit/tap.h
tests_unit_test_egress_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libexec/egress
tests_unit_test_egress_LDADD = \
	libexec/egress/libegress.a lib/libmagus.a -lm
tests_egress_egress_origin_SOURCES = tests/egress/egress-origin.c
tests_egress_egress_origin_LDADD = lib/libmagus.a -lm
tests_egress_egress_client_SOURCES = tests/egress/egress-client.c
tests_egress_egress_client_LDADD = lib/libmagus.a -lm

TESTS += tests/unit/test-egress
# tests/local.mk already adds all of $(dist_check_SCRIPTS) to TESTS.
dist_check_SCRIPTS += \
	tests/0400-egress-cli.bats \
	tests/0410-egress-http.bats \
	tests/0420-egress-connect.bats \
	tests/0430-egress-refusals.bats \
	tests/0440-egress-netns.bats
EXTRA_DIST += tests/lib/egress.bash tests/lib/netns.bash \
	bench/egress.sh
