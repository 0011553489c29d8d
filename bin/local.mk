bin_PROGRAMS += bin/magus
bin_magus_SOURCES = \
	bin/front.h bin/magus.c \
	bin/cmd-config.c bin/cmd-describe.c bin/cmd-doctor.c bin/cmd-explain.c bin/cmd-help.c \
	bin/cmd-self.c \
	bin/cmd-run.c bin/cmd-gate.c bin/sandboxed.c \
	bin/cmd-scip.c \
	bin/cmd-clean.c
bin_magus_LDADD = lib/libmagus.a $(YAML_LIBS) -lm
