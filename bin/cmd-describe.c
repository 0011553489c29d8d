/*
 * magus describe tools: the tools magus.yaml declares (`tools:`), each
 * looked up on PATH and asked for its version, so a missing one is named
 * before a run dies on it.  Under --platform the front hands the whole
 * invocation to magus-relay, and the same verb runs inside the image:
 * the answer is then a fact about the image.
 *
 * Each probe is `TOOL --version` run through magus-sandbox-exec like any
 * other command magus runs, with stdin from /dev/null.  Its output goes
 * (through sh, to fd 3) to an unlinked file in a private directory and
 * is read back from there, so the sandbox's own diagnostics still reach
 * the user's stderr instead of passing for a version.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "front.h"
#include "json.h"
#include "platform.h"
#include "strbuf.h"
#include "strutil.h"
#include "tmpdir.h"
#include "xalloc.h"

/* The most of a version line kept: enough for any tool's banner. */
#define VERSION_MAX 160

struct tool {
	const char *name;
	char *path;		/* NULL: not found */
	struct strbuf version;	/* the probe's first line, printable */
	int status;		/* the probe's exit status */
};

static int
usage(FILE *to, int status)
{
	fputs("usage: magus [--platform OS/ARCH] describe tools\n", to);
	return status;
}

static bool
is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/* NAME on PATH, as execvp would find it; a name with a slash as is,
 * when it is an executable file. */
static char *
find_on_path(const char *name)
{
	char *found = path_find_program(getenv("PATH"), name);

	/* Found on PATH, it is an executable file already; a name with a
	 * slash is returned unchecked. */
	if (found && strchr(name, '/') && !is_executable_file(found)) {
		free(found);
		found = NULL;
	}
	return found;
}

/* The first non-blank line of `out`, control bytes replaced, capped. */
static void
first_line(const struct strbuf *out, struct strbuf *line)
{
	const char *p = out->buf, *end;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		end = strchrnul(p, '\n');
		if (end > p || !*end)
			break;
		p = end;
	}
	for (; p < end && line->len < VERSION_MAX; p++)
		strbuf_addch(line, (unsigned char)*p < 0x20 || *p == 0x7f ?
		    ' ' : *p);
	strbuf_rtrim(line);
}

/* Run `path --version` in the sandbox; its first line into t->version. */
static int
probe(struct front *f, struct tool *t, const char *dir)
{
	struct sandboxed s;
	struct strbuf out = STRBUF_INIT;
	char sh[] = "sh", c[] = "-c";
	char script[] = "exec \"$0\" --version </dev/null >&3 2>&3 3>&-";
	char *const argv[] = { sh, c, script, t->path, NULL };
	char file[PATH_MAX];
	int fd;

	snprintf(file, sizeof(file), "%s/probe", dir);

	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || unlink(file) < 0) {
		diag(1103, NULL, "cannot make the probe's output file '%s': "
		    "%s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.root = f->root;
	s.cwd = f->root;
	s.mode = f->cfg.sandbox.mode;
	s.base = &f->cfg.sandbox;
	s.argv = argv;
	s.fd3 = fd;
	t->status = front_run_sandboxed(f, &s);
	if (lseek(fd, 0, SEEK_SET) < 0 || strbuf_read_fd(&out, fd) < 0) {
		diag(1103, NULL, "cannot read the output of '%s --version': "
		    "%s", t->name, strerror(errno));
		close(fd);
		strbuf_release(&out);
		return -1;
	}
	close(fd);
	first_line(&out, &t->version);
	strbuf_release(&out);
	return 0;
}

static void
print_text(const struct tool *tools, size_t n, const char *platform)
{
	size_t i, w = 4, pw = 4;

	for (i = 0; i < n; i++) {
		if (strlen(tools[i].name) > w)
			w = strlen(tools[i].name);
		if (tools[i].path && strlen(tools[i].path) > pw)
			pw = strlen(tools[i].path);
	}
	printf("tools on %s:\n", platform);
	for (i = 0; i < n; i++) {
		const struct tool *t = &tools[i];

		if (!t->path)
			printf("  %-*s  missing (not on PATH)\n", (int)w,
			    t->name);
		else if (t->version.len)
			printf("  %-*s  %-*s  %s\n", (int)w, t->name,
			    (int)pw, t->path, t->version.buf);
		else
			printf("  %-*s  %-*s  (no version: '--version' "
			    "exited %d)\n", (int)w, t->name, (int)pw, t->path,
			    t->status);
	}
}

static void
print_json(const struct tool *tools, size_t n, const char *platform)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;
	size_t i;

	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_str(&j, "platform", platform);
	json_key(&j, "tools");
	json_array_begin(&j);
	for (i = 0; i < n; i++) {
		const struct tool *t = &tools[i];

		json_object_begin(&j);
		json_kv_str(&j, "name", t->name);
		json_key(&j, "found");
		json_bool(&j, t->path != NULL);
		json_key(&j, "path");
		if (t->path)
			json_str(&j, t->path);
		else
			json_null(&j);
		json_key(&j, "version");
		if (t->path && t->version.len)
			json_str(&j, t->version.buf);
		else
			json_null(&j);
		json_key(&j, "probe_status");
		if (t->path)
			json_int(&j, t->status);
		else
			json_null(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	printf("%s\n", sb.buf);
	strbuf_release(&sb);
}

static int
describe_tools(struct front *f)
{
	const struct magus_config *cfg;
	struct strbuf missing = STRBUF_INIT;
	struct platform host;
	struct tool *tools;
	char *dir;
	size_t i, n, nmissing = 0;
	int rc = 0;

	front_load_config(f);
	cfg = &f->cfg;
	n = cfg->ntools;
	if (!n) {
		diag(1017, "list them under 'tools' in magus.yaml, for "
		    "example: tools: [git, make, cc]", "no tools are declared "
		    "in '%s/magus.yaml'", f->root);
		return 2;
	}
	dir = private_dir_make("magus-describe");
	if (!dir) {
		diag(1103, NULL, "cannot make a private temp dir: %s",
		    strerror(errno));
		return 71;
	}
	front_export_env(f);
	tools = xcalloc(n, sizeof(*tools));
	for (i = 0; i < n; i++) {
		struct tool *t = &tools[i];

		t->name = cfg->tools[i].value;
		strbuf_init(&t->version, 0);
		t->path = find_on_path(t->name);
		if (!t->path) {
			strbuf_addf(&missing, "%s'%s'", nmissing++ ? ", " : "",
			    t->name);
			continue;
		}
		if (probe(f, t, dir) < 0) {
			rc = 71;
			n = i + 1;
			break;
		}
	}
	if (remove_tree(dir) < 0)
		warn_msg("cannot remove the private temp dir '%s': %s", dir,
		    strerror(errno));
	free(dir);
	platform_host(&host);
	if (!rc) {
		if (diag_json())
			print_json(tools, n, platform_str(&host));
		else
			print_text(tools, n, platform_str(&host));
		fflush(stdout);
	}
	if (!rc && nmissing) {
		diag(1016, "install them (in the image, for a relayed run), "
		    "or drop them from 'tools' in magus.yaml", "%zu declared "
		    "tool%s not found on %s: %s", nmissing, nmissing > 1 ?
		    "s are" : " is", platform_str(&host), missing.buf);
		rc = 3;
	}
	for (i = 0; i < cfg->ntools; i++) {
		free(tools[i].path);
		strbuf_release(&tools[i].version);
	}
	free(tools);
	strbuf_release(&missing);
	return rc;
}

int
cmd_describe(struct front *f, int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")))
		return usage(stdout, 0);
	if (argc < 2)
		verb_usage_error("describe", "name what to describe: 'tools'");
	if (argv[1][0] == '-')
		verb_bad_option("describe", argv[1]);
	if (strcmp(argv[1], "tools"))
		verb_usage_error("describe", "'%s' is not something to "
		    "describe; the one subject is 'tools'", argv[1]);
	if (argc > 2) {
		if (argv[2][0] == '-')
			verb_bad_option("describe", argv[2]);
		verb_usage_error("describe", "'tools' takes no arguments");
	}
	return describe_tools(f);
}
