/*
 * scip-status.c: status.json, one per project, written by magus-scip on
 * every run and read by `magus scip status` and `magus doctor`.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "jsonread.h"
#include "scip.h"
#include "strbuf.h"
#include "xalloc.h"

static const char *const state_names[] = {
	[SCIP_STATE_NONE] = "none",
	[SCIP_STATE_OK] = "ok",
	[SCIP_STATE_UNAVAILABLE] = "unavailable",
	[SCIP_STATE_OOM] = "oom",
	[SCIP_STATE_FAILED] = "failed",
};

const char *
scip_state_name(enum scip_state s)
{
	return s < ARRAY_SIZE(state_names) ? state_names[s] : "none";
}

enum scip_state
scip_state_parse(const char *s)
{
	size_t i;

	for (i = 1; i < ARRAY_SIZE(state_names); i++)
		if (!strcmp(s, state_names[i]))
			return (enum scip_state)i;
	return SCIP_STATE_NONE;
}

void
scip_status_init(struct scip_status *s)
{
	memset(s, 0, sizeof(*s));
	s->memory_mb = s->pids = -1;
	s->cpus = -1;
	s->exit_status = -1;
	s->peak_memory_bytes = s->cpu_usec = s->oom_kills = -1;
	s->index_bytes = s->documents = -1;
}

void
scip_status_release(struct scip_status *s)
{
	free(s->project);
	free(s->reason);
	free(s->fix);
	free(s->code);
	free(s->time);
	free(s->image);
	free(s->image_digest);
	scip_status_init(s);
}

void
scip_time_now(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, 32, "%s", "1970-01-01T00:00:00Z");
}

static void
kv_opt(struct json *j, const char *key, const char *v)
{
	if (v && *v)
		json_kv_str(j, key, v);
}

static void
kv_num(struct json *j, const char *key, long long v)
{
	if (v >= 0)
		json_kv_int(j, key, v);
}

void
scip_status_json(const struct scip_status *s, struct strbuf *out)
{
	struct json j;

	json_init(&j, out);
	json_object_begin(&j);
	json_kv_str(&j, "state", scip_state_name(s->state));
	kv_opt(&j, "project", s->project);
	kv_opt(&j, "time", s->time);
	kv_opt(&j, "reason", s->reason);
	kv_opt(&j, "fix", s->fix);
	kv_opt(&j, "code", s->code);
	kv_opt(&j, "image", s->image);
	kv_opt(&j, "image_digest", s->image_digest);
	json_key(&j, "bounds");
	json_object_begin(&j);
	kv_num(&j, "memory_mb", s->memory_mb);
	if (s->cpus > 0) {
		json_key(&j, "cpus");
		json_double(&j, s->cpus);
	}
	kv_num(&j, "pids", s->pids);
	json_object_end(&j);
	kv_num(&j, "exit_status", s->exit_status);
	if (s->peak_memory_bytes >= 0 || s->cpu_usec >= 0 ||
	    s->oom_kills >= 0) {
		json_key(&j, "measured");
		json_object_begin(&j);
		kv_num(&j, "peak_memory_bytes", s->peak_memory_bytes);
		kv_num(&j, "cpu_usec", s->cpu_usec);
		kv_num(&j, "oom_kills", s->oom_kills);
		json_object_end(&j);
	}
	if (s->index_bytes >= 0) {
		json_key(&j, "index");
		json_object_begin(&j);
		kv_num(&j, "bytes", s->index_bytes);
		kv_num(&j, "documents", s->documents);
		json_object_end(&j);
	}
	json_object_end(&j);
	strbuf_addch(out, '\n');
}

int
scip_status_write(const char *dir, const struct scip_status *s)
{
	struct strbuf text = STRBUF_INIT;
	char *tmp = xasprintf("%s/.magus-status.XXXXXX", dir);
	char *dst = xasprintf("%s/%s", dir, SCIP_STATUS_FILE);
	size_t off = 0;
	int fd, saved;

	scip_status_json(s, &text);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto fail;
	while (off < text.len) {
		ssize_t n = write(fd, text.buf + off, text.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_unlink;
		off += (size_t)n;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		goto fail_unlink;
	if (close(fd) < 0) {
		fd = -1;
		goto fail_unlink;
	}
	fd = -1;
	if (rename(tmp, dst) < 0)
		goto fail_unlink;
	free(tmp);
	free(dst);
	strbuf_release(&text);
	return 0;
fail_unlink:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
fail:
	saved = errno;
	free(tmp);
	free(dst);
	strbuf_release(&text);
	errno = saved;
	return -1;
}

static char *
get_str(const struct jsonr *j, int obj, const char *key)
{
	int t = jsonr_get(j, obj, key);

	return jsonr_type(j, t) == JSONR_STRING ? jsonr_strdup(j, t) : NULL;
}

static long long
get_num(const struct jsonr *j, int obj, const char *key)
{
	long long v;

	if (jsonr_int(j, jsonr_get(j, obj, key), &v) < 0 || v < 0)
		return -1;
	return v;
}

int
scip_status_read(const char *dir, struct scip_status *s, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, num = STRBUF_INIT;
	char *path = xasprintf("%s/%s", dir, SCIP_STATUS_FILE);
	struct jsonr j;
	char *state;
	int t;

	scip_status_init(s);
	if (strbuf_read_file(&text, path) < 0) {
		int saved = errno;

		free(path);
		strbuf_release(&text);
		if (saved == ENOENT || saved == ENOTDIR)
			return 0;
		strbuf_addf(err, "cannot read '%s/%s': %s", dir,
		    SCIP_STATUS_FILE, strerror(saved));
		return -1;
	}
	free(path);
	if (jsonr_parse(&j, text.buf, text.len) < 0 ||
	    jsonr_type(&j, 0) != JSONR_OBJECT) {
		strbuf_addf(err, "'%s/%s' is not a JSON object", dir,
		    SCIP_STATUS_FILE);
		strbuf_release(&text);
		return -1;
	}
	state = get_str(&j, 0, "state");
	s->state = state ? scip_state_parse(state) : SCIP_STATE_NONE;
	free(state);
	if (s->state == SCIP_STATE_NONE) {
		strbuf_addf(err, "'%s/%s' names no known state", dir,
		    SCIP_STATUS_FILE);
		jsonr_release(&j);
		strbuf_release(&text);
		return -1;
	}
	s->project = get_str(&j, 0, "project");
	s->time = get_str(&j, 0, "time");
	s->reason = get_str(&j, 0, "reason");
	s->fix = get_str(&j, 0, "fix");
	s->code = get_str(&j, 0, "code");
	s->image = get_str(&j, 0, "image");
	s->image_digest = get_str(&j, 0, "image_digest");
	t = jsonr_get(&j, 0, "bounds");
	s->memory_mb = (long)get_num(&j, t, "memory_mb");
	s->pids = (long)get_num(&j, t, "pids");
	t = jsonr_get(&j, t, "cpus");
	if (jsonr_type(&j, t) == JSONR_NUMBER) {
		size_t n;
		const char *raw = jsonr_raw(&j, t, &n);

		strbuf_add(&num, raw, n);
		s->cpus = strtod(num.buf, NULL);
	}
	s->exit_status = (int)get_num(&j, 0, "exit_status");
	t = jsonr_get(&j, 0, "measured");
	s->peak_memory_bytes = get_num(&j, t, "peak_memory_bytes");
	s->cpu_usec = get_num(&j, t, "cpu_usec");
	s->oom_kills = get_num(&j, t, "oom_kills");
	t = jsonr_get(&j, 0, "index");
	s->index_bytes = get_num(&j, t, "bytes");
	s->documents = get_num(&j, t, "documents");
	jsonr_release(&j);
	strbuf_release(&text);
	strbuf_release(&num);
	return 1;
}
