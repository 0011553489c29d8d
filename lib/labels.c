#include "compat.h"

#include <errno.h>
#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include "json.h"
#include "labels.h"
#include "proc.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"

static int
read_boot_id(char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, "/proc/sys/kernel/random/boot_id") < 0)
		return -1;
	strbuf_rtrim(&sb);
	snprintf(buf, len, "%s", sb.buf);
	strbuf_release(&sb);
	return buf[0] ? 0 : -1;
}

int
labels_init(struct magus_labels *l, const char *root, const char *use)
{
	unsigned char r[16];
	size_t i;
	ssize_t n;

	memset(l, 0, sizeof(*l));
	snprintf(l->workspace, sizeof(l->workspace), "%s", root);
	snprintf(l->use, sizeof(l->use), "%s", use);
	n = getrandom(r, sizeof(r), 0);
	if (n != (ssize_t)sizeof(r))
		return -1;
	for (i = 0; i < sizeof(r); i++)
		snprintf(l->invocation + 2 * i, 3, "%02x", r[i]);
	if (gethostname(l->host, sizeof(l->host) - 1) < 0)
		return -1;
	if (read_boot_id(l->boot, sizeof(l->boot)) < 0)
		return -1;
	snprintf(l->pid, sizeof(l->pid), "%d", (int)getpid());
	snprintf(l->pid_start, sizeof(l->pid_start), "%llu",
	    proc_start_time(getpid()));
	return 0;
}

void
labels_json_members(const struct magus_labels *l, struct json *j)
{
	json_kv_str(j, LABEL_WORKSPACE, l->workspace);
	json_kv_str(j, LABEL_INVOCATION, l->invocation);
	json_kv_str(j, LABEL_USE, l->use);
	json_kv_str(j, LABEL_HOST, l->host);
	json_kv_str(j, LABEL_BOOT, l->boot);
	json_kv_str(j, LABEL_PID, l->pid);
	json_kv_str(j, LABEL_PID_START, l->pid_start);
}

void
labels_filters(struct strvec *filters, const char *root, const char *use)
{
	strvec_pushf(filters, "%s=%s", LABEL_WORKSPACE, root);
	if (use)
		strvec_pushf(filters, "%s=%s", LABEL_USE, use);
}

const char *
labels_get(char *const *kv, const char *key)
{
	size_t n = strlen(key);

	for (; kv && *kv; kv++)
		if (!strncmp(*kv, key, n) && (*kv)[n] == '=')
			return *kv + n + 1;
	return NULL;
}

/* Has `pid` exited, its parent not having reaped it yet (a zombie)?
 * kill(pid, 0) still succeeds on one, but it never runs again. */
static bool
exited_unreaped(long pid)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64];
	const char *p;
	bool dead = false;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (strbuf_read_file(&sb, path) >= 0) {
		/* The state follows the command name, which may itself hold
		 * ") ": read it after the last ')'. */
		p = strrchr(sb.buf, ')');
		dead = p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
	}
	strbuf_release(&sb);
	return dead;
}

static void
say(const char **why, const char *s)
{
	if (why)
		*why = s;
}

enum owner_state
labels_owner(char *const *kv, const char **why)
{
	const char *ws = labels_get(kv, LABEL_WORKSPACE);
	const char *host = labels_get(kv, LABEL_HOST);
	const char *boot = labels_get(kv, LABEL_BOOT);
	const char *pid_s = labels_get(kv, LABEL_PID);
	const char *start_s = labels_get(kv, LABEL_PID_START);
	char myhost[256] = "", myboot[40] = "", want[24];
	unsigned long long start;
	long pid;

	if (!ws || !labels_get(kv, LABEL_USE)) {
		say(why, "not labeled by magus");
		return OWNER_UNLABELED;
	}
	if (!host || gethostname(myhost, sizeof(myhost) - 1) < 0 ||
	    strcmp(host, myhost)) {
		say(why, "created on another host: never judged dead here");
		return OWNER_FOREIGN;
	}
	if (!boot || read_boot_id(myboot, sizeof(myboot)) < 0) {
		say(why, "no boot id: cannot judge the owner");
		return OWNER_FOREIGN;
	}
	if (strcmp(boot, myboot)) {
		say(why, "owner ran before this host's last boot");
		return OWNER_GONE;
	}
	if (!pid_s || !parse_long(pid_s, 1, 1L << 30, &pid) || !start_s) {
		say(why, "no owner pid: cannot judge the owner");
		return OWNER_FOREIGN;
	}
	if ((kill((pid_t)pid, 0) < 0 && errno != EPERM) ||
	    exited_unreaped(pid)) {
		say(why, "owner process is not running");
		return OWNER_GONE;
	}
	/* A start time that cannot be read says nothing about the owner:
	 * /proc may hide other users' processes (hidepid), or the owner may
	 * be exiting right now.  Never judge on that. */
	start = proc_start_time((pid_t)pid);
	if (!start) {
		say(why, "owner pid runs but its start time cannot be read: "
		    "cannot judge the owner");
		return OWNER_FOREIGN;
	}
	snprintf(want, sizeof(want), "%llu", start);
	if (strcmp(want, start_s)) {
		say(why, "owner pid was reused by a later process");
		return OWNER_GONE;
	}
	say(why, "owner process is running");
	return OWNER_LIVE;
}
