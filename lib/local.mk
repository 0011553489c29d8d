# libmagus: small modules with no program policy, linked statically into
# each program.  Only what a program uses is pulled from the archive.
noinst_LIBRARIES += lib/libmagus.a
lib_libmagus_a_SOURCES = \
	lib/banned.h lib/compat.h \
	lib/config.c lib/config.h \
	lib/diag.c lib/diag.h lib/mgs.def \
	lib/execpath.c lib/execpath.h \
	lib/json.c lib/json.h \
	lib/labels.c lib/labels.h \
	lib/jsonread.c lib/jsonread.h \
	lib/landlock.c lib/landlock.h lib/landlock-uapi.h \
	lib/platform.c lib/platform.h \
	lib/proc.c lib/proc.h \
	lib/scip.c lib/scip-status.c lib/scip.h \
	lib/strbuf.c lib/strbuf.h \
	lib/strutil.c lib/strutil.h \
	lib/strvec.c lib/strvec.h \
	lib/xalloc.c lib/xalloc.h
lib_libmagus_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)

# libmagus-engine: the Engine API client.  Its own archive, because it
# brings libcurl: only the programs that talk to an engine link it
# (with $(ENGINE_LIBS)), and the front stays small.
noinst_LIBRARIES += lib/libmagus-engine.a
lib_libmagus_engine_a_SOURCES = \
	lib/engine.c lib/engine.h lib/engine-internal.h \
	lib/engine-proto.c lib/engine-proto.h \
	lib/engine-stream.c
lib_libmagus_engine_a_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
ENGINE_LIBS = lib/libmagus-engine.a lib/libmagus.a $(CURL_LIBS)
