/*
 * magus-clean: remove what the relay and the indexers left behind, and
 * only that (spec/clean.md).
 *
 *	magus-clean --root DIR {--platform OS/ARCH | --all} [--dry-run]
 *	    [--container-api URL] [-o text|json] [-v]
 *
 * The steps, in order:
 *
 *  1. Resolve the workspace, its cache dir and the engine: from MAGUS_*
 *     when the front resolved them, else from the workspace's config.
 *  2. Open the cache dir and check the stores to remove (store.c); a
 *     store path that leaves the cache dir is refused before anything is
 *     touched.
 *  3. Ask the engine for every container and volume labeled for this
 *     workspace (and platform), and judge each: only an object carrying
 *     magus's labels for this workspace, created before the scan began,
 *     whose owner is known dead (labels_owner: same host and boot, the
 *     pid gone or reused) goes.  Live owners, other hosts' objects and
 *     anything unlabeled stay, and are listed with the reason.
 *  4. Remove: containers first (forced, with their anonymous volumes),
 *     then volumes, then the stores no kept container still uses.  An
 *     object already gone counts as removed; one in use is tried again a
 *     few times.  --dry-run prints the same plan and removes nothing.
 *
 * With no engine configured only the stores go, and one line says the
 * containers were not checked; with one configured but unreachable, the
 * stores go and the exit is 71, naming the socket.
 */
#include "compat.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "engine.h"
#include "json.h"
#include "labels.h"
#include "platform.h"
#include "proc.h"
#include "store.h"
#include "strbuf.h"
#include "strutil.h"
#include "strvec.h"
#include "xalloc.h"

/* An object in use is tried this many times, waiting 100 ms, then twice
 * as long each time (1.5 s in all): long enough for an engine to finish
 * tearing down the container that held a volume. */
#define DELETE_TRIES 5
#define DELETE_FIRST_WAIT_MS 100

static const char usage_text[] =
"usage: magus-clean --root DIR {--platform OS/ARCH | --all} [--dry-run]\n"
"                   [--container-api URL] [-o text|json] [-v]\n"
"       magus-clean --help\n"
"\n"
"  --root DIR             the workspace whose leftovers go\n"
"  --platform OS/ARCH     that platform's store and labeled objects\n"
"  --all                  every platform store and every labeled object\n"
"  --dry-run              list what would go and why; remove nothing\n"
"  --container-api URL    the engine, unix:///path (else\n"
"                         $MAGUS_CONTAINER_API, else container.api)\n"
"  -o, --output FORMAT    text (default) or json: one object per line\n"
"  -v, --verbose          say where things were looked for\n";

enum kind { K_CONTAINER, K_VOLUME, K_STORE };
static const char *const kind_names[] = { "container", "volume", "store" };

enum engine_state {
	ENG_NONE,		/* not configured */
	ENG_CHECKED,
	ENG_UNREACHABLE,	/* the connection or the ping failed */
	ENG_FAILED,		/* a listing failed */
};
static const char *const engine_state_names[] = { "not-configured",
	"checked", "unreachable", "failed" };

struct object {
	enum kind kind;
	const char *id;		/* container id, volume name, store path */
	const char *name;	/* a container's name, or NULL */
	char *const *labels;	/* "key=value", NULL for a store */
	bool remove;
	const char *why;
};

static struct {
	const char *root_arg;
	const char *platform_arg;
	const char *api_flag;
	bool all;
	bool dry_run;
	bool json;
} opt;

static char root[PATH_MAX];
static struct platform plat;
static time_t scan_start;

/* What happened, for the summary and the exit status. */
static struct {
	unsigned removed[3];
	unsigned kept;
	unsigned failed;
	bool engine_error;	/* an engine-layer failure: exit 71 */
} tally;

static void NORETURN
usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static void NORETURN PRINTF_LIKE(1, 2)
bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(6001, "run 'magus-clean --help' for the usage", fmt, ap);
	va_end(ap);
	exit(2);
}

/* ---- step 1: the workspace, the cache dir, the engine --------------- */

enum { OPT_ROOT = 256, OPT_PLATFORM, OPT_ALL, OPT_DRY_RUN, OPT_API };

static const struct option options[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "platform", required_argument, NULL, OPT_PLATFORM },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "container-api", required_argument, NULL, OPT_API },
	{ "output", required_argument, NULL, 'o' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
parse_args(int argc, char **argv)
{
	const char *out = getenv("MAGUS_OUTPUT");
	const char *verbose = getenv("MAGUS_VERBOSE");
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	long v;
	int o, level = 0;

	if (verbose && parse_long(verbose, 0, 9, &v))
		level = (int)v;
	opt.json = out && !strcmp(out, "json");
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+:o:vh", options, NULL)) != -1) {
		switch (o) {
		case OPT_ROOT:
			opt.root_arg = optarg;
			break;
		case OPT_PLATFORM:
			opt.platform_arg = optarg;
			break;
		case OPT_ALL:
			opt.all = true;
			break;
		case OPT_DRY_RUN:
			opt.dry_run = true;
			break;
		case OPT_API:
			opt.api_flag = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				bad_usage("unknown output format '%s' (text or "
				    "json)", optarg);
			opt.json = !strcmp(optarg, "json");
			break;
		case 'v':
			level++;
			break;
		case 'h':
			usage(0);
		case ':':
			bad_usage("option '%s' needs an argument",
			    argv[optind - 1]);
		default:
			if (optopt)
				bad_usage("unknown option '-%c'", optopt);
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	diag_set_json(opt.json);
	diag_set_verbose(level);
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (!opt.root_arg)
		bad_usage("--root is required");
	if (!!opt.platform_arg == opt.all)
		bad_usage("name one of --platform OS/ARCH and --all");
	if (opt.platform_arg && platform_parse(opt.platform_arg, &plat,
	    &err) < 0)
		bad_usage("--platform: %s", err.buf);
	strbuf_release(&err);
	if (stat(opt.root_arg, &st) < 0 || !realpath(opt.root_arg, root))
		bad_usage("--root '%s' cannot be used: %s", opt.root_arg,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		bad_usage("--root '%s' is not a directory", opt.root_arg);
}

/*
 * The cache dir and the engine URL.  The front resolved both and says so
 * with MAGUS_CACHE_DIR (and MAGUS_CONTAINER_API when an engine is
 * configured): a helper does not read the configuration again.  Called
 * alone, magus-clean reads the workspace's configuration itself.
 */
static void
resolve_config(char **cache_dir, char **api)
{
	const char *env_cache = getenv("MAGUS_CACHE_DIR");
	const char *env_api = getenv("MAGUS_CONTAINER_API");
	struct config_flags flags = { NULL, opt.api_flag, NULL };
	struct magus_config cfg;
	const struct mgs_entry *m;
	int code;

	if (env_cache && *env_cache) {
		*cache_dir = xstrdup(env_cache);
		if (opt.api_flag)
			*api = xstrdup(opt.api_flag);
		else if (env_api && *env_api)
			*api = xstrdup(env_api);
		else
			*api = NULL;
		return;
	}
	code = config_load(&cfg, root, NULL, &flags);
	if (code) {
		m = mgs_lookup(code);
		exit(m && m->status ? m->status : 2);
	}
	*cache_dir = xstrdup(cfg.cache_dir_abs);
	*api = cfg.container_api.value && *cfg.container_api.value ?
	    xstrdup(cfg.container_api.value) : NULL;
	config_release(&cfg);
}

/* ---- output ------------------------------------------------------------ */

/* The labels shown in a text line: the ones the selection and the
 * judgement read. */
static const char *const text_labels[] = { LABEL_WORKSPACE, LABEL_PLATFORM,
	LABEL_USE, LABEL_HOST, LABEL_PID, LABEL_PID_START, NULL };
/* In JSON, every label of the schema the object carries. */
static const char *const json_labels[] = { LABEL_WORKSPACE, LABEL_PLATFORM,
	LABEL_USE, LABEL_INVOCATION, LABEL_HOST, LABEL_BOOT, LABEL_PID,
	LABEL_PID_START, NULL };

/*
 * One line on stdout for an object.  `result` is NULL for the plan (a
 * dry run, or an object kept), else "removed", "already-gone" or
 * "failed".  Flushed at once: each removal shows as it happens.
 */
static void
emit(const struct object *o, const char *result, const char *error)
{
	struct strbuf sb = STRBUF_INIT;
	const char *v, *verb;
	char shortid[13];
	size_t i;

	if (opt.json) {
		struct json j;

		json_init(&j, &sb);
		json_object_begin(&j);
		json_kv_str(&j, "kind", kind_names[o->kind]);
		json_kv_str(&j, o->kind == K_STORE ? "path" : "id", o->id);
		if (o->name)
			json_kv_str(&j, "name", o->name);
		if (o->labels) {
			json_key(&j, "labels");
			json_object_begin(&j);
			for (i = 0; json_labels[i]; i++)
				if ((v = labels_get(o->labels,
				    json_labels[i])))
					json_kv_str(&j, json_labels[i], v);
			json_object_end(&j);
		}
		json_kv_str(&j, "action", o->remove ? "remove" : "keep");
		json_kv_str(&j, "why", o->why);
		json_kv_bool(&j, "dry_run", opt.dry_run);
		if (result)
			json_kv_str(&j, "result", result);
		if (error)
			json_kv_str(&j, "error", error);
		json_object_end(&j);
		puts(sb.buf);
		fflush(stdout);
		strbuf_release(&sb);
		return;
	}
	if (!o->remove)
		verb = opt.dry_run ? "keep" : "kept";
	else if (opt.dry_run)
		verb = "would remove";
	else if (result && !strcmp(result, "failed"))
		verb = "failed to remove";
	else
		verb = "removed";
	strbuf_addf(&sb, "%s %s ", verb, kind_names[o->kind]);
	if (o->kind == K_CONTAINER) {
		snprintf(shortid, sizeof(shortid), "%s", o->id);
		strbuf_addstr(&sb, shortid);
	} else {
		strbuf_addstr(&sb, o->id);
	}
	if (o->name && *o->name)
		strbuf_addf(&sb, " (%s)", o->name);
	if (o->labels) {
		const char *sep = " [";

		for (i = 0; text_labels[i]; i++) {
			if (!(v = labels_get(o->labels, text_labels[i])))
				continue;
			strbuf_addf(&sb, "%s%s=%s", sep, text_labels[i], v);
			sep = " ";
		}
		if (*sep == ' ' && sep[1] == '\0')
			strbuf_addch(&sb, ']');
	}
	strbuf_addf(&sb, ": %s", o->why);
	if (result && !strcmp(result, "already-gone"))
		strbuf_addstr(&sb, " (already gone)");
	if (error)
		strbuf_addf(&sb, ": %s", error);
	puts(sb.buf);
	fflush(stdout);
	strbuf_release(&sb);
}

static void
count_phrase(struct strbuf *sb, unsigned n, const char *what)
{
	strbuf_addf(sb, "%u %s%s", n, what, n == 1 ? "" : "s");
}

static void
emit_summary(enum engine_state es)
{
	struct strbuf sb = STRBUF_INIT;

	if (opt.json) {
		struct json j;

		json_init(&j, &sb);
		json_object_begin(&j);
		json_kv_str(&j, "kind", "summary");
		json_kv_bool(&j, "dry_run", opt.dry_run);
		json_kv_str(&j, "engine", engine_state_names[es]);
		json_kv_int(&j, "containers", tally.removed[K_CONTAINER]);
		json_kv_int(&j, "volumes", tally.removed[K_VOLUME]);
		json_kv_int(&j, "stores", tally.removed[K_STORE]);
		json_kv_int(&j, "kept", tally.kept);
		json_kv_int(&j, "failed", tally.failed);
		json_object_end(&j);
	} else {
		strbuf_addstr(&sb, opt.dry_run ? "would remove " : "removed ");
		count_phrase(&sb, tally.removed[K_CONTAINER], "container");
		strbuf_addstr(&sb, ", ");
		count_phrase(&sb, tally.removed[K_VOLUME], "volume");
		strbuf_addstr(&sb, ", ");
		count_phrase(&sb, tally.removed[K_STORE], "store");
		strbuf_addf(&sb, "; %s %u", opt.dry_run ? "would keep" :
		    "kept", tally.kept);
		if (!opt.dry_run)
			strbuf_addf(&sb, "; failed %u", tally.failed);
		if (es == ENG_NONE)
			strbuf_addstr(&sb, " (containers and volumes not "
			    "checked)");
		else if (es == ENG_UNREACHABLE)
			strbuf_addstr(&sb, " (the engine could not be "
			    "reached)");
		else if (es == ENG_FAILED)
			strbuf_addstr(&sb, " (the engine's lists could not be "
			    "read)");
	}
	puts(sb.buf);
	fflush(stdout);
	strbuf_release(&sb);
}

/* ---- step 3: the judgement -------------------------------------------- */

/*
 * Is the object in what was asked for?  The engine was asked for these
 * labels, but engines differ in how they combine several label filters
 * (podman 4 lists a volume matching any one of them), so the labels are
 * checked here again: an object outside them is not ours to judge or to
 * list, whatever it is named.
 */
static bool
in_scope(char *const *labels)
{
	const char *ws = labels_get(labels, LABEL_WORKSPACE);
	const char *pl = labels_get(labels, LABEL_PLATFORM);

	if (!ws || strcmp(ws, root))
		return false;
	return !opt.platform_arg || (pl && !strcmp(pl, platform_str(&plat)));
}

static void
judge(struct object *o, long long created)
{
	enum owner_state st;

	o->remove = false;
	/* Whole seconds: an object of the scan's own second may be newer
	 * than the scan, and is left for the next one. */
	if (created && created >= (long long)scan_start) {
		o->why = "created since this scan began";
		return;
	}
	st = labels_owner(o->labels, &o->why);
	o->remove = st == OWNER_GONE;
}

/* ---- step 4: removal ---------------------------------------------------- */

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
		(long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Delete a container (forced, with its anonymous volumes) or a volume
 * (never forced: podman's forced volume delete removes the containers
 * using it, and those may not be ours).  An object already gone counts as
 * removed; one in use (409, podman's 500) is tried DELETE_TRIES times.
 */
static void
remove_object(struct engine *e, struct object *o)
{
	const struct engine_error *err = NULL;
	unsigned wait = DELETE_FIRST_WAIT_MS;
	int try, r;

	for (try = 1;; try++) {
		r = o->kind == K_CONTAINER ?
		    engine_container_delete(e, o->id, true, true) :
		    engine_volume_delete(e, o->id, false);
		if (r == 0) {
			tally.removed[o->kind]++;
			emit(o, "removed", NULL);
			return;
		}
		err = engine_error(e);
		if (err->kind == ENGINE_E_NOTFOUND) {
			engine_clear_error(e);
			tally.removed[o->kind]++;
			emit(o, "already-gone", NULL);
			return;
		}
		if (err->kind != ENGINE_E_CONFLICT || try >= DELETE_TRIES)
			break;
		verbose_msg("%s '%s' is in use (try %d of %d): trying again "
		    "in %u ms", kind_names[o->kind], o->id, try, DELETE_TRIES,
		    wait);
		sleep_ms(wait);
		wait *= 2;
	}
	tally.failed++;
	emit(o, "failed", err->msg.buf);
	if (err->kind == ENGINE_E_CONFLICT) {
		diag(6005, NULL, "%s '%s' is still in use after %d tries: %s",
		    kind_names[o->kind], o->id, DELETE_TRIES, err->msg.buf);
	} else {
		engine_diag(e);
		tally.engine_error = true;
	}
	engine_clear_error(e);
}

/* Plan, then (unless a dry run) remove, one kind of engine object. */
static void
handle_objects(struct engine *e, struct object *objs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!objs[i].remove) {
			tally.kept++;
			emit(&objs[i], NULL, NULL);
		} else if (opt.dry_run) {
			tally.removed[objs[i].kind]++;
			emit(&objs[i], NULL, NULL);
		} else {
			remove_object(e, &objs[i]);
		}
	}
}

/* Is the store `name` ("linux-arm64") used by a container we keep? */
static const char *
store_in_use(const char *name, const struct object *c, size_t n)
{
	struct platform p;
	struct strbuf err = STRBUF_INIT;
	const char *pl, *use;
	size_t i;

	for (i = 0; i < n; i++) {
		if (c[i].remove)
			continue;
		pl = labels_get(c[i].labels, LABEL_PLATFORM);
		strbuf_setlen(&err, 0);
		if (!pl || platform_parse(pl, &p, &err) < 0) {
			/* A relay that does not say its platform (in words
			 * we read) may use any store. */
			use = labels_get(c[i].labels, LABEL_USE);
			if (use && !strcmp(use, "relay")) {
				strbuf_release(&err);
				return c[i].id;
			}
			continue;
		}
		if (!strcmp(platform_dirname(&p), name)) {
			strbuf_release(&err);
			return c[i].id;
		}
	}
	strbuf_release(&err);
	return NULL;
}

static void
handle_stores(struct store_root *sr, const struct strvec *names,
    const struct object *c, size_t nc)
{
	struct store_result res;
	struct object o;
	struct strbuf why = STRBUF_INIT, path = STRBUF_INIT;
	const char *user;
	size_t i;

	for (i = 0; i < names->n; i++) {
		memset(&o, 0, sizeof(o));
		strbuf_setlen(&path, 0);
		strbuf_setlen(&why, 0);
		strbuf_addf(&path, "%s/%s", sr->platform, names->v[i]);
		o.kind = K_STORE;
		o.id = path.buf;
		user = store_in_use(names->v[i], c, nc);
		if (user) {
			strbuf_addf(&why, "in use by kept container %.12s",
			    user);
			o.why = why.buf;
			tally.kept++;
			emit(&o, NULL, NULL);
			continue;
		}
		o.remove = true;
		o.why = "platform store";
		if (opt.dry_run) {
			tally.removed[K_STORE]++;
			emit(&o, NULL, NULL);
			continue;
		}
		if (store_remove(sr, names->v[i], &res) == 0) {
			tally.removed[K_STORE]++;
			emit(&o, "removed", NULL);
			verbose_msg("store '%s': %lu entries removed", path.buf,
			    res.removed);
		} else {
			tally.failed++;
			emit(&o, "failed", res.error.buf);
			diag(6004, NULL, "store '%s' could not be removed "
			    "completely: %s", path.buf, res.error.buf);
		}
		strbuf_release(&res.error);
	}
	strbuf_release(&why);
	strbuf_release(&path);
}

/* ---- main ---------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	struct store_root sr;
	struct strvec stores = STRVEC_INIT, filters = STRVEC_INIT;
	struct strbuf msg = STRBUF_INIT;
	struct engine *e = NULL;
	struct engine_summary *cs = NULL;
	struct engine_volume *vs = NULL;
	struct object *cobj = NULL, *vobj = NULL, *o;
	size_t nc = 0, nv = 0, nco = 0, nvo = 0, i;
	enum engine_state es = ENG_NONE;
	char *cache_dir, *api;
	int code;

	sane_start();
	diag_init(argv[0]);
	parse_args(argc, argv);
	resolve_config(&cache_dir, &api);
	verbose_msg("workspace '%s', cache dir '%s'", root, cache_dir);

	/* Step 2: every store path is checked before anything goes. */
	code = store_open(&sr, root, cache_dir, &msg);
	if (!code)
		code = store_list(&sr, opt.platform_arg ?
		    platform_dirname(&plat) : NULL, &stores, &msg);
	if (code)
		die_mgs(code, NULL, "%s", msg.buf);

	/* Step 3: the engine's objects.  A URL refused is a usage error,
	 * decided before touching anything. */
	if (api) {
		if (engine_open(&e, api) < 0)
			engine_die(e);
		es = ENG_CHECKED;
		strvec_pushf(&filters, "%s=%s", LABEL_WORKSPACE, root);
		if (opt.platform_arg)
			strvec_pushf(&filters, "%s=%s", LABEL_PLATFORM,
			    platform_str(&plat));
		verbose_msg("engine '%s', objects labeled %s%s%s",
		    engine_socket(e), filters.v[0], filters.n > 1 ? " " : "",
		    filters.n > 1 ? filters.v[1] : "");
		scan_start = time(NULL);
		if (engine_connect(e) < 0) {
			es = ENG_UNREACHABLE;
		} else if (engine_container_list(e,
		    (const char *const *)filters.v, &cs, &nc) < 0 ||
		    engine_volume_list(e, (const char *const *)filters.v, &vs,
		    &nv) < 0) {
			es = ENG_FAILED;
			engine_summaries_free(cs, nc);
			cs = NULL;
			nc = 0;
		}
	}
	cobj = xcalloc(nc + 1, sizeof(*cobj));
	for (i = 0; i < nc; i++) {
		if (!in_scope(cs[i].labels.v)) {
			verbose_msg("container '%s' is outside the labels "
			    "asked for: ignored", cs[i].id);
			continue;
		}
		o = &cobj[nco++];
		o->kind = K_CONTAINER;
		o->id = cs[i].id;
		o->name = cs[i].name;
		o->labels = cs[i].labels.v;
		judge(o, cs[i].created);
	}
	vobj = xcalloc(nv + 1, sizeof(*vobj));
	for (i = 0; i < nv; i++) {
		if (!in_scope(vs[i].labels.v)) {
			verbose_msg("volume '%s' is outside the labels asked "
			    "for: ignored", vs[i].name);
			continue;
		}
		o = &vobj[nvo++];
		o->kind = K_VOLUME;
		o->id = vs[i].name;
		o->labels = vs[i].labels.v;
		judge(o, vs[i].created);
	}

	/* Step 4: containers before the volumes they hold, stores last. */
	handle_objects(e, cobj, nco);
	handle_objects(e, vobj, nvo);
	handle_stores(&sr, &stores, cobj, nco);
	if (es == ENG_NONE)
		diag(6006, NULL, "no container engine configured: containers "
		    "and volumes were not checked");
	else if (es == ENG_UNREACHABLE || es == ENG_FAILED)
		engine_diag(e);
	emit_summary(es);

	engine_summaries_free(cs, nc);
	engine_volumes_free(vs, nv);
	free(cobj);
	free(vobj);
	engine_free(e);
	store_close(&sr);
	strvec_clear(&stores);
	strvec_clear(&filters);
	strbuf_release(&msg);
	free(cache_dir);
	free(api);
	if (es == ENG_UNREACHABLE || es == ENG_FAILED || tally.engine_error)
		return 71;
	return tally.failed ? 1 : 0;
}
