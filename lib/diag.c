#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "strbuf.h"

const struct mgs_entry mgs_table[] = {
#define MGS(code, status, summary, explanation, resolution)                   \
	{ code, status, summary, explanation, resolution },
#include "mgs.def"
#undef MGS
};
const size_t mgs_table_len = ARRAY_SIZE(mgs_table);

static const char *progname = "magus";
static bool json_mode;
static int verbosity;

const struct mgs_entry *
mgs_lookup(int code)
{
	size_t i;

	for (i = 0; i < mgs_table_len; i++)
		if (mgs_table[i].code == code)
			return &mgs_table[i];
	return NULL;
}

int
mgs_parse(const char *s)
{
	int v = 0, digits = 0;

	if (!strncasecmp(s, "MGS", 3))
		s += 3;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || ++digits > 4)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return digits == 4 ? v : -1;
}

void
diag_init(const char *argv0)
{
	const char *out = getenv("MAGUS_OUTPUT");
	const char *slash;

	if (argv0 && *argv0) {
		slash = strrchr(argv0, '/');
		progname = slash ? slash + 1 : argv0;
	}
	json_mode = out && !strcmp(out, "json");
}

const char *
diag_progname(void)
{
	return progname;
}

void
diag_set_json(bool on)
{
	json_mode = on;
}

bool
diag_json(void)
{
	return json_mode;
}

void
diag_set_verbose(int level)
{
	verbosity = level;
}

int
diag_verbose(void)
{
	return verbosity;
}

/* One write per diagnostic, so lines from concurrent processes do not mix. */
static void
emit(struct strbuf *sb)
{
	size_t off = 0;
	ssize_t n;

	while (off < sb->len) {
		n = write(STDERR_FILENO, sb->buf + off, sb->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
}

void
vdiag(int code, const char *hint, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT;
	int saved = errno;

	strbuf_vaddf(&msg, fmt, ap);
	if (json_mode) {
		struct json j;

		json_init(&j, &out);
		json_object_begin(&j);
		if (code > 0) {
			char c[16];

			snprintf(c, sizeof(c), "MGS%04d", code);
			json_kv_str(&j, "code", c);
		}
		json_kv_str(&j, "program", progname);
		json_kv_str(&j, "message", msg.buf);
		if (hint)
			json_kv_str(&j, "hint", hint);
		json_object_end(&j);
		strbuf_addch(&out, '\n');
	} else {
		if (code > 0)
			strbuf_addf(&out, "%s: [MGS%04d] %s\n", progname, code,
			    msg.buf);
		else
			strbuf_addf(&out, "%s: %s\n", progname, msg.buf);
		if (hint)
			strbuf_addf(&out, "hint: %s\n", hint);
	}
	emit(&out);
	strbuf_release(&msg);
	strbuf_release(&out);
	errno = saved;
}

void
diag(int code, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(code, hint, fmt, ap);
	va_end(ap);
}

void
die_mgs(int code, const char *hint, const char *fmt, ...)
{
	const struct mgs_entry *e = mgs_lookup(code);
	va_list ap;

	va_start(ap, fmt);
	vdiag(code, hint, fmt, ap);
	va_end(ap);
	/* A code missing from the table is a bug; fail as the OS layer. */
	exit(e && e->status ? e->status : 71);
}

void
error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(0, NULL, fmt, ap);
	va_end(ap);
}

void
die_status(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(0, NULL, fmt, ap);
	va_end(ap);
	exit(status);
}

void
warn_msg(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addstr(&sb, "warning: ");
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag(0, NULL, "%s", sb.buf);
	strbuf_release(&sb);
}

void
verbose_msg(const char *fmt, ...)
{
	va_list ap;

	if (!verbosity)
		return;
	va_start(ap, fmt);
	vdiag(0, NULL, fmt, ap);
	va_end(ap);
}
