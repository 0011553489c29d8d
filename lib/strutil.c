#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

bool
starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

unsigned
edit_distance(const char *a, const char *b)
{
	/* Optimal string alignment distance on three rolling rows. */
	unsigned rows[3][101], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	size_t n = strlen(a), m = strlen(b), i, j;

	if (n > 100 || m > 100)
		return 100;
	for (j = 0; j <= m; j++)
		prev[j] = (unsigned)j;
	for (i = 1; i <= n; i++) {
		unsigned *t;

		cur[0] = (unsigned)i;
		for (j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = prev[j] + 1;

			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (prev[j - 1] + cost < v)
				v = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m] > 100 ? 100 : prev[m];
}

const char *
closest_word(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	unsigned best_d = 100, d, limit;

	/* Allow one edit for short words, two for longer ones. */
	limit = strlen(word) <= 4 ? 1 : 2;
	for (; *candidates; candidates++) {
		d = edit_distance(word, *candidates);
		if (d < best_d) {
			best_d = d;
			best = *candidates;
		}
	}
	return best_d <= limit ? best : NULL;
}

char *
path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	while (*name == '/')
		name++;
	if (n == 1 && dir[0] == '/')
		return xasprintf("/%s", name);
	return xasprintf("%.*s/%s", (int)n, dir, name);
}

char *
expand_home(const char *path)
{
	const char *home;

	if (path[0] != '~' || (path[1] && path[1] != '/'))
		return xstrdup(path);
	home = getenv("HOME");
	if (!home || !*home)
		return xstrdup(path);
	return xasprintf("%s%s", home, path + 1);
}

char *
path_absolute(const char *path)
{
	struct strbuf out = STRBUF_INIT;
	char cwd[PATH_MAX];
	const char *p, *seg;
	size_t len;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return xstrdup(path);
		strbuf_addstr(&out, cwd);
	}
	for (p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		seg = p;
		while (*p && *p != '/')
			p++;
		len = (size_t)(p - seg);
		if (len == 1 && seg[0] == '.')
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *slash = strrchr(out.buf, '/');

			strbuf_setlen(&out, slash ? (size_t)(slash - out.buf) : 0);
			continue;
		}
		strbuf_addch(&out, '/');
		strbuf_add(&out, seg, len);
	}
	if (!out.len)
		strbuf_addch(&out, '/');
	return strbuf_detach(&out, NULL);
}

bool
path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

bool
parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool
parse_positive_double(const char *s, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0))
		return false;
	*out = v;
	return true;
}

static void
wrap_paragraph(struct strbuf *out, const char *p, size_t len, unsigned indent,
    unsigned width)
{
	unsigned col = 0, hang = indent;
	const char *end = p + len, *w;
	bool item = len > 2 && p[0] == '-' && p[1] == ' ';

	if (item)
		hang = indent + 2;
	while (p < end) {
		size_t wl;

		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		if (p >= end)
			break;
		w = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		wl = (size_t)(p - w);
		if (col == 0) {
			strbuf_addf(out, "%*s", (int)indent, "");
			col = indent;
		} else if (col + 1 + wl > width) {
			strbuf_addf(out, "\n%*s", (int)hang, "");
			col = hang;
		} else {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, w, wl);
		col += (unsigned)wl;
	}
	strbuf_addch(out, '\n');
}

void
wrap_text(struct strbuf *out, const char *text, unsigned indent,
    unsigned width)
{
	const char *p = text, *next;

	while (*p) {
		next = strstr(p, "\n\n");
		if (!next)
			next = p + strlen(p);
		wrap_paragraph(out, p, (size_t)(next - p), indent, width);
		if (!*next)
			break;
		strbuf_addch(out, '\n');
		p = next + 2;
	}
}

void
copy_truncated(char *dst, size_t size, const void *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

char *
path_find_program(const char *path, const char *name)
{
	char *copy, *s, *dir, *found = NULL;
	struct stat st;
	int err = ENOENT;

	if (!*name) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/'))
		return xstrdup(name);
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (s = copy; (dir = strsep(&s, ":"));) {
		char *cand = path_join(*dir ? dir : ".", name);

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				found = cand;
				break;
			}
			err = EACCES;
		}
		free(cand);
	}
	free(copy);
	if (!found)
		errno = err;
	return found;
}

int
option_value(int argc, char **argv, int *i, const char *name,
    const char **value)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	*value = NULL;
	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=')
		*value = a + n + 1;
	else if (a[n] == '\0' && *i + 1 >= argc)
		return -1;
	else if (a[n] == '\0')
		*value = argv[++*i];
	else if (name[1] != '-') /* -CDIR, -ojson */
		*value = a + n;
	return *value != NULL;
}
