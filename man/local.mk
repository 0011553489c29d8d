dist_man_MANS += man/magus.1 man/magus.yaml.5

# magus-diagnostics(7) is generated from lib/mgs.def, the one table.
noinst_PROGRAMS += man/gen-diagnostics
man_gen_diagnostics_SOURCES = man/gen-diagnostics.c
man_gen_diagnostics_LDADD = lib/libmagus.a -lm
nodist_man_MANS += man/magus-diagnostics.7
CLEANFILES += man/magus-diagnostics.7
man/magus-diagnostics.7: man/gen-diagnostics$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) man && man/gen-diagnostics$(EXEEXT) >$@.tmp && mv $@.tmp $@
