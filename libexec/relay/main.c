/*
 * magus-relay: run one magus invocation, unchanged, in a container on
 * the platform named, over the Docker Engine API (spec/relay.md).
 *
 * Everything that can be refused without the engine is refused first,
 * with exit 2 and nothing contacted or created: the argv, the verb, the
 * paths, the configuration (engine named, image declared and pinned),
 * the inner magus, the told values.  Only then does the relay connect.
 */
#include "compat.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "digest.h"
#include "engine.h"
#include "json.h"
#include "proc.h"
#include "relay.h"
#include "strutil.h"
#include "xalloc.h"

const char *
relay_short_digest(const struct relay *r)
{
	static char buf[13];
	const char *at = strstr(r->image->ref, "@sha256:");

	snprintf(buf, sizeof(buf), "%s", at ? at + 8 : "unpinned");
	return buf;
}

void
relay_json_exit(const struct relay *r, const char *layer, int status,
    int code)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;
	char c[16];

	if (!r->json)
		return;
	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_str(&j, "layer", layer);
	json_kv_int(&j, "status", status);
	if (code) {
		snprintf(c, sizeof(c), "MGS%04d", code);
		json_kv_str(&j, "code", c);
	}
	json_object_end(&j);
	strbuf_addch(&sb, '\n');
	if (write(STDERR_FILENO, sb.buf, sb.len) < 0) {
		/* stderr gone */
	}
	strbuf_release(&sb);
}

static void
load_config(struct relay *r)
{
	struct config_flags flags = { NULL, NULL, NULL };
	const char *file = r->config_path;
	const char *env = getenv("MAGUS_CONFIG");
	size_t i;
	int code;

	flags.sandbox = r->sandbox_flag;
	flags.container_api = r->api_flag;
	if (!file && env && *env)
		file = env;
	code = config_load(&r->cfg, r->root, file, &flags);
	r->cfg_loaded = true;
	if (code)
		exit(mgs_lookup(code) ? mgs_lookup(code)->status : 2);
	if (!strcmp(r->cfg.output.value, "json")) {
		r->json = true;
		diag_set_json(true);
	}

	if (!r->cfg.container_api.value)
		die_mgs(3037, "set container.api in the user configuration "
		    "(~/.config/magus/config.yaml) or MAGUS_CONTAINER_API",
		    "--platform needs a container engine: container.api is "
		    "not set");
	r->url = r->cfg.container_api.value;

	for (i = 0; i < r->cfg.nimages; i++)
		if (!strcmp(r->cfg.images[i].os, r->plat.os))
			r->image = &r->cfg.images[i];
	if (!r->image)
		die_mgs(3038, "declare platform.images.linux.ref "
		    "(name@sha256:<digest>) in magus.yaml", "no image is "
		    "declared for '%s' in platform.images.%s",
		    platform_str(&r->plat), r->plat.os);
	/* config.c refuses an unpinned ref at load; a second look costs
	 * nothing and keeps the request honest. */
	if (!image_ref_pinned(r->image->ref))
		die_mgs(1007, "pin the image: name@sha256:<64 hex digits>",
		    "image '%s' is not pinned by digest", r->image->ref);
}

/* The URL alone, before anything connects: scheme and sun_path length. */
static void
check_url(struct relay *r)
{
	struct engine *e;

	if (engine_open(&e, r->url) < 0) {
		engine_diag(e);
		engine_free(e);
		exit(2);
	}
	engine_free(e);
}

static void
find_inner(struct relay *r)
{
	if (innerbuild_find(r->cfg.cache_dir_abs, &r->plat,
	    INNER_VERIFY_HASHES, &r->lookup) != INNER_OK) {
		diag(3040, r->lookup.fix.len ? r->lookup.fix.buf : NULL,
		    "no usable inner magus for %s: %s",
		    platform_str(&r->plat), r->lookup.why.buf);
		exit(2);
	}
	r->lookup_done = true;
}

/* queue gate tests HEAD: line one names it (read from .git, no git run). */
static void
read_head(struct relay *r)
{
	struct strbuf sb = STRBUF_INIT, ref = STRBUF_INIT;
	char *p = path_join(r->root, ".git/HEAD");

	if (strbuf_read_file(&sb, p) < 0)
		goto out;
	strbuf_rtrim(&sb);
	if (starts_with(sb.buf, "ref: ")) {
		free(p);
		p = xasprintf("%s/.git/%s", r->root, sb.buf + 5);
		if (strbuf_read_file(&ref, p) < 0)
			goto out;
		strbuf_rtrim(&ref);
		r->head = xstrdup(ref.buf);
	} else if (sb.len) {
		r->head = xstrdup(sb.buf);
	}
out:
	free(p);
	strbuf_release(&sb);
	strbuf_release(&ref);
}

static void
mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die_mgs(3043, NULL, "cannot make '%s': %s", p,
			    strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		die_mgs(3043, NULL, "cannot make '%s': %s", p, strerror(errno));
	free(p);
}

int
main(int argc, char **argv)
{
	struct relay r;
	struct platform host;
	char hex[SHA256_HEX_LEN + 1];
	int status;

	sane_start();
	diag_init(argv[0]);
	memset(&r, 0, sizeof(r));
	strvec_init(&r.inner);
	strvec_init(&r.env);
	strvec_init(&r.env_from);
	strbuf_init(&r.body, 0);

	relay_parse_args(&r, argc, argv);
	platform_host(&host);
	r.emulated = strcmp(host.arch, r.plat.arch) != 0;
	load_config(&r);
	check_url(&r);
	relay_build_env(&r);
	find_inner(&r);

	r.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
	    isatty(STDERR_FILENO);
	r.with_stdin = r.reads_stdin || r.tty;
	if (r.tty) {
		struct winsize ws;

		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
			r.rows = ws.ws_row;
			r.cols = ws.ws_col;
		}
	}
	r.store = path_join(r.cfg.cache_dir_abs, "platform");
	{
		char *s = path_join(r.store, platform_dirname(&r.plat));

		free(r.store);
		r.store = s;
	}
	if (labels_init(&r.labels, r.root, "relay") < 0)
		die_mgs(3043, NULL, "cannot gather the labels: %s",
		    strerror(errno));
	snprintf(r.name, sizeof(r.name), "magus-relay-%.12s",
	    r.labels.invocation);
	sha256_hex(r.root, strlen(r.root), hex);
	snprintf(r.volume, sizeof(r.volume), "magus-home-%.12s-%s", hex,
	    platform_dirname(&r.plat));
	if (!strcmp(r.verb, "queue gate"))
		read_head(&r);
	relay_build_request(&r);

	if (r.print_request) {
		status = relay_print_request(&r);
	} else {
		/* The store exists when the inner magus came from it; one
		 * from the self-fetch cache may be the first thing relayed
		 * here. */
		mkdirs(r.store);
		status = relay_run(&r);
	}

	inner_lookup_release(&r.lookup);
	config_release(&r.cfg);
	strvec_clear(&r.inner);
	strvec_clear(&r.env);
	strvec_clear(&r.env_from);
	strbuf_release(&r.body);
	free(r.root);
	free(r.cwd);
	free(r.config_path);
	free(r.home);
	free(r.store);
	free(r.head);
	return status;
}
