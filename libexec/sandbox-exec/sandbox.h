/*
 * sandbox.h: what the parts of magus-sandbox-exec share.
 *
 * main.c reads as the list of steps; each step lives in its own file:
 * policy.c resolves the grants (which path gets which rights), env.c
 * builds the child's environment, confine.c applies Landlock, no_new_privs
 * and the capability drop, print.c prints the policy, netproxy.c runs
 * the command under --network proxy.
 */
#ifndef MAGUS_SANDBOX_EXEC_H
#define MAGUS_SANDBOX_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "landlock.h"
#include "strvec.h"

struct stat;
struct strbuf;

/* One rule: a path and the rights granted beneath it. */
struct grant {
	char *path;	  /* the real path, read back from fd */
	int fd;		  /* O_PATH, close-on-exec: what the rule grants */
	uint64_t access;  /* the rights wanted, before an ABI masks them */
	const char *what; /* why: "workspace", "private temp", "system", ... */
	const char *given; /* an --allow entry as written, else NULL */
	const char *asked; /* a built-in path as written (static), or NULL */
	bool file;	  /* not a directory: file rights only */
};

struct policy {
	/* What the command line asked for. */
	enum sandbox_mode mode;
	enum sandbox_mode floor;  /* from MAGUS_SANDBOX; SANDBOX_UNSET: none */
	const char *root_arg;
	const char *tmp_arg;
	bool network_none;
	bool network_proxy;
	struct strvec egress;	/* --egress-allow HOST:PORT, as given */
	const char *egress_log;	/* --egress-log FILE, or NULL: stderr */
	bool print;
	int verbose;
	struct strvec allow;	   /* --allow MODE:PATH, as given */
	struct strvec passthrough; /* --passthrough PATTERN */
	char **command;		   /* after "--"; NULL when none given */

	/* Resolved. */
	char *home;  /* HOME's real path, or NULL */
	char *root;  /* the workspace's real path */
	int root_fd; /* O_PATH, until the workspace grant takes it */
	char *tmp;   /* the private temp dir's real path; NULL until made */
	int tmp_fd;  /* O_PATH, until the private temp grant takes it */
	bool tmp_made; /* made here, so removed here */
	bool terminal; /* a controlling terminal, or one on a descriptor
			* (policy_check_input looks) */
	struct grant *grants;
	size_t ngrants, grants_alloc;
	struct grant *allowed; /* the --allow entries, checked */
	size_t nallowed, allowed_alloc;
	struct strvec skipped; /* "PATH entry '/': why", not granted */
	struct landlock_abi abi;
	uint64_t handled_fs, handled_net, scopes;
	uint32_t restrict_flags;
	unsigned not_enforced; /* features this policy wants, ABI lacks */
	struct strvec env;     /* the child's NAME=VALUE */
	struct strvec passed;  /* names in env */
	struct strvec stripped;	/* names removed (never values) */
	struct strvec withheld; /* socket variables removed */
	char *exe;		/* the command as found on PATH, for execve */
	char *exe_real;		/* its real path, for the exec check */
};

/* policy.c */

/* Free what the policy holds (for a clean exit under LeakSanitizer). */
void policy_release(struct policy *p);

/*
 * Open `path` O_PATH with `flags` added (following symlinks: this is the
 * one resolution), and read its real path back from /proc/self/fd, or
 * ask realpath(3) where /proc is not mounted.  Returns the descriptor
 * (close-on-exec) and sets *real and, when not NULL, *st; or -1 with
 * errno set.
 */
int policy_resolve(const char *path, int flags, char **real, struct stat *st);
/* Check --root, --tmp and every --allow entry; exit 2 naming the first
 * one that cannot be honored (MGS1012, MGS2004, MGS2014).  Nothing is
 * created. */
void policy_check_input(struct policy *p);
/* Add the grants: workspace, system trees, devices, PATH, allow entries.
 * The private temp dir is added by policy_add_tmp once it exists and
 * p->tmp and p->tmp_fd name it. */
void policy_resolve_grants(struct policy *p);
void policy_add_tmp(struct policy *p);
/* Merge equal paths and drop rules an ancestor rule already covers. */
void policy_simplify(struct policy *p);
/* The rights of `g` as the kernel will apply them at p's ABI. */
uint64_t policy_applied(const struct policy *p, const struct grant *g);
/* Find the command the way execvp(3) does, through the child's PATH.
 * Returns the path found (not resolved), or NULL with errno set. */
char *policy_find_command(const struct policy *p, const char *name);
/* True when the real path `exe` lies beneath a rule granting exec. */
bool policy_may_exec(const struct policy *p, const char *exe);
/* The first read grant `path` lies beneath, or NULL. */
const struct grant *policy_readable(const struct policy *p, const char *path);

/* env.c */

/* Build the child's environment from `envp`: the allowlist, the
 * passthrough patterns, TMPDIR and MAGUS_SANDBOX; report what was
 * stripped (MGS2003 under -v, MGS2006, MGS2008). */
void env_build(struct policy *p, char *const *envp);
/* True when `name` matches the passthrough `pattern`. */
bool env_pattern_match(const char *pattern, const char *name);

/* confine.c */

/* Build the Landlock ruleset for p's grants at p's ABI.  Returns the
 * ruleset fd (close-on-exec), or -1 with the failed step in `why`. */
int confine_build_ruleset(const struct policy *p, struct strbuf *why);
/* Set no_new_privs and drop every capability: returns 0, or -1 with the
 * failed step in `why`. */
int confine_privileges(struct strbuf *why);
/* Whether the command gets the terminal filter (confine.c says when it
 * guards nothing); policy_resolve_grants() must have run. */
bool confine_terminal_filter(const struct policy *p);
/* confine_privileges(), refuse the terminal requests that inject input
 * (seccomp) where confine_terminal_filter() says, restrict this process with
 * `ruleset_fd` (when >= 0, and close it) and check that each step took.
 * Returns 0, or -1 with the failed step in `why`: the caller must then
 * not run the command. */
int confine_self(const struct policy *p, int ruleset_fd, struct strbuf *why);

/* netproxy.c */

/* The variables that point the command at the forwarder, and those set
 * empty; the proxy URL's value until the port is known. */
extern const char *const netproxy_vars[];
extern const size_t netproxy_nvars;
extern const char *const netproxy_empty_vars[];
extern const size_t netproxy_nempty;
extern const char netproxy_url_placeholder[];

/* Check every --egress-allow entry as magus-egress would; exit 2 naming
 * the first one refused (MGS2004). */
void netproxy_check_input(struct policy *p);
/*
 * Run the command under --network proxy: its own network namespace, the
 * forwarder and magus-egress, all torn down with it (the process tree is
 * described at the top of netproxy.c).  Always the forking path, with or
 * without --tmp; a private temp dir made here is not removed here.
 * Takes `ruleset` (closed).  Returns the exit status.
 */
int netproxy_run(struct policy *p, int ruleset);

/* main.c */

/* The exit status for an exec of `name` that failed with `err`,
 * reported. */
int exec_failed(const struct policy *p, const char *name, int err);

/* print.c */

/* --print-policy: the policy as text, or one JSON object. */
void policy_print(const struct policy *p);

#endif /* MAGUS_SANDBOX_EXEC_H */
