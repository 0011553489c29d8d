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

/*
 * One command to run through magus-sandbox-exec (bin/sandboxed.c), in a
 * private temp dir made for it and removed afterwards.  Returns the
 * command's exit status (the helper's refusals included).
 */
struct sandboxed {
	const char *root;		 /* the sandbox root */
	const char *cwd;		 /* where the command starts */
	enum sandbox_mode mode;
	const struct cfg_sandbox *base;	 /* allow, passthrough, network */
	const struct cfg_sandbox *extra; /* a target's own, or NULL */
	char *const *argv;
	/* When > 2: the command gets this fd as its fd 3, and /dev/null as
	 * stdin (a probe that writes what is read back to fd 3, while the
	 * sandbox's own diagnostics still reach stderr). */
	int fd3;
};
int front_run_sandboxed(struct front *f, const struct sandboxed *s);

int cmd_help(struct front *f, int argc, char **argv);
int cmd_explain(struct front *f, int argc, char **argv);
int cmd_doctor(struct front *f, int argc, char **argv);
int cmd_describe(struct front *f, int argc, char **argv);
int cmd_config(struct front *f, int argc, char **argv);
int cmd_self(struct front *f, int argc, char **argv);
int cmd_run(struct front *f, int argc, char **argv);
int cmd_queue(struct front *f, int argc, char **argv);

int cmd_scip(struct front *f, int argc, char **argv);

/*
 * Run PROJECT's declared indexer through magus-scip (magus scip PROJECT,
 * and magus run PROJECT::scip); returns the exit status to use.  An
 * undeclared project is MGS5006 (2).
 */
int scip_run_project(struct front *f, const char *project);

struct json;
/* Each declared project's status.json, read from disk only: the whole
 * report, or (brief) one line each for magus doctor. */
void scip_report_text(struct front *f, bool brief);
/* The same as a JSON array, written into `j`. */
void scip_report_json(struct front *f, struct json *j);
int cmd_clean(struct front *f, int argc, char **argv);

void print_front_usage(FILE *out);

#endif /* MAGUS_FRONT_H */
