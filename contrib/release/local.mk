# Releases and the inner magus (README.md, "Releases"; lib/innerbuild.h).

noinst_PROGRAMS += contrib/release/magus-release
contrib_release_magus_release_SOURCES = contrib/release/magus-release.c
contrib_release_magus_release_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
contrib_release_magus_release_LDADD = lib/libmagus.a $(CRYPTO_LIBS) -lm

EXTRA_DIST += \
	contrib/release/inner-build.sh \
	contrib/release/pack.sh \
	contrib/release/platform-store.sh \
	contrib/release/release.sh \
	contrib/release/source-hash.sh \
	contrib/release/write-buildinfo.sh

# ---- make inner-build (under --enable-static-programs) ----------------
# Lays out bin/magus and the INNER_HELPERS this build has in INNER_DIR,
# stripped, each checked to be static, with BUILD-INFO.
INNER_DIR = inner
INNER_SOURCE_HASH =

if STATIC_PROGRAMS
inner-build: magus-source-hash.c
	$(AM_V_GEN)set -e; dir='$(INNER_DIR)'; progs=''; \
	for h in $(INNER_HELPERS); do \
		found=''; \
		for p in $(pkglibexec_PROGRAMS); do \
			case $$p in */magus-$$h | magus-$$h) found=$$p ;; esac; \
		done; \
		if [ -n "$$found" ]; then progs="$$progs $$found"; \
		else echo "inner-build: helper magus-$$h is not part of this build; left out" >&2; fi; \
	done; \
	$(MAKE) $(AM_MAKEFLAGS) bin/magus$(EXEEXT) $$progs; \
	rm -rf "$$dir"; $(MKDIR_P) "$$dir/bin" "$$dir/libexec/magus"; \
	cp bin/magus$(EXEEXT) "$$dir/bin/magus"; \
	for p in $$progs; do cp "$$p" "$$dir/libexec/magus/$${p##*/}"; done; \
	for f in "$$dir"/bin/* "$$dir"/libexec/magus/*; do \
		[ -f "$$f" ] || continue; \
		$(STRIP) --strip-all "$$f"; chmod 755 "$$f"; \
		if $(READELF) -lW "$$f" | grep -q 'INTERP'; then \
			echo "inner-build: '$$f' is not static" >&2; exit 1; \
		fi; \
		if $(READELF) -dW "$$f" | grep -q 'NEEDED'; then \
			echo "inner-build: '$$f' needs shared libraries" >&2; exit 1; \
		fi; \
	done; \
	h='$(INNER_SOURCE_HASH)'; \
	[ -n "$$h" ] || h=`sed -n 's/^const char magus_source_hash\[\] = "\([0-9a-f]*\)";$$/\1/p' magus-source-hash.c`; \
	$(SHELL) $(top_srcdir)/contrib/release/write-buildinfo.sh "$$dir" \
		'$(PACKAGE_VERSION)' 'linux/$(MAGUS_HOST_ARCH)' "$$h"
else
inner-build:
	@echo "inner-build: configure with --enable-static-programs first" >&2; exit 1
endif
.PHONY: inner-build

# ---- make platform-store / make release ---------------------------------
# make platform-store [MAGUS_ROOT=WORKSPACE] [PLATFORM=OS/ARCH]
platform-store: all
	@MAGUS_ROOT='$(MAGUS_ROOT)' PLATFORM='$(PLATFORM)'; \
	$(SHELL) $(top_srcdir)/contrib/release/platform-store.sh \
		--build-dir '$(abs_top_builddir)' \
		$${MAGUS_ROOT:+--root "$$MAGUS_ROOT"} \
		$${PLATFORM:+--platform "$$PLATFORM"}

# make release RELEASE_KEY=SECKEY RELEASE_OUT=DIR [RELEASE_PUBKEY=PUB]
#	[RELEASE_BASE_URL=URL] [RELEASE_PREVIOUS_INDEX=FILE]
#	[RELEASE_PLATFORMS='linux/amd64 linux/arm64']
release: all
	@test -n "$(RELEASE_KEY)" && test -n "$(RELEASE_OUT)" || { \
		echo "release: make release RELEASE_KEY=SECKEY RELEASE_OUT=DIR" >&2; exit 2; }
	@pub='$(RELEASE_PUBKEY)' base='$(RELEASE_BASE_URL)'; \
	prev='$(RELEASE_PREVIOUS_INDEX)' plats=''; \
	for p in $(RELEASE_PLATFORMS); do plats="$$plats --platform $$p"; done; \
	$(SHELL) $(top_srcdir)/contrib/release/release.sh \
		--build-dir '$(abs_top_builddir)' --key '$(RELEASE_KEY)' \
		--out '$(RELEASE_OUT)' \
		$${pub:+--pubkey "$$pub"} $${base:+--base-url "$$base"} \
		$${prev:+--previous-index "$$prev"} $$plats
.PHONY: platform-store release
