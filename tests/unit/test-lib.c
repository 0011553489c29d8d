/*
 * test-lib: unit tests for libmagus, in TAP.
 */
#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "json.h"
#include "labels.h"
#include "platform.h"
#include "proc.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "tap.h"
#include "xalloc.h"

static void
test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *p;
	size_t len;
	int i;

	is_str(sb.buf, "", "an empty strbuf reads as \"\"");
	strbuf_addstr(&sb, "abc");
	strbuf_addch(&sb, 'd');
	strbuf_addf(&sb, "%d-%s", 42, "x");
	is_str(sb.buf, "abcd42-x", "add, addch and addf append");
	for (i = 0; i < 1000; i++)
		strbuf_addstr(&sb, "0123456789");
	ok(sb.len == 8 + 10000 && sb.buf[sb.len] == '\0',
	    "growth keeps the length and the terminating NUL");
	strbuf_setlen(&sb, 3);
	strbuf_addstr(&sb, "  \n");
	strbuf_rtrim(&sb);
	is_str(sb.buf, "abc", "setlen and rtrim");
	p = strbuf_detach(&sb, &len);
	ok(len == 3 && !strcmp(p, "abc") && sb.len == 0 && sb.buf[0] == '\0',
	    "detach hands over the buffer and resets");
	free(p);
	strbuf_add(&sb, "a\0b", 3);
	ok(sb.len == 3 && sb.buf[1] == '\0' && sb.buf[2] == 'b',
	    "binary data with NUL bytes is kept");
	strbuf_release(&sb);

	/* A read that fails (a directory: EISDIR) leaves sb as it was. */
	ok(strbuf_read_file(&sb, "/") < 0 && errno == EISDIR &&
	    sb.alloc == 0 && sb.len == 0 && sb.buf[0] == '\0',
	    "a failed read of an empty strbuf leaves it empty, owning nothing");
	strbuf_addstr(&sb, "kept");
	ok(strbuf_read_file(&sb, "/") < 0 && errno == EISDIR &&
	    sb.len == 4 && !strcmp(sb.buf, "kept"),
	    "a failed read keeps what the strbuf held");
	strbuf_release(&sb);
}

static void
test_strvec(void)
{
	struct strvec sv = STRVEC_INIT;
	int i;

	ok(sv.v[0] == NULL && sv.n == 0, "an empty strvec is NULL-terminated");
	for (i = 0; i < 100; i++)
		strvec_pushf(&sv, "a%d", i);
	ok(sv.n == 100 && sv.v[100] == NULL && !strcmp(sv.v[99], "a99"),
	    "push keeps the NULL terminator");
	ok(strvec_find(&sv, "a42") == 42 && strvec_find(&sv, "b") == -1,
	    "find");
	strvec_clear(&sv);
	env_set(&sv, "A", "1");
	env_set(&sv, "AB", "2");
	env_set(&sv, "A", "3");
	ok(sv.n == 2, "env_set replaces an existing name");
	is_str(env_get(sv.v, "A"), "3", "env_get finds the exact name");
	is_str(env_get(sv.v, "AB"), "2", "env_get does not match a prefix");
	ok(env_get(sv.v, "ABC") == NULL, "env_get of an absent name");
	strvec_clear(&sv);
}

static void
test_json(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_str(&j, "a", "x\"y\\z\n\t\x01");
	json_key(&j, "list");
	json_array_begin(&j);
	json_int(&j, -3);
	json_bool(&j, true);
	json_null(&j);
	json_object_begin(&j);
	json_object_end(&j);
	json_array_end(&j);
	json_kv_str(&j, "u", "caf\xc3\xa9 \xff");
	json_object_end(&j);
	is_str(sb.buf, "{\"a\":\"x\\\"y\\\\z\\n\\t\\u0001\",\"list\":[-3,true,"
	    "null,{}],\"u\":\"caf\xc3\xa9 \\u00ff\"}",
	    "the writer places commas and escapes strings");
	strbuf_release(&sb);
}

static void
test_strutil(void)
{
	static const char *const verbs[] = { "doctor", "explain", "help",
		"config", NULL };
	char *p;

	ok(edit_distance("doctor", "doctro") == 1, "a transposition is one edit");
	ok(edit_distance("", "abc") == 3, "distance from empty");
	is_str(closest_word("doctr", verbs), "doctor", "closest word");
	ok(closest_word("zzzzzz", verbs) == NULL, "no suggestion when far");
	p = path_join("/a/b/", "/c");
	is_str(p, "/a/b/c", "path_join folds slashes");
	free(p);
	p = path_join("/", "c");
	is_str(p, "/c", "path_join at the root");
	free(p);
	p = path_absolute("/a/./b/../c//d/");
	is_str(p, "/a/c/d", "path_absolute folds . and ..");
	free(p);
	p = path_absolute("/../..");
	is_str(p, "/", "path_absolute stops at /");
	free(p);
	ok(path_is_under("/a/b", "/a") && path_is_under("/a", "/a/") &&
	    !path_is_under("/ab", "/a") && path_is_under("/x", "/"),
	    "path_is_under compares whole components");
	setenv("HOME", "/home/t", 1);
	p = expand_home("~/x");
	is_str(p, "/home/t/x", "expand_home expands ~/");
	free(p);
	p = expand_home("~user/x");
	is_str(p, "~user/x", "expand_home leaves ~user alone");
	free(p);
	{
		long v;
		double d;

		ok(parse_long("42", 0, 100, &v) && v == 42, "parse_long");
		ok(!parse_long("42x", 0, 100, &v) && !parse_long("", 0, 1, &v)
		    && !parse_long("101", 0, 100, &v) &&
		    !parse_long(" 1", 0, 10, &v), "parse_long refuses junk");
		ok(parse_positive_double("0.5", &d) && d == 0.5,
		    "parse_positive_double");
		ok(!parse_positive_double("0", &d) &&
		    !parse_positive_double("1e3", &d) &&
		    !parse_positive_double("-1", &d),
		    "parse_positive_double refuses 0, exponents, signs");
	}
	{
		struct strbuf sb = STRBUF_INIT;

		wrap_text(&sb, "aaa bbb ccc\n\n- ddd eee", 2, 10);
		is_str(sb.buf, "  aaa bbb\n  ccc\n\n  - ddd\n    eee\n",
		    "wrap_text wraps, indents and hangs list items");
		strbuf_release(&sb);
	}
	{
		static char words[][24] = { "magus", "--platform",
			"linux/arm64", "--platform=linux/amd64", "-C/w", "-C",
			"/v", "--platformx", "-o" };
		static const struct {
			int at, want, next;
			const char *name, *value, *what;
		} cases[] = {
			{ 1, 1, 2, "--platform", "linux/arm64",
			    "--name VALUE takes the next word" },
			{ 3, 1, 3, "--platform", "linux/amd64", "--name=VALUE" },
			{ 4, 1, 4, "-C", "/w", "a short name's value joined" },
			{ 5, 1, 6, "-C", "/v", "or in the next word" },
			{ 7, 0, 7, "--platform", NULL,
			    "a longer name is another option" },
			{ 4, 0, 4, "--platform", NULL, "another option" },
			{ 8, -1, 8, "-o", NULL, "a value missing at the end" },
		};
		char *av[10];
		const char *v;
		size_t k;
		int i, r;

		for (k = 0; k < 9; k++)
			av[k] = words[k];
		av[9] = NULL;
		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			i = cases[k].at;
			r = option_value(9, av, &i, cases[k].name, &v);
			ok(r == cases[k].want && i == cases[k].next &&
			    (cases[k].value ? v && !strcmp(v, cases[k].value) :
			    !v), "option_value: %s", cases[k].what);
		}
	}
}

static void
test_platform(void)
{
	struct strbuf err = STRBUF_INIT;
	struct platform p;
	char arch[16];

	ok(platform_parse("linux/arm64", &p, &err) == 0 &&
	    !strcmp(p.os, "linux") && !strcmp(p.arch, "arm64") && !p.variant[0],
	    "linux/arm64 parses");
	ok(platform_parse("linux/arm/v7", &p, &err) == 0 &&
	    !strcmp(p.variant, "v7"), "a variant parses");
	is_str(platform_str(&p), "linux/arm/v7", "platform_str");
	is_str(platform_dirname(&p), "linux-arm-v7", "platform_dirname");
	strbuf_reset(&err);
	ok(platform_parse("linux", &p, &err) < 0 &&
	    strstr(err.buf, "linux/" MAGUS_HOST_ARCH),
	    "bare linux is refused naming the host's arch");
	strbuf_reset(&err);
	ok(platform_parse("plan9/amd64", &p, &err) < 0 &&
	    strstr(err.buf, "plan9"), "an unknown os is refused");
	strbuf_reset(&err);
	ok(platform_parse("linux/mips", &p, &err) < 0 &&
	    strstr(err.buf, "mips"), "an unknown arch is refused");
	ok(platform_parse("linux/arm64/v9", &p, &err) < 0,
	    "an unknown variant is refused");
	ok(platform_parse("linux/amd64/", &p, &err) < 0 &&
	    platform_parse("/amd64", &p, &err) < 0 &&
	    platform_parse("linux/amd64/v2/x", &p, &err) < 0,
	    "malformed platforms are refused");
	platform_host(&p);
	ok(platform_is_host(&p), "the host platform is the host");
	strbuf_reset(&err);
	ok(elf_arch("/bin/sh", arch, sizeof(arch), &err) == 0 &&
	    !strcmp(arch, MAGUS_HOST_ARCH), "/bin/sh is an ELF for this host");
	strbuf_reset(&err);
	ok(elf_arch("/etc/passwd", arch, sizeof(arch), &err) < 0 &&
	    strstr(err.buf, "not an ELF"), "a text file is not an ELF");
	strbuf_release(&err);
}

static void
test_diag_table(void)
{
	size_t i, j;
	int sorted = 1, unique = 1, style = 1, statuses = 1;

	for (i = 0; i < mgs_table_len; i++) {
		const struct mgs_entry *e = &mgs_table[i];
		size_t n = strlen(e->summary);

		if (i && mgs_table[i - 1].code >= e->code)
			sorted = 0;
		for (j = 0; j < i; j++)
			if (mgs_table[j].code == e->code)
				unique = 0;
		if (!n || isupper((unsigned char)e->summary[0]) ||
		    e->summary[n - 1] == '.' || !*e->explanation ||
		    !*e->resolution || strchr(e->summary, '\n'))
			style = 0;
		if (e->status < 0 || e->status > 255 || e->status == 75)
			statuses = 0;
	}
	ok(mgs_table_len >= 10, "the table holds codes");
	ok(sorted, "codes are in ascending order");
	ok(unique, "codes are unique");
	ok(style, "summaries are lowercase one-liners without a full stop; "
	    "every code has an explanation and a resolution");
	ok(statuses, "statuses are exit statuses, never 75");
	ok(mgs_parse("MGS2012") == 2012 && mgs_parse("mgs0001") == 1 &&
	    mgs_parse("2012") == 2012 && mgs_parse("MGS201") == -1 &&
	    mgs_parse("MGS20123") == -1 && mgs_parse("MGSx012") == -1,
	    "mgs_parse");
	ok(mgs_lookup(2012) && mgs_lookup(2012)->status == 78,
	    "MGS2012 exits 78");
	for (i = 2001; i <= 2012; i++) {
		if (i == 2009 || i == 2011)
			continue;
		if (!mgs_lookup((int)i))
			break;
	}
	ok(i == 2013, "the sandbox codes MGS2001..MGS2012 are seeded");
}

static void
test_config_helpers(void)
{
	ok(passthrough_pattern_error("MISE_*") == NULL &&
	    passthrough_pattern_error("GOPATH") == NULL,
	    "MISE_* and GOPATH are valid passthrough patterns");
	ok(passthrough_pattern_error("M*") && passthrough_pattern_error("AB*")
	    && passthrough_pattern_error("ABC*") &&
	    passthrough_pattern_error("A-B") && passthrough_pattern_error(""),
	    "short, unterminated and malformed patterns are refused");
	ok(passthrough_pattern_error("AB_*") == NULL,
	    "a three-character prefix ending in _ is valid");
	ok(image_ref_pinned("busybox@sha256:"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
	    "a digest-pinned ref");
	ok(!image_ref_pinned("busybox:latest") &&
	    !image_ref_pinned("busybox@sha256:abc") &&
	    !image_ref_pinned("@sha256:"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
	    "tags, short digests and nameless refs are not pinned");
	ok(sandbox_mode_parse("best-effort") == SANDBOX_BEST_EFFORT &&
	    sandbox_mode_parse("Required") == SANDBOX_UNSET,
	    "sandbox modes parse exactly");
}

static int child_wrote;

/* A child_setup hook writing to what may be our own memory. */
static int
write_flag(void *arg)
{
	(void)arg;
	child_wrote = 1;
	return 0;
}

static int
refuse(void *arg)
{
	(void)arg;
	errno = EPERM;
	return -1;
}

static int
no_parent_setup(pid_t pid, void *arg)
{
	(void)pid;
	(void)arg;
	return 0;
}

/* run_child's share_vm: the child runs in our memory until its exec. */
static void
test_proc_share_vm(void)
{
	char sh[] = "sh", c[] = "-c", e7[] = "exit 7", nope[] = "nope",
	    at_root[] = "[ \"$(pwd)\" = / ]";
	char *const argv[] = { sh, c, e7, NULL };
	char *const cwd_argv[] = { sh, c, at_root, NULL };
	char *const missing[] = { nope, NULL };
	struct run_opts vm = { write_flag, NULL, NULL, NULL }, fk = vm;
	int err = 0;

	vm.share_vm = true;
	child_wrote = 0;
	ok(run_child("/bin/sh", argv, NULL, &vm) == 7,
	    "share_vm: the exit status passes through");
#if defined(__SANITIZE_ADDRESS__)
	ok(child_wrote == 0, "share_vm under AddressSanitizer: a fork, the "
	    "child's write stays its own");
#else
	ok(child_wrote == 1, "share_vm: the child ran in our memory (its "
	    "write is ours)");
#endif
	child_wrote = 0;
	ok(run_child("/bin/sh", argv, NULL, &fk) == 7 && child_wrote == 0,
	    "without it, a fork: the child's write stays its own");
	vm.child_setup = NULL;
	vm.cwd = "/";
	ok(run_child("/bin/sh", cwd_argv, NULL, &vm) == 0,
	    "share_vm: the child starts in cwd");
	vm.cwd = NULL;
	vm.exec_errno = &err;
	ok(run_child("/nonexistent/x", missing, NULL, &vm) == 127 &&
	    err == ENOENT, "share_vm: a missing program exits 127 with "
	    "ENOENT reported");
	err = 0;
	vm.child_setup = refuse;
	ok(run_child("/bin/sh", argv, NULL, &vm) == 126 && err == EPERM,
	    "share_vm: a refusing child_setup stops the exec, its errno "
	    "reported");
	vm.child_setup = NULL;
	vm.parent_setup = no_parent_setup;
	errno = 0;
	ok(run_child("/bin/sh", argv, NULL, &vm) == -1 && errno == EINVAL,
	    "share_vm with a parent_setup is refused (EINVAL)");
}

static void
test_proc(void)
{
	char sh[] = "sh", c[] = "-c", e7[] = "exit 7", kt[] = "kill -TERM $$",
	    nope[] = "nope";
	char *const argv[] = { sh, c, e7, NULL };
	char *const kill_argv[] = { sh, c, kt, NULL };
	char *const missing[] = { nope, NULL };
	int err = 0;
	struct run_opts opts = { NULL, NULL, NULL, &err };

	ok(proc_start_time(getpid()) > 0, "our own start time is readable");
	ok(proc_start_time(0) == 0, "pid 0 has no start time");
	ok(run_child("/bin/sh", argv, NULL, NULL) == 7,
	    "run_child passes the exit status through");
	ok(run_child("/bin/sh", kill_argv, NULL, NULL) == 128 + SIGTERM,
	    "a signal death reads as 128 + n");
	ok(run_child("/nonexistent/x", missing, NULL, &opts) == 127 &&
	    err == ENOENT, "a missing program exits 127 with ENOENT reported");
}

/*
 * Judge `kv` in a child that has become uid 65534 (so kill(owner, 0)
 * fails with EPERM), optionally after mounting a private /proc that hides
 * other users' processes.  Returns the judgement, or -1 when the child
 * could not set itself up.
 */
static int
judge_as_nobody(char *const *kv, bool hidepid)
{
	pid_t child;
	int st;

	fflush(stdout);
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		if (hidepid && (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, "hidepid=2") < 0))
			_exit(100);
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534,
		    65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(101);
		_exit((int)labels_owner(kv, NULL));
	}
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) >= 100)
		return -1;
	return WEXITSTATUS(st);
}

/* Is `pid` a zombie (state Z in /proc/PID/stat)? */
static bool
zombie(pid_t pid)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64];
	const char *p;
	bool z;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (strbuf_read_file(&sb, path) < 0)
		return false;
	p = strrchr(sb.buf, ')');
	z = p && !strncmp(p, ") Z", 3);
	strbuf_release(&sb);
	return z;
}

/* A test that needs root: skipped without it, failed under
 * MAGUS_TEST_MUST_WORK=1. */
static bool
need_root(const char *what)
{
	const char *must = getenv("MAGUS_TEST_MUST_WORK");

	if (geteuid() == 0)
		return true;
	if (must && !strcmp(must, "1"))
		ok(0, "%s: needs root, and MAGUS_TEST_MUST_WORK=1", what);
	else
		printf("ok %d # skip %s: needs root\n", ++tap_n, what);
	return false;
}

static void
test_labels(void)
{
	struct magus_labels l;
	struct strvec kv = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct json j;
	const char *why = NULL;
	pid_t child;
	int st;

	ok(labels_init(&l, "/ws", "relay") == 0 && strlen(l.invocation) == 32,
	    "labels_init gathers the values, a 32-hex invocation id");
	json_init(&j, &sb);
	json_object_begin(&j);
	labels_json_members(&l, &j);
	json_object_end(&j);
	ok(strstr(sb.buf, "\"magus.workspace\":\"/ws\"") &&
	    strstr(sb.buf, "\"magus.use\":\"relay\"") &&
	    strstr(sb.buf, "\"magus.pid-start\":\""),
	    "the labels serialize as JSON members");
	strbuf_release(&sb);

#define KV(k, v) strvec_pushf(&kv, "%s=%s", k, v)
	KV(LABEL_WORKSPACE, l.workspace);
	KV(LABEL_USE, l.use);
	KV(LABEL_HOST, l.host);
	KV(LABEL_BOOT, l.boot);
	KV(LABEL_PID, l.pid);
	KV(LABEL_PID_START, l.pid_start);
	ok(labels_owner(kv.v, &why) == OWNER_LIVE, "our own labels: live (%s)",
	    why);
	is_str(labels_get(kv.v, LABEL_USE), "relay", "labels_get");
	strvec_clear(&kv);

	/* A pid that has exited, with the start time it had. */
	child = fork();
	if (child == 0)
		_exit(0);
	{
		char pid[24], start[24];

		snprintf(pid, sizeof(pid), "%d", (int)child);
		snprintf(start, sizeof(start), "%llu", proc_start_time(child));
		waitpid(child, &st, 0);
		KV(LABEL_WORKSPACE, "/ws");
		KV(LABEL_USE, "relay");
		KV(LABEL_HOST, l.host);
		KV(LABEL_BOOT, l.boot);
		KV(LABEL_PID, pid);
		KV(LABEL_PID_START, start);
		ok(labels_owner(kv.v, &why) == OWNER_GONE,
		    "an exited owner: gone (%s)", why);
		strvec_clear(&kv);
	}
	/* A pid that has exited and is not reaped yet: kill(2) still finds
	 * it, but it is gone. */
	child = fork();
	if (child == 0)
		_exit(0);
	{
		char pid[24], start[24];
		int i;

		snprintf(pid, sizeof(pid), "%d", (int)child);
		snprintf(start, sizeof(start), "%llu", proc_start_time(child));
		/* Wait for the exit without reaping it. */
		for (i = 0; i < 500 && !zombie(child); i++)
			usleep(10000);
		KV(LABEL_WORKSPACE, "/ws");
		KV(LABEL_USE, "relay");
		KV(LABEL_HOST, l.host);
		KV(LABEL_BOOT, l.boot);
		KV(LABEL_PID, pid);
		KV(LABEL_PID_START, start);
		ok(zombie(child) && kill(child, 0) == 0 &&
		    labels_owner(kv.v, &why) == OWNER_GONE,
		    "an exited owner not yet reaped: gone (%s)", why);
		waitpid(child, &st, 0);
		strvec_clear(&kv);
	}
	/* Our pid, but a start time that is not ours: a reused pid. */
	KV(LABEL_WORKSPACE, "/ws");
	KV(LABEL_USE, "relay");
	KV(LABEL_HOST, l.host);
	KV(LABEL_BOOT, l.boot);
	KV(LABEL_PID, l.pid);
	KV(LABEL_PID_START, "1");
	ok(labels_owner(kv.v, &why) == OWNER_GONE,
	    "a running pid with another start time: gone (%s)", why);
	strvec_clear(&kv);
	/* Another boot. */
	KV(LABEL_WORKSPACE, "/ws");
	KV(LABEL_USE, "relay");
	KV(LABEL_HOST, l.host);
	KV(LABEL_BOOT, "00000000-0000-0000-0000-000000000000");
	KV(LABEL_PID, l.pid);
	KV(LABEL_PID_START, l.pid_start);
	ok(labels_owner(kv.v, &why) == OWNER_GONE,
	    "an owner from before the last boot: gone (%s)", why);
	strvec_clear(&kv);
	/* Another host: never judged. */
	KV(LABEL_WORKSPACE, "/ws");
	KV(LABEL_USE, "relay");
	KV(LABEL_HOST, "elsewhere.invalid");
	KV(LABEL_BOOT, l.boot);
	KV(LABEL_PID, "999999");
	KV(LABEL_PID_START, "1");
	ok(labels_owner(kv.v, &why) == OWNER_FOREIGN,
	    "another host's object: foreign (%s)", why);
	strvec_clear(&kv);
	/* Our own labels judged by another user: kill(2) says EPERM, which
	 * is a running process; /proc still shows its start time. */
	KV(LABEL_WORKSPACE, "/ws");
	KV(LABEL_USE, "relay");
	KV(LABEL_HOST, l.host);
	KV(LABEL_BOOT, l.boot);
	KV(LABEL_PID, l.pid);
	KV(LABEL_PID_START, l.pid_start);
	if (need_root("EPERM from kill counts as alive"))
		ok(judge_as_nobody(kv.v, false) == OWNER_LIVE,
		    "an owner another user cannot signal: live (EPERM)");
	/* With /proc hiding our process from that user, its start time
	 * cannot be read: the owner may be alive, so it is not judged. */
	if (need_root("a hidden start time is not judged"))
		ok(judge_as_nobody(kv.v, true) == OWNER_FOREIGN,
		    "an owner whose start time /proc hides: not judged");
	strvec_clear(&kv);
	KV("name", "x");
	ok(labels_owner(kv.v, &why) == OWNER_UNLABELED,
	    "an object without magus's labels: unlabeled");
	strvec_clear(&kv);
#undef KV
	labels_filters(&kv, "/ws", "scip");
	ok(kv.n == 2 && !strcmp(kv.v[0], "magus.workspace=/ws") &&
	    !strcmp(kv.v[1], "magus.use=scip"), "labels_filters");
	strvec_clear(&kv);
}

/* path_find_program: what execvp would run, in a directory of our own. */
static void
test_find_program(void)
{
	char dir[] = "/tmp/magus-test-lib.XXXXXX", *p;
	char exe[64], plain[64], sub[64], path[96];
	int fd;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(exe, sizeof(exe), "%s/tool", dir);
	snprintf(plain, sizeof(plain), "%s/data", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	fd = open(exe, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	if (fd >= 0)
		close(fd);
	fd = open(plain, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	(void)mkdir(sub, 0755);
	/* An entry that does not exist, an empty one (the current
	 * directory), then ours. */
	snprintf(path, sizeof(path), "/nonexistent::%s", dir);
	p = path_find_program(path, "tool");
	is_str(p, exe, "the executable file on PATH is found");
	free(p);
	errno = 0;
	p = path_find_program(path, "data");
	ok(!p && errno == EACCES, "a file that cannot be executed: EACCES");
	free(p);
	errno = 0;
	p = path_find_program(path, "sub");
	ok(!p && errno == ENOENT, "a directory is not a program: ENOENT");
	free(p);
	p = path_find_program(NULL, "./x/y");
	is_str(p, "./x/y", "a name with a slash is returned as it is");
	free(p);
	p = path_find_program("", "sh");
	ok(p && !strcmp(p + strlen(p) - 3, "/sh"),
	    "an empty PATH searches the default directories");
	free(p);
	(void)unlink(exe);
	(void)unlink(plain);
	(void)rmdir(sub);
	(void)rmdir(dir);
}

int
main(void)
{
	diag_init("test-lib");
	test_strbuf();
	test_strvec();
	test_json();
	test_strutil();
	test_find_program();
	test_platform();
	test_diag_table();
	test_config_helpers();
	test_proc();
	test_proc_share_vm();
	test_labels();
	return done_testing();
}
