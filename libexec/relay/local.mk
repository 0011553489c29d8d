# magus-relay: one invocation, unchanged, in a container on the platform
# named by --platform, over the Docker Engine API (spec/relay.md).
pkglibexec_PROGRAMS += libexec/relay/magus-relay
libexec_relay_magus_relay_SOURCES = \
	libexec/relay/main.c libexec/relay/relay.h libexec/relay/argv.c \
	libexec/relay/env.c libexec/relay/request.c libexec/relay/run.c
libexec_relay_magus_relay_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(CRYPTO_CFLAGS)
libexec_relay_magus_relay_LDADD = $(ENGINE_LIBS) $(YAML_LIBS) $(CRYPTO_LIBS) -lpthread -lm

dist_man_MANS += man/magus-relay.1

# Its tests: against the real test engine (tests/lib/engine.bash), with
# the inner magus `make check` builds for the self-fetch suites.
RELAY_TESTS = \
	tests/0250-relay-run.bats \
	tests/0255-relay-refusals.bats \
	tests/0260-relay-signals.bats \
	tests/0265-relay-fake.bats \
	tests/0270-relay-tty.bats \
	tests/0275-relay-usage.bats \
	tests/0280-relay-selffetch.bats \
	tests/0285-relay-fetch.bats
dist_check_SCRIPTS += $(RELAY_TESTS)
TESTS += $(RELAY_TESTS)
EXTRA_DIST += tests/lib/relay.bash
# --fetch against a real registry on loopback (Debian's docker-registry).
EXTRA_DIST += tests/lib/registry.bash tests/engine/start-registry.sh
EXTRA_DIST += bench/relay.sh
