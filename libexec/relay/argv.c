/*
 * argv.c: the relay's own flags, and the argv it relays.
 *
 * The argv after "--" runs inside verbatim (spec/relay.md, "The flag and
 * the argv"), except that the relay's own flags are taken out, and the
 * flags naming host paths (-C, --root, --config, --exec-path) cross only
 * when the path lies under the mounted checkout.  Only the verbs that
 * run something are relayed.  Every refusal here comes before anything
 * is contacted.
 */
#include "compat.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "relay.h"
#include "strutil.h"
#include "xalloc.h"

const char relay_usage_text[] =
"usage: magus-relay --platform OS/ARCH[/VARIANT] --root DIR\n"
"           [--container-api URL] [--print-request] [--fetch]\n"
"           [-o text|json] [-v] -- [FLAG ...] VERB [ARG ...]\n"
"       magus-relay --help\n";

static const char relayed_list[] =
    "run, affected, x, buzz, queue gate, queue validate, describe tools";

static void NORETURN
usage(int status)
{
	fputs(relay_usage_text, status ? stderr : stdout);
	if (!status)
		fputs("\nRuns 'magus [FLAG]... VERB [ARG]...' in a container on "
		    "the platform named,\nover the Docker Engine API.  "
		    "Relayed verbs: run, affected, x, buzz,\nqueue gate, "
		    "queue validate, and describe tools (the one read verb: "
		    "its answer\nis a fact about the image).  See "
		    "magus-relay(1).\n", stdout);
	exit(status);
}

static void NORETURN __attribute__((format(printf, 1, 2)))
refuse_cmdline(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(1002, "see 'magus-relay --help'", fmt, ap);
	va_end(ap);
	exit(2);
}

/* ---- the relay's flags ------------------------------------------------ */

static void
set_output(struct relay *r, const char *v)
{
	if (strcmp(v, "text") && strcmp(v, "json"))
		refuse_cmdline("unknown output format '%s' (text or json)", v);
	r->json = !strcmp(v, "json");
	diag_set_json(r->json);
}

static void
set_platform(struct relay *r, const char *v)
{
	struct strbuf err = STRBUF_INIT;

	if (platform_parse(v, &r->plat, &err) < 0) {
		diag(1002, NULL, "--platform: %s", err.buf);
		exit(2);
	}
	strbuf_release(&err);
	r->platform_arg = v;
}

static void
set_root(struct relay *r, const char *v)
{
	char buf[PATH_MAX];
	struct stat st;

	if (stat(v, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(v, buf)) {
		diag(1012, NULL, "--root '%s' is not a directory: %s", v,
		    errno ? strerror(errno) : "not a directory");
		exit(2);
	}
	if (!strcmp(buf, "/")) {
		diag(3036, NULL, "the workspace root '/' cannot be mounted as "
		    "the checkout");
		exit(2);
	}
	free(r->root);
	r->root = xstrdup(buf);
}

/* ---- the argv to relay ------------------------------------------------ */

/*
 * Match `--name VALUE` or `--name=VALUE` (and `-xVALUE` for a short
 * name) at av[*i]; the value, with *i moved past what it used, or NULL.
 */
static const char *
value_of(int ac, char **av, int *i, const char *name)
{
	const char *v;

	if (option_value(ac, av, i, name, &v) < 0)
		refuse_cmdline("option '%s' needs a value", name);
	return v;
}

struct pathflag {
	const char *flag;
	const char *value;
};

/* `value` taken from `base`, canonical when it exists. */
static char *
resolve_from(const char *base, const char *value)
{
	char buf[PATH_MAX];
	char *joined, *abs;

	joined = value[0] == '/' ? xstrdup(value) : path_join(base, value);
	if (realpath(joined, buf)) {
		free(joined);
		return xstrdup(buf);
	}
	abs = path_absolute(joined);
	free(joined);
	return abs;
}

static void NORETURN
outside(const struct relay *r, const char *what, const char *path)
{
	diag(3036, "the container sees no other directory of this machine's",
	    "%s '%s' lies outside the mounted checkout '%s'", what, path,
	    r->root);
	exit(2);
}

/*
 * A path flag crosses unchanged when what it names lies under the root.
 * Relative values are taken as magus takes them: from the working
 * directory, after -C.
 */
static void
check_paths(struct relay *r, const struct pathflag *pf, size_t n)
{
	char *base = xstrdup(r->cwd), *p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(pf[i].flag, "-C"))
			continue;
		p = resolve_from(base, pf[i].value);
		if (!path_is_under(p, r->root))
			outside(r, "-C", pf[i].value);
		free(base);
		base = p;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(pf[i].flag, "-C"))
			continue;
		p = resolve_from(base, pf[i].value);
		if (!path_is_under(p, r->root))
			outside(r, pf[i].flag, pf[i].value);
		if (!strcmp(pf[i].flag, "--config")) {
			free(r->config_path);
			r->config_path = p;
		} else {
			free(p);
		}
	}
	free(base);
}

static bool
is_relayed(const char *verb)
{
	static const char *const verbs[] = { "run", "affected", "x", "buzz",
		NULL };
	size_t i;

	for (i = 0; verbs[i]; i++)
		if (!strcmp(verb, verbs[i]))
			return true;
	return false;
}

static void NORETURN __attribute__((format(printf, 1, 2)))
not_relayed(const char *fmt, ...)
{
	char hint[160];
	va_list ap;

	snprintf(hint, sizeof(hint), "relayed verbs: %s; run other verbs "
	    "without --platform", relayed_list);
	va_start(ap, fmt);
	vdiag(3035, hint, fmt, ap);
	va_end(ap);
	exit(2);
}

/*
 * Walk the global flags before the verb, as the front reads them: the
 * relay's own are taken out (and honored), the rest cross as typed.
 */
static int
parse_inner_flags(struct relay *r, int ac, char **av, struct pathflag *pf,
    size_t *npf)
{
	const char *v;
	int i, at;

	for (i = 0; i < ac; i++) {
		const char *a = av[i];

		if (a[0] != '-')
			break;
		at = i;
		if (!strcmp(a, "--")) {
			strvec_push(&r->inner, a);
			return i + 1;
		}
		if (!strcmp(a, "--print-request")) {
			r->print_request = true;
			continue;
		}
		if (!strcmp(a, "--fetch")) {
			r->fetch = true;
			continue;
		}
		if ((v = value_of(ac, av, &i, "--container-api"))) {
			r->api_flag = v;
			continue;
		}
		if ((v = value_of(ac, av, &i, "--platform"))) {
			if (strcmp(v, r->platform_arg))
				refuse_cmdline("--platform '%s' after '--' "
				    "differs from the relay's", v);
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h") ||
		    !strcmp(a, "--version") || !strcmp(a, "--exec-path"))
			not_relayed("'%s' is not a verb to relay", a);
		if ((v = value_of(ac, av, &i, "-C")) ||
		    (v = value_of(ac, av, &i, "--root")) ||
		    (v = value_of(ac, av, &i, "--config")) ||
		    (starts_with(a, "--exec-path=") &&
		    (v = a + strlen("--exec-path=")))) {
			pf[*npf].flag = starts_with(a, "--exec-path") ?
			    "--exec-path" : starts_with(a, "--root") ?
			    "--root" : starts_with(a, "--config") ?
			    "--config" : "-C";
			pf[(*npf)++].value = v;
		} else if ((v = value_of(ac, av, &i, "--output")) ||
		    (v = value_of(ac, av, &i, "-o"))) {
			set_output(r, v);
		} else if ((v = value_of(ac, av, &i, "--sandbox"))) {
			r->sandbox_flag = v;
		} else if (strcmp(a, "--verbose") &&
		    strspn(a + 1, "v") != strlen(a + 1)) {
			refuse_cmdline("unknown global option '%s'", a);
		}
		for (; at <= i; at++)
			strvec_push(&r->inner, av[at]);
	}
	return i;
}

void
relay_parse_args(struct relay *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'r' },
		{ "container-api", required_argument, NULL, 'H' },
		{ "print-request", no_argument, NULL, 'P' },
		{ "fetch", no_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pathflag *pf;
	size_t npf = 0;
	char buf[PATH_MAX], real[PATH_MAX];
	int c, i, ac;
	char **av;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			set_platform(r, optarg);
			break;
		case 'r':
			set_root(r, optarg);
			break;
		case 'H':
			r->api_flag = optarg;
			break;
		case 'P':
			r->print_request = true;
			break;
		case 'f':
			r->fetch = true;
			break;
		case 'o':
			set_output(r, optarg);
			break;
		case 'v':
			r->verbose++;
			break;
		case 'h':
			usage(0);
			break;
		default:
			if (optopt && optopt != '?')
				diag(1002, "see 'magus-relay --help'",
				    "option '-%c' unknown or without its "
				    "value", optopt);
			else
				diag(1002, "see 'magus-relay --help'",
				    "unknown option '%s'", argv[optind - 1]);
			exit(2);
		}
	}
	if (!r->platform_arg)
		refuse_cmdline("%s is required", "--platform");
	if (!r->root)
		refuse_cmdline("%s is required", "--root");
	diag_set_verbose(r->verbose);

	if (!getcwd(buf, sizeof(buf)) || !realpath(buf, real))
		die_mgs(3043, NULL, "cannot read the working directory: %s",
		    strerror(errno));
	r->cwd = xstrdup(real);

	ac = argc - optind;
	av = argv + optind;
	pf = xcalloc((size_t)ac + 1, sizeof(*pf));
	i = parse_inner_flags(r, ac, av, pf, &npf);
	if (i >= ac)
		not_relayed("no verb to relay");
	if (!strcmp(av[i], "queue")) {
		if (i + 1 >= ac || (strcmp(av[i + 1], "gate") &&
		    strcmp(av[i + 1], "validate")))
			not_relayed("'queue %s' is not relayed",
			    i + 1 < ac ? av[i + 1] : "");
		r->verb = strcmp(av[i + 1], "gate") ? "queue validate" :
		    "queue gate";
	} else if (!strcmp(av[i], "describe")) {
		/* The one read verb relayed: what it reads is the image. */
		if (i + 1 >= ac || strcmp(av[i + 1], "tools"))
			not_relayed("'describe %s' is not relayed",
			    i + 1 < ac ? av[i + 1] : "");
		r->verb = "describe tools";
	} else if (is_relayed(av[i])) {
		r->verb = av[i];
	} else {
		not_relayed("'%s' is not relayed: it reads or changes "
		    "this machine's state", av[i]);
	}
	r->reads_stdin = !strcmp(r->verb, "buzz");
	for (; i < ac; i++) {
		if (!strcmp(av[i], "--stdin"))
			r->reads_stdin = true;
		strvec_push(&r->inner, av[i]);
	}

	/* The working directory crosses as the container's, at its own
	 * path: it must be there. */
	if (!path_is_under(r->cwd, r->root))
		outside(r, "the working directory", r->cwd);
	check_paths(r, pf, npf);
	free(pf);
}
