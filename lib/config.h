/*
 * config.h: magus.yaml, the user tier, the environment and the flags,
 * merged into one resolved configuration that remembers where each value
 * came from.
 *
 * Tiers, strongest first: flag, environment, workspace (magus.yaml at the
 * root, or the file named by --config), user ($XDG_CONFIG_HOME/magus/
 * config.yaml), default.  The sandbox mode is the exception: a mode in
 * MAGUS_SANDBOX (set by a parent magus) is a floor that the others may
 * raise but never lower; a flag asking for less is MGS2010.
 *
 * Every key is validated when read.  An unknown key, a wrong type or a
 * bad value is reported with the file, the line and the key, and the
 * load fails: nothing runs on a configuration magus did not understand.
 */
#ifndef MAGUS_CONFIG_H
#define MAGUS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "strvec.h"

struct strbuf;

enum sandbox_mode {
	SANDBOX_UNSET = -1,
	SANDBOX_OFF = 0,
	SANDBOX_BEST_EFFORT = 1,
	SANDBOX_REQUIRED = 2,
};

/* "off", "best-effort", "required" -> mode; SANDBOX_UNSET when unknown. */
enum sandbox_mode sandbox_mode_parse(const char *s);
const char *sandbox_mode_name(enum sandbox_mode m);

enum origin_kind {
	ORIGIN_DEFAULT,
	ORIGIN_USER,
	ORIGIN_WORKSPACE,
	ORIGIN_ENV,
	ORIGIN_FLAG,
};

struct origin {
	enum origin_kind kind;
	const char *where; /* file, variable or flag name; NULL for default */
	int line;	   /* for files; 0 otherwise */
};

/* A scalar value and its origin; value NULL when unset. */
struct cfg_str {
	char *value;
	struct origin from;
};

struct cfg_allow {
	char *path; /* as written; "~/" is expanded by the sandbox */
	char *mode; /* ro, rw, rx, rwx */
	struct origin from;
};

struct cfg_sandbox {
	enum sandbox_mode mode;
	struct origin mode_from;
	struct cfg_allow *allow;
	size_t nallow, allow_alloc;
	struct cfg_str *passthrough;
	size_t npassthrough, passthrough_alloc;
	struct cfg_str network;	     /* none, allow, proxy */
	struct cfg_str *egress;	     /* host:port entries for proxy */
	size_t negress, egress_alloc;
};

struct cfg_target {
	char *name;
	char *cmdline;	     /* `run` given as one string, else NULL */
	struct strvec argv;  /* `run` given as a list */
	struct strvec deps;
	struct cfg_sandbox sandbox; /* mode SANDBOX_UNSET when not given */
	struct origin from;
};

struct cfg_image {
	char *os;
	char *ref;
	struct strvec env; /* NAME=VALUE */
	struct origin from;
};

struct cfg_indexer {
	char *project;
	char *tool;
	char *image;
	long memory_mb;
	double cpus;
	long pids;
	struct strvec caches;
	struct strvec command; /* empty: the tool's built-in command */
	struct origin from;
};

struct magus_config {
	char *root;	      /* absolute workspace root */
	char *workspace_file; /* the file read, or NULL when none */
	char *user_file;      /* the user-tier path considered */
	bool user_file_read;

	enum sandbox_mode floor; /* from MAGUS_SANDBOX; SANDBOX_UNSET none */
	struct cfg_sandbox sandbox;

	struct cfg_target *targets;
	size_t ntargets, targets_alloc;

	struct cfg_image *images;
	size_t nimages, images_alloc;
	struct cfg_str platform_network; /* none or default */
	long platform_memory_mb;	 /* the relay's bound; 0: none */
	struct origin platform_memory_from;

	struct cfg_indexer *indexers;
	size_t nindexers, indexers_alloc;

	struct cfg_str *tools;
	size_t ntools, tools_alloc;

	struct cfg_str cache_dir;	/* as configured (maybe relative) */
	char *cache_dir_abs;		/* resolved against the root */
	struct cfg_str container_api;
	struct cfg_str container_rootless;
	struct cfg_str self_index;
	struct cfg_str self_pubkey;
	struct cfg_str output; /* text or json */
};

/* Values given as global flags (NULL when not given). */
struct config_flags {
	const char *sandbox;
	const char *container_api;
	const char *output;
};

/*
 * Load and merge every tier.  `root` is the workspace root (absolute);
 * `workspace_file` the file to read for the workspace tier, or NULL to
 * read <root>/magus.yaml when it exists.  Returns 0, or the MGS code of
 * the refusal, already printed.
 */
int config_load(struct magus_config *cfg, const char *root,
    const char *workspace_file, const struct config_flags *flags);
void config_release(struct magus_config *cfg);

const struct cfg_target *config_target(const struct magus_config *cfg,
    const char *name);

/* "file:PATH:LINE", "env:NAME", "flag:--x" or "default". */
void origin_format(const struct origin *o, struct strbuf *out);

/*
 * Every resolved value as "key=value" with its origin, one per entry,
 * in a stable order (for `magus config list`).  Calls emit() per value.
 */
void config_each(const struct magus_config *cfg,
    void (*emit)(const char *key, const char *value,
	const struct origin *from, void *arg),
    void *arg);

/*
 * Parse a passthrough pattern: an exact variable name, or a prefix of at
 * least three characters ending in '_' followed by '*'.  Returns NULL when
 * valid, else a reason.
 */
const char *passthrough_pattern_error(const char *pattern);
/* Parse an allow mode; true for ro, rw, rx, rwx. */
bool allow_mode_valid(const char *mode);
/* True when `ref` is pinned by digest (name@sha256:<64 hex>). */
bool image_ref_pinned(const char *ref);

#endif /* MAGUS_CONFIG_H */
