# magus-self-fetch: download, verify and cache the release for a platform.
pkglibexec_PROGRAMS += libexec/self-fetch/magus-self-fetch
libexec_self_fetch_magus_self_fetch_SOURCES = \
	libexec/self-fetch/magus-self-fetch.c \
	libexec/self-fetch/http.c libexec/self-fetch/http.h \
	libexec/self-fetch/unpack.c libexec/self-fetch/unpack.h
libexec_self_fetch_magus_self_fetch_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) \
	$(CRYPTO_CFLAGS) $(ZLIB_CFLAGS)
libexec_self_fetch_magus_self_fetch_LDADD = lib/libmagus.a $(CURL_LIBS) \
	$(CRYPTO_LIBS) $(ZLIB_LIBS) -lm
dist_man_MANS += man/magus-self-fetch.1

# ---- tests ---------------------------------------------------------------
# A loopback HTTPS server for the tests, and the unit tests of the lib
# modules releases use (minisign, BLAKE2b, the index, BUILD-INFO).
check_PROGRAMS += tests/selffetch/httpsd tests/unit/test-selffetch
tests_selffetch_httpsd_SOURCES = tests/selffetch/httpsd.c
tests_selffetch_httpsd_CFLAGS = $(AM_CFLAGS) $(SSL_CFLAGS)
tests_selffetch_httpsd_LDADD = $(SSL_LIBS) $(CRYPTO_LIBS)
tests_unit_test_selffetch_SOURCES = tests/unit/test-selffetch.c tests/unit/tap.h
tests_unit_test_selffetch_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
tests_unit_test_selffetch_LDADD = lib/libmagus.a $(CRYPTO_LIBS) -lm
TESTS += tests/unit/test-selffetch

# One real static inner build per `make check`, made by `make
# platform-store` into a workspace of the test tree and shared by the
# suites that need a release (it is redone when the sources change).
SELFFETCH_WS = tests/selffetch/ws
SELFFETCH_STAMP = $(SELFFETCH_WS)/.magus/platform/linux-$(MAGUS_HOST_ARCH)/magus/BUILD-INFO
check_DATA += $(SELFFETCH_STAMP)
$(SELFFETCH_STAMP): magus-source-hash.c contrib/release/magus-release$(EXEEXT) \
		bin/magus$(EXEEXT) bin-wrappers/magus
	$(AM_V_GEN)$(MKDIR_P) $(SELFFETCH_WS) && \
	printf 'cache:\n  dir: .magus\n' >$(SELFFETCH_WS)/magus.yaml && \
	$(SHELL) $(top_srcdir)/contrib/release/platform-store.sh \
		--build-dir '$(abs_top_builddir)' --root $(SELFFETCH_WS) >/dev/null
clean-local: clean-selffetch
clean-selffetch:
	rm -rf $(SELFFETCH_WS)
.PHONY: clean-selffetch

# (EXTRA_DIST rather than dist_check_SCRIPTS: tests/local.mk, included
# after this file, defines that one with '='.)
EXTRA_DIST += \
	tests/0300-selffetch-sign.bats \
	tests/0310-selffetch-release.bats \
	tests/0320-selffetch-fetch.bats \
	tests/0330-selffetch-usage.bats
TESTS += \
	tests/0300-selffetch-sign.bats \
	tests/0310-selffetch-release.bats \
	tests/0320-selffetch-fetch.bats \
	tests/0330-selffetch-usage.bats
EXTRA_DIST += tests/lib/selffetch.bash
