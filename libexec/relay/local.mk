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
	tests/0285-relay-fetch.bats \
	tests/0290-relay-emulated.bats
dist_check_SCRIPTS += $(RELAY_TESTS)
TESTS += $(RELAY_TESTS)
EXTRA_DIST += tests/lib/relay.bash
# --fetch against a real registry on loopback (Debian's docker-registry).
EXTRA_DIST += tests/lib/registry.bash tests/engine/start-registry.sh
EXTRA_DIST += bench/relay.sh

# The emulated path (tests/0290-relay-emulated.bats) needs an inner magus
# for the other architecture (arm64 on an amd64 machine, amd64 on arm64):
# one cross build per `make check`, redone when the sources change, made
# after the self-fetch suites' native one (both copy the sources with
# make distdir).  Without a cross toolchain (README.md, "The arm64
# build") the build fails; make check goes on, and the suite reports the
# log it left.  About 1.5 minutes on two cores.
RELAY_EMUL_WS = tests/relay-emul/ws
RELAY_EMUL_STAMP = $(RELAY_EMUL_WS)/BUILT
check_DATA += $(RELAY_EMUL_STAMP)
$(RELAY_EMUL_STAMP): $(SELFFETCH_STAMP) magus-source-hash.c \
		contrib/release/magus-release$(EXEEXT) bin/magus$(EXEEXT) \
		bin-wrappers/magus
	$(AM_V_GEN)set -e; ws='$(RELAY_EMUL_WS)'; \
	case '$(MAGUS_HOST_ARCH)' in \
	amd64) p=linux/arm64 ;; arm64) p=linux/amd64 ;; *) p= ;; esac; \
	rm -f $@ "$$ws/build.log"; $(MKDIR_P) "$$ws"; \
	printf 'cache:\n  dir: .magus\n' >"$$ws/magus.yaml"; \
	if [ -z "$$p" ]; then \
		echo "no other platform to emulate on $(MAGUS_HOST_ARCH)" >"$$ws/build.log"; \
	elif $(SHELL) $(top_srcdir)/contrib/release/platform-store.sh \
		--build-dir '$(abs_top_builddir)' --root "$$ws" \
		--platform "$$p" >"$$ws/build.log" 2>&1; then \
		echo "$$p" >$@; \
	else \
		echo "relay-emul: no inner magus for $$p (see $$ws/build.log)" >&2; \
	fi
clean-local: clean-relay-emul
clean-relay-emul:
	rm -rf $(RELAY_EMUL_WS)
.PHONY: clean-relay-emul
EXTRA_DIST += tests/engine/setup-binfmt.sh tests/engine/foreign-image.sh
