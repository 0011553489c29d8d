#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cgroup.h"
#include "strbuf.h"
#include "strutil.h"

void
cg_init(struct cg_sampler *s)
{
	memset(s, 0, sizeof(*s));
	s->mem_fd = s->oom_fd = s->cpu_fd = -1;
	s->peak_bytes = s->cpu_usec = s->oom_kills = -1;
}

bool
cg_active(const struct cg_sampler *s)
{
	return s->mem_fd >= 0 || s->cpu_fd >= 0 || s->oom_fd >= 0;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
cg_close(struct cg_sampler *s)
{
	close_fd(&s->mem_fd);
	close_fd(&s->oom_fd);
	close_fd(&s->cpu_fd);
}

/* True when the comma-separated `list` holds `word`. */
static bool
has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	while (*list) {
		size_t k = strcspn(list, ",");

		if (k == n && !strncmp(list, word, n))
			return true;
		list += k;
		if (*list == ',')
			list++;
	}
	return false;
}

/* Split `line` at spaces into at most `max` fields; returns the count. */
static int
split(char *line, char **f, int max)
{
	int n = 0;

	while (*line && n < max) {
		line += strspn(line, " ");
		if (!*line)
			break;
		f[n++] = line;
		line += strcspn(line, " ");
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/*
 * The mount point of the hierarchy holding `controller` (cgroup v1), or
 * of the unified hierarchy (controller NULL), from mountinfo, with the
 * mount's root (its path inside the hierarchy) in `root`.  A line is
 * "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE
 * SUPEROPTIONS".
 */
static int
mount_of(const char *controller, struct strbuf *mnt, struct strbuf *root)
{
	struct strbuf info = STRBUF_INIT;
	char *line, *next;
	int found = -1;

	if (strbuf_read_file(&info, "/proc/self/mountinfo") < 0)
		return -1;
	for (line = info.buf; found < 0 && *line; line = next) {
		char *head[6], *tail[3], *dash;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		dash = strstr(line, " - ");
		if (!dash)
			continue;
		*dash = '\0';
		if (split(line, head, 6) < 5 || split(dash + 3, tail, 3) < 3)
			continue;
		if (controller ? strcmp(tail[0], "cgroup") ||
		    !has_word(tail[2], controller) :
		    strcmp(tail[0], "cgroup2") != 0)
			continue;
		strbuf_addstr(mnt, head[4]);
		strbuf_addstr(root, head[3]);
		found = 0;
	}
	strbuf_release(&info);
	return found;
}

/* The path of `pid`'s cgroup in the hierarchy holding `controller` (NULL:
 * the unified one, "0::"). */
static int
cgroup_of(long pid, const char *controller, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	char path[64], *line, *next;
	int found = -1;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
	if (strbuf_read_file(&text, path) < 0)
		return -1;
	for (line = text.buf; found < 0 && *line; line = next) {
		char *c1, *c2;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		if (controller ? !has_word(c1 + 1, controller) :
		    strcmp(line, "0:") != 0)
			continue;
		strbuf_addstr(out, c2 + 1);
		found = 0;
	}
	strbuf_release(&text);
	return found;
}

/* Open FILE in the cgroup directory of `pid` for `controller`. */
static int
open_in(long pid, const char *controller, const char *id, const char *file,
    char *where, size_t where_len)
{
	struct strbuf mnt = STRBUF_INIT, root = STRBUF_INIT, cg = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	const char *rel;
	int fd = -1;

	if (mount_of(controller, &mnt, &root) < 0 ||
	    cgroup_of(pid, controller, &cg) < 0 || !strstr(cg.buf, id))
		goto out;
	rel = cg.buf;
	if (strcmp(root.buf, "/")) {
		if (!starts_with(rel, root.buf))
			goto out;
		rel += root.len;
	}
	strbuf_addf(&path, "%s%s/%s", mnt.buf, rel, file);
	fd = open(path.buf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && where)
		snprintf(where, where_len, "%s%s", mnt.buf, rel);
out:
	strbuf_release(&mnt);
	strbuf_release(&root);
	strbuf_release(&cg);
	strbuf_release(&path);
	return fd;
}

int
cg_open(struct cg_sampler *s, long pid, const char *container_id)
{
	cg_init(s);
	if (pid <= 0 || strlen(container_id) < 12)
		return -1;
	s->mem_fd = open_in(pid, "memory", container_id,
	    "memory.max_usage_in_bytes", s->path, sizeof(s->path));
	if (s->mem_fd >= 0) {
		s->mem_is_peak = true;
		s->oom_fd = open_in(pid, "memory", container_id,
		    "memory.oom_control", NULL, 0);
		s->cpu_fd = open_in(pid, "cpuacct", container_id,
		    "cpuacct.usage", NULL, 0);
	} else {
		s->v2 = true;
		s->mem_fd = open_in(pid, NULL, container_id, "memory.peak",
		    s->path, sizeof(s->path));
		s->mem_is_peak = s->mem_fd >= 0;
		if (s->mem_fd < 0)
			s->mem_fd = open_in(pid, NULL, container_id,
			    "memory.current", s->path, sizeof(s->path));
		s->oom_fd = open_in(pid, NULL, container_id,
		    "memory.events", NULL, 0);
		s->cpu_fd = open_in(pid, NULL, container_id, "cpu.stat",
		    NULL, 0);
	}
	if (!cg_active(s))
		return -1;
	cg_sample(s);
	return 0;
}

/*
 * Read a whole small file from offset 0.  Returns the length, or -1
 * (ENODEV once the cgroup is removed).
 */
static ssize_t
read_at0(int fd, char *buf, size_t len)
{
	ssize_t n = RETRY_EINTR(pread(fd, buf, len - 1, 0));

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The number after "key " on a line of `text`, or -1. */
static long long
keyed(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static void
keep_max(long long *cur, long long v)
{
	if (v >= 0 && v > *cur)
		*cur = v;
}

void
cg_sample(struct cg_sampler *s)
{
	char buf[1024];

	if (s->mem_fd >= 0) {
		if (read_at0(s->mem_fd, buf, sizeof(buf)) < 0)
			close_fd(&s->mem_fd);
		else
			keep_max(&s->peak_bytes, strtoll(buf, NULL, 10));
	}
	if (s->oom_fd >= 0) {
		if (read_at0(s->oom_fd, buf, sizeof(buf)) < 0)
			close_fd(&s->oom_fd);
		else
			keep_max(&s->oom_kills, keyed(buf, "oom_kill"));
	}
	if (s->cpu_fd >= 0) {
		if (read_at0(s->cpu_fd, buf, sizeof(buf)) < 0)
			close_fd(&s->cpu_fd);
		else if (s->v2)
			keep_max(&s->cpu_usec, keyed(buf, "usage_usec"));
		else
			keep_max(&s->cpu_usec, strtoll(buf, NULL, 10) / 1000);
	}
}
