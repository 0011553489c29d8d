/*
 * fake-indexer: a SCIP indexer for magus-scip's tests and the bounds
 * benchmark, linked statically so that an image made of this one file
 * runs on any engine.  Not installed.
 *
 *	fake-indexer [--output FILE] [--cwd DIR] [--allocate MB] [--exit N]
 *	             [--garbage] [--absolute] [--no-output] [--probe]
 *	             [--probe-write DIR] [--symlink TARGET] [--wait-for FILE]
 *	             [--linger MS]
 *	             [--environment FILE] [ARG]... [DIR]
 *
 * It reads every file under the project directory (DIR, --cwd, or the
 * working directory) into memory, so its peak memory grows with the
 * project, and writes a SCIP index with one document per file.  The
 * options make it misbehave on request: --allocate touches MB more
 * mebibytes (to go past a memory bound), --exit writes a partial index
 * and exits N, --garbage writes bytes that are not an index, --absolute
 * writes absolute document paths, --no-output writes nothing, --symlink
 * leaves a symbolic link to TARGET where the index belongs.  --probe
 * prints what the process sees of its confinement, one "probe: " line
 * each; --probe-write says whether DIR can be written.  --linger stays
 * MS milliseconds after the index is written, so that a run over a tiny
 * project lasts long enough for its cgroup to be read.  Every argument
 * is echoed first ("arg: "), so a test can read the argument vector a
 * built-in declaration produced; unknown options are ignored for the
 * same reason.  Called as scip-go, scip-typescript
 * or scip-python (a link), it takes those tools' output flags.
 */
#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void *
grow(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q) {
		fprintf(stderr, "fake-indexer: out of memory\n");
		exit(70);
	}
	return q;
}

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = grow(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
varint(struct buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		c |= v ? 0x80 : 0;
		put(b, &c, 1);
	} while (v);
}

static void
field(struct buf *b, unsigned num, const void *p, size_t n)
{
	varint(b, (uint64_t)num << 3 | 2);
	varint(b, n);
	put(b, p, n);
}

static void
field_str(struct buf *b, unsigned num, const char *s)
{
	field(b, num, s, strlen(s));
}

/* ---- reading the project ------------------------------------------------- */

struct file {
	char *path;	/* relative to the project */
	uint8_t *data;
	size_t size;
};

static struct file *files;
static size_t nfiles, files_cap;
static size_t total_bytes;

static void
walk(const char *root, const char *rel)
{
	char dir[8300], path[8300];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		char sub[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
		    de->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, sub);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(root, sub);
		} else if (S_ISREG(st.st_mode)) {
			struct file *f;
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			size_t got = 0;

			if (fd < 0)
				continue;
			if (nfiles == files_cap) {
				files_cap = files_cap * 2 + 16;
				files = grow(files, files_cap * sizeof(*files));
			}
			f = &files[nfiles++];
			f->path = strdup(sub);
			f->size = (size_t)st.st_size;
			f->data = grow(NULL, f->size + 1);
			while (got < f->size) {
				ssize_t n = read(fd, f->data + got,
				    f->size - got);

				if (n <= 0)
					break;
				got += (size_t)n;
			}
			f->size = got;
			total_bytes += got;
			close(fd);
		}
	}
	closedir(d);
}

/* ---- the index ----------------------------------------------------------- */

static void
metadata(struct buf *out, const char *project)
{
	struct buf m = { 0 }, t = { 0 };
	char root[4200];

	field_str(&t, 1, "fake-indexer");
	field_str(&t, 2, "1");
	snprintf(root, sizeof(root), "file://%s", project);
	varint(&m, 1 << 3);
	varint(&m, 0);
	field(&m, 2, t.p, t.len);
	field_str(&m, 3, root);
	varint(&m, 4 << 3);
	varint(&m, 1);
	field(out, 1, m.p, m.len);
	free(m.p);
	free(t.p);
}

static void
document(struct buf *out, const struct file *f, const char *prefix)
{
	struct buf d = { 0 }, occ = { 0 }, sym = { 0 };
	char path[4200], symbol[4300];
	size_t lines = 0, i;

	for (i = 0; i < f->size; i++)
		lines += f->data[i] == '\n';
	snprintf(path, sizeof(path), "%s%s", prefix, f->path);
	snprintf(symbol, sizeof(symbol), "fake . . . `%s`.", f->path);
	field_str(&d, 1, path);
	field_str(&d, 4, "text");
	/* one occurrence: range [0, 0, 1], the file's symbol, a definition */
	varint(&occ, 1 << 3 | 2);
	varint(&occ, 3);
	varint(&occ, 0);
	varint(&occ, 0);
	varint(&occ, 1);
	field_str(&occ, 2, symbol);
	varint(&occ, 3 << 3);
	varint(&occ, 1);
	field(&d, 2, occ.p, occ.len);
	field_str(&sym, 1, symbol);
	snprintf(path, sizeof(path), "%zu lines", lines);
	field_str(&sym, 3, path);
	field(&d, 3, sym.p, sym.len);
	field(out, 2, d.p, d.len);
	free(d.p);
	free(occ.p);
	free(sym.p);
}

static void
write_all(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const uint8_t *c = p;

	if (fd < 0) {
		fprintf(stderr, "fake-indexer: cannot create '%s': %s\n",
		    path, strerror(errno));
		exit(74);
	}
	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0) {
			fprintf(stderr, "fake-indexer: cannot write '%s': "
			    "%s\n", path, strerror(errno));
			exit(74);
		}
		c += w;
		n -= (size_t)w;
	}
	if (close(fd) < 0) {
		fprintf(stderr, "fake-indexer: cannot write '%s': %s\n", path,
		    strerror(errno));
		exit(74);
	}
}

/* ---- the probe ----------------------------------------------------------- */

static void
probe_file(const char *label, const char *path, const char *key)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f) {
		printf("probe: %s=absent\n", label);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!key) {
			printf("probe: %s=%s\n", label, line);
			break;
		}
		if (!strncmp(line, key, strlen(key))) {
			const char *v = line + strlen(key);

			v += strspn(v, ":\t ");
			printf("probe: %s=%s\n", label, v);
			break;
		}
	}
	fclose(f);
}

static void
probe_write(const char *label, const char *dir)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/.fake-indexer-probe", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		printf("probe: %s=%s\n", label, errno == EROFS ? "EROFS" :
		    errno == EACCES ? "EACCES" : strerror(errno));
		return;
	}
	close(fd);
	unlink(path);
	printf("probe: %s=writable\n", label);
}

static void
probe(const char *project)
{
	extern char **environ;
	char line[512], *home = getenv("HOME");
	FILE *f;
	char **e;

	printf("probe: uid=%d gid=%d\n", (int)getuid(), (int)getgid());
	probe_file("CapEff", "/proc/self/status", "CapEff");
	probe_file("CapBnd", "/proc/self/status", "CapBnd");
	probe_file("NoNewPrivs", "/proc/self/status", "NoNewPrivs");
	probe_file("Seccomp", "/proc/self/status", "Seccomp:");
	probe_write("project", project);
	probe_write("rootfs", "/");
	probe_write("home", home ? home : "/nonexistent");
	probe_file("memory-limit", "/sys/fs/cgroup/memory/"
	    "memory.limit_in_bytes", NULL);
	probe_file("memsw-limit", "/sys/fs/cgroup/memory/"
	    "memory.memsw.limit_in_bytes", NULL);
	probe_file("pids-max", "/sys/fs/cgroup/pids/pids.max", NULL);
	probe_file("cpu-quota", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", NULL);
	f = fopen("/proc/net/dev", "re");
	printf("probe: net=");
	if (f) {
		const char *sep = "";

		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');
			char *name = line + strspn(line, " ");

			if (!colon)
				continue;
			*colon = '\0';
			printf("%s%s", sep, name);
			sep = ",";
		}
		fclose(f);
	}
	printf("\n");
	for (e = environ; *e; e++)
		printf("probe: env %s\n", *e);
	fflush(stdout);
}

/* ---- main ---------------------------------------------------------------- */

static void
allocate(long mb)
{
	long i;

	for (i = 0; i < mb; i++) {
		char *p = malloc(1 << 20);

		if (!p) {
			fprintf(stderr, "fake-indexer: malloc failed at %ld "
			    "MiB\n", i);
			exit(70);
		}
		memset(p, (int)(i & 0xff) | 1, 1 << 20);
		if (i % 16 == 0) {
			fprintf(stderr, "fake-indexer: %ld MiB\n", i);
		}
	}
}

static void
wait_for(const char *path)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i;

	for (i = 0; i < 20 * 120; i++) {
		if (access(path, F_OK) == 0)
			return;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "fake-indexer: '%s' never appeared\n", path);
	exit(75);
}

int
main(int argc, char **argv)
{
	const char *output = "index.scip", *project = NULL, *wait = NULL;
	const char *env = NULL, *me = strrchr(argv[0], '/');
	const char *symlink_to = NULL;
	char cwd[4096], abs[4096];
	bool garbage = false, absolute = false, no_output = false;
	bool do_probe = false;
	long alloc_mb = 0, linger_ms = 0;
	int exit_code = -1, i;
	struct buf out = { 0 };
	size_t k;

	me = me ? me + 1 : argv[0];
	for (i = 0; i < argc; i++)
		printf("arg: %s\n", argv[i]);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] :
		    NULL;

		if (!strncmp(a, "--output=", 9))
			output = a + 9;
		else if (!strcmp(a, "--output") && next)
			output = argv[++i];
		else if (!strcmp(a, "--cwd") && next)
			project = argv[++i];
		else if (!strncmp(a, "--project-root=", 15))
			project = a + 15;
		else if ((!strcmp(a, "--project-version") ||
		    !strcmp(a, "--project-name")) && next)
			i++;
		else if (!strcmp(a, "--environment") && next)
			env = argv[++i];
		else if (!strcmp(a, "--allocate") && next)
			alloc_mb = atol(argv[++i]);
		else if (!strcmp(a, "--linger") && next)
			linger_ms = atol(argv[++i]);
		else if (!strcmp(a, "--exit") && next)
			exit_code = atoi(argv[++i]);
		else if (!strcmp(a, "--wait-for") && next)
			wait = argv[++i];
		else if (!strcmp(a, "--probe-write") && next) {
			i++;
			probe_write(argv[i], argv[i]);
		}
		else if (!strcmp(a, "--symlink") && next)
			symlink_to = argv[++i];
		else if (!strcmp(a, "--garbage"))
			garbage = true;
		else if (!strcmp(a, "--absolute"))
			absolute = true;
		else if (!strcmp(a, "--no-output"))
			no_output = true;
		else if (!strcmp(a, "--probe"))
			do_probe = true;
		else if (a[0] != '-' && strcmp(a, "index"))
			project = a;
	}
	if (!project)
		project = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	if (!realpath(project, abs)) {
		fprintf(stderr, "fake-indexer: '%s': %s\n", project,
		    strerror(errno));
		return 66;
	}
	printf("fake-indexer (as %s): indexing %s\n", me, abs);
	if (env) {
		FILE *f = fopen(env, "re");
		char line[256];

		if (!f || !fgets(line, sizeof(line), f)) {
			fprintf(stderr, "fake-indexer: cannot read the "
			    "environment '%s'\n", env);
			return 66;
		}
		line[strcspn(line, "\n")] = '\0';
		printf("environment: %s\n", line);
		fclose(f);
	}
	if (do_probe)
		probe(abs);
	fflush(stdout);
	walk(abs, "");
	if (alloc_mb)
		allocate(alloc_mb);
	if (wait)
		wait_for(wait);
	if (no_output) {
		printf("fake-indexer: writing nothing\n");
		return exit_code >= 0 ? exit_code : 0;
	}
	if (symlink_to) {
		if (symlink(symlink_to, output) < 0) {
			fprintf(stderr, "fake-indexer: symlink: %s\n",
			    strerror(errno));
			return 74;
		}
		printf("fake-indexer: %s is a link to %s\n", output,
		    symlink_to);
		return 0;
	}
	if (garbage) {
		static const char junk[] = "this is not a SCIP index\n";

		write_all(output, junk, sizeof(junk) - 1);
		printf("fake-indexer: wrote garbage to %s\n", output);
		return 0;
	}
	metadata(&out, abs);
	for (k = 0; k < nfiles; k++) {
		document(&out, &files[k], absolute ? "/" : "");
		/* A crash leaves a partial index behind. */
		if (exit_code >= 0 && k + 1 >= nfiles / 2)
			break;
	}
	write_all(output, out.p, out.len);
	printf("fake-indexer: %zu files, %zu bytes read, %zu bytes of index "
	    "in %s\n", nfiles, total_bytes, out.len, output);
	if (linger_ms > 0) {
		struct timespec ts = { linger_ms / 1000,
			(linger_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	if (exit_code >= 0) {
		fprintf(stderr, "fake-indexer: exiting %d as asked\n",
		    exit_code);
		return exit_code;
	}
	return 0;
}
