# libmagus: small modules with no program policy, linked statically into
# each program.  Only what a program uses is pulled from the archive.
noinst_LIBRARIES += lib/libmagus.a
lib_libmagus_a_SOURCES = \
	lib/banned.h lib/compat.h \
	lib/config.c lib/config-words.c lib/config.h \
	lib/diag.c lib/diag.h lib/mgs.def \
	lib/execpath.c lib/execpath.h \
	lib/json.c lib/json.h \
	lib/landlock.c lib/landlock.h lib/landlock-uapi.h \
	lib/platform.c lib/platform.h \
	lib/proc.c lib/proc.h \
	lib/strbuf.c lib/strbuf.h \
	lib/strutil.c lib/strutil.h \
	lib/strvec.c lib/strvec.h \
	lib/tmpdir.c lib/tmpdir.h \
	lib/xalloc.c lib/xalloc.h
lib_libmagus_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
