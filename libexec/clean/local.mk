# magus-clean: removes the platform stores and the engine objects magus
# labeled for a workspace, sparing live runs (spec/clean.md).
pkglibexec_PROGRAMS += libexec/clean/magus-clean
libexec_clean_magus_clean_SOURCES = \
	libexec/clean/clean.c \
	libexec/clean/store.c libexec/clean/store.h
libexec_clean_magus_clean_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
libexec_clean_magus_clean_LDADD = $(ENGINE_LIBS) $(YAML_LIBS) -lm

dist_man_MANS += man/magus-clean.1

# tests/local.mk already adds all of $(dist_check_SCRIPTS) to TESTS.
dist_check_SCRIPTS += \
	tests/0600-clean-cli.bats \
	tests/0610-clean-stores.bats \
	tests/0620-clean-engine.bats \
	tests/0625-clean-relay.bats \
	tests/0630-clean-faults.bats
EXTRA_DIST += tests/lib/clean.bash
