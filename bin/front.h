/*
 * front.h: what the front's verbs share.
 */
#ifndef MAGUS_FRONT_H
#define MAGUS_FRONT_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"

struct front {
	/* global flags */
	const char *chdir_to;	/* -C */
	const char *root_flag;	/* --root */
	const char *config_file; /* --config */
	const char *platform;	/* --platform */
	bool print_request;
	bool fetch;
	struct config_flags flags;
	int verbose;

	/* resolved */
	char *root;		/* absolute */
	bool have_workspace;	/* a magus.yaml was found or named */
	struct magus_config cfg;
	bool cfg_loaded;
};

struct verb {
	const char *name;
	/* NULL for verbs handled by a helper */
	int (*fn)(struct front *f, int argc, char **argv);
	const char *helper; /* helper name for dispatched verbs, or NULL */
	const char *synopsis;
	const char *summary;
	bool needs_config;
};

const struct verb *verb_find(const char *name);
const struct verb *verb_table(void);

/* Load the configuration once; exits 2 (or the code's status) on error. */
void front_load_config(struct front *f);

/* Report an unknown verb (MGS1001), suggesting "<prefix> <closest>". */
void verb_unknown(const char *name, const char *suggest_prefix);

/*
 * Refuse an option a verb does not take, exit 2.  When `opt` is one of
 * the global flags, the hint says they must precede the verb.
 */
void verb_bad_option(const char *verb, const char *opt)
    __attribute__((noreturn));
void verb_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Export every resolved value as MAGUS_* for the helpers. */
void front_export_env(struct front *f);
/* Run a helper with argv (argv[0] ignored) and return its exit status. */
int front_run_helper(const char *name, char **argv);

int cmd_help(struct front *f, int argc, char **argv);
int cmd_explain(struct front *f, int argc, char **argv);
int cmd_doctor(struct front *f, int argc, char **argv);
int cmd_config(struct front *f, int argc, char **argv);
int cmd_clean(struct front *f, int argc, char **argv);

void print_front_usage(FILE *out);

#endif /* MAGUS_FRONT_H */
