/*
 * labels.h: the labels on everything magus creates on a container engine,
 * and the one judgement made from them: is the run that owns an object
 * still alive?
 *
 * Every container and volume magus creates carries:
 *
 *	magus.workspace   the workspace root, an absolute path
 *	magus.invocation  32 hex digits, random per invocation
 *	magus.use         "relay", "scip" or "describe"
 *	magus.host        this host's name (gethostname)
 *	magus.boot        the kernel's boot id (/proc/sys/kernel/random/boot_id)
 *	magus.pid         the owning magus process, decimal
 *	magus.pid-start   that process's start time in clock ticks since boot
 *	                  (field 22 of /proc/PID/stat)
 *
 * A relay's objects also carry
 *
 *	magus.platform    the platform relayed to, "os/arch[/variant]" as
 *	                  platform_str() writes it
 *
 * so that `magus clean --platform` removes one platform's objects only
 * (labels_init leaves it out: it is the relay's to add).
 *
 * The pid's start time and the boot id together tell a live owner from a
 * reused pid: a pid is reused only by a process started later, and start
 * times restart at each boot.  Labels never carry a secret.
 */
#ifndef MAGUS_LABELS_H
#define MAGUS_LABELS_H

#include <stdbool.h>
#include <sys/types.h>

struct json;
struct strvec;

#define LABEL_WORKSPACE "magus.workspace"
#define LABEL_INVOCATION "magus.invocation"
#define LABEL_USE "magus.use"
#define LABEL_HOST "magus.host"
#define LABEL_BOOT "magus.boot"
#define LABEL_PID "magus.pid"
#define LABEL_PID_START "magus.pid-start"
#define LABEL_PLATFORM "magus.platform"

/* The values for this process, gathered once. */
struct magus_labels {
	char workspace[4096];
	char invocation[33];
	char use[16];
	char host[256];
	char boot[40];
	char pid[24];
	char pid_start[24];
};

/*
 * Fill `l` for this process: `root` the absolute workspace root, `use`
 * what the object is for.  The invocation id comes from getrandom(2).
 * Returns 0, or -1 with errno set when a value cannot be read.
 */
int labels_init(struct magus_labels *l, const char *root, const char *use);

/* Write the labels as members of the JSON object being written. */
void labels_json_members(const struct magus_labels *l, struct json *j);

/* Append "key=value" filters selecting this workspace's objects (and,
 * when `use` is not NULL, only that use) to `filters`. */
void labels_filters(struct strvec *filters, const char *root,
    const char *use);

/* The value of `key` in a "key=value" list, or NULL. */
const char *labels_get(char *const *kv, const char *key);

enum owner_state {
	OWNER_LIVE,	/* same host and boot, the pid runs and started then */
	OWNER_GONE,	/* same host and boot, and the owner is not running */
	OWNER_FOREIGN,	/* another host, or the owner cannot be judged
			 * (no boot id, no pid, a start time that cannot
			 * be read): never judged dead */
	OWNER_UNLABELED, /* not magus's labels: never touched */
};

/*
 * Judge an object by its "key=value" labels.  `why` (may be NULL) gets a
 * static phrase saying why, for --dry-run listings.  kill(pid, 0) failing
 * with EPERM counts as alive, and an owner that has exited but is not yet
 * reaped (a zombie, which kill(pid, 0) still finds) as gone; a running pid whose start time cannot be
 * read (/proc mounted with hidepid, or the process exiting meanwhile)
 * cannot be told from a reused one, and is OWNER_FOREIGN.
 */
enum owner_state labels_owner(char *const *kv, const char **why);

#endif /* MAGUS_LABELS_H */
