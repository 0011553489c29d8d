#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <yaml.h>

#include "config.h"
#include "diag.h"
#include "scip.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

bool
image_ref_pinned(const char *ref)
{
	const char *at = strrchr(ref, '@');
	size_t i;

	if (!at || at == ref || !starts_with(at + 1, "sha256:"))
		return false;
	at += 1 + strlen("sha256:");
	for (i = 0; at[i]; i++)
		if (!isxdigit((unsigned char)at[i]) ||
		    isupper((unsigned char)at[i]))
			return false;
	return i == 64;
}

void
origin_format(const struct origin *o, struct strbuf *out)
{
	switch (o->kind) {
	case ORIGIN_DEFAULT:
		strbuf_addstr(out, "default");
		break;
	case ORIGIN_USER:
	case ORIGIN_WORKSPACE:
		strbuf_addf(out, "file:%s:%d", o->where, o->line);
		break;
	case ORIGIN_ENV:
		strbuf_addf(out, "env:%s", o->where);
		break;
	case ORIGIN_FLAG:
		strbuf_addf(out, "flag:%s", o->where);
		break;
	}
}

/* ---- the YAML walker ------------------------------------------------ */

struct loader {
	struct magus_config *cfg;
	yaml_document_t doc;
	const char *file;
	enum origin_kind tier;
	int err; /* the MGS code of the first error, 0 while none */
	const yaml_node_t *key_node; /* the key whose value is being read */
	const struct keyspec *spec;  /* and its entry in the key table */
};

static int PRINTF_LIKE(6, 7)
fail(struct loader *L, int code, const yaml_node_t *n, const char *key,
    const char *hint, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	if (L->err)
		return -1; /* report the first problem only */
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	diag(code, hint, "%s:%lu: key '%s': %s", L->file,
	    n ? (unsigned long)n->start_mark.line + 1 : 0UL, key, msg.buf);
	strbuf_release(&msg);
	L->err = code;
	return -1;
}

static yaml_node_t *
node(struct loader *L, int index)
{
	return yaml_document_get_node(&L->doc, index);
}

static int
line_of(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static struct origin
origin_at(struct loader *L, const yaml_node_t *n)
{
	struct origin o = { L->tier, L->file, line_of(n) };

	return o;
}

static const char *
node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_SCALAR_NODE:
		return "a scalar";
	default:
		return "nothing";
	}
}

static bool
is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	    !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static bool
expect(struct loader *L, const yaml_node_t *n, yaml_node_type_t type,
    const char *key)
{
	const char *want = type == YAML_MAPPING_NODE ? "a mapping" :
	    type == YAML_SEQUENCE_NODE ? "a list" : "a scalar";

	if (n->type == type)
		return true;
	fail(L, 1006, n, key, NULL, "expected %s, found %s", want,
	    node_kind(n));
	return false;
}

/* A scalar's text; NULL (with the error reported) when it is not one or
 * holds a NUL byte. */
static const char *
scalar(struct loader *L, const yaml_node_t *n, const char *key)
{
	if (!expect(L, n, YAML_SCALAR_NODE, key))
		return NULL;
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
		fail(L, 1007, n, key, NULL, "the value holds a NUL byte");
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

/* A non-empty string scalar. */
static const char *
string(struct loader *L, const yaml_node_t *n, const char *key)
{
	const char *v = scalar(L, n, key);

	if (v && !*v) {
		fail(L, 1007, n, key, NULL, "the value is empty");
		return NULL;
	}
	return v;
}

/* A number: a plain (unquoted) scalar. */
static bool
number_long(struct loader *L, const yaml_node_t *n, const char *key,
    long min, long max, long *out)
{
	const char *v = scalar(L, n, key);

	if (!v)
		return false;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		fail(L, 1006, n, key, NULL, "expected a number, found a "
		    "quoted string");
		return false;
	}
	if (!parse_long(v, min, max, out)) {
		fail(L, 1007, n, key, NULL, "'%s' is not a whole number from "
		    "%ld to %ld", v, min, max);
		return false;
	}
	return true;
}

typedef int (*section_fn)(struct loader *L, const yaml_node_t *value,
    const char *key, void *arg);

struct keyspec {
	const char *name;
	section_fn fn;
	/* For str_field: where the value goes, and what it may be. */
	size_t field;			/* offsetof(struct magus_config, ...) */
	const char *const *choices;	/* NULL-terminated, or NULL for any */
};

/*
 * Walk a mapping, calling the handler for each known key; an unknown or
 * duplicate key is an error naming the closest known one.
 */
static int
walk_map(struct loader *L, const yaml_node_t *map, const char *prefix,
    const struct keyspec *keys, void *arg)
{
	const char *names[32];
	yaml_node_pair_t *pair, *other;
	size_t nk = 0;

	if (is_null(map))
		return 0;
	if (!expect(L, map, YAML_MAPPING_NODE, prefix[0] ? prefix : "(top)"))
		return -1;
	for (; nk < ARRAY_SIZE(names) - 1 && keys[nk].name; nk++)
		names[nk] = keys[nk].name;
	names[nk] = NULL;

	for (pair = map->data.mapping.pairs.start;
	    pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(L, pair->key), *v = node(L, pair->value);
		struct strbuf full = STRBUF_INIT;
		const char *name;
		size_t i;
		int r = 0;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return fail(L, 1006, k, prefix, NULL,
			    "keys must be plain names");
		name = (const char *)k->data.scalar.value;
		if (prefix[0])
			strbuf_addf(&full, "%s.%s", prefix, name);
		else
			strbuf_addstr(&full, name);
		for (other = map->data.mapping.pairs.start; other < pair;
		    other++) {
			yaml_node_t *ok = node(L, other->key);

			if (ok && ok->type == YAML_SCALAR_NODE &&
			    !strcmp((const char *)ok->data.scalar.value, name)) {
				fail(L, 1004, k, full.buf, NULL,
				    "duplicate key (first at line %d)",
				    line_of(ok));
				strbuf_release(&full);
				return -1;
			}
		}
		for (i = 0; i < nk; i++)
			if (!strcmp(name, keys[i].name))
				break;
		if (i == nk) {
			const char *near = closest_word(name, names);
			struct strbuf hint = STRBUF_INIT;

			if (near)
				strbuf_addf(&hint, "did you mean '%s%s%s'?",
				    prefix, prefix[0] ? "." : "", near);
			fail(L, 1005, k, full.buf, near ? hint.buf : NULL,
			    "unknown key");
			strbuf_release(&hint);
			strbuf_release(&full);
			return -1;
		}
		L->key_node = k;
		L->spec = &keys[i];
		r = keys[i].fn(L, v, full.buf, arg);
		strbuf_release(&full);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Call fn for each element of a list (null counts as empty). */
static int
walk_list(struct loader *L, const yaml_node_t *list, const char *key,
    int (*fn)(struct loader *, const yaml_node_t *, const char *, void *),
    void *arg)
{
	yaml_node_item_t *item;
	size_t i = 0;

	if (is_null(list))
		return 0;
	if (!expect(L, list, YAML_SEQUENCE_NODE, key))
		return -1;
	for (item = list->data.sequence.items.start;
	    item < list->data.sequence.items.top; item++, i++) {
		struct strbuf k = STRBUF_INIT;
		int r;

		strbuf_addf(&k, "%s[%zu]", key, i);
		r = fn(L, node(L, *item), k.buf, arg);
		strbuf_release(&k);
		if (r < 0)
			return -1;
	}
	return 0;
}

static void
set_str(struct loader *L, struct cfg_str *dst, const yaml_node_t *n,
    const char *v)
{
	free(dst->value);
	dst->value = xstrdup(v);
	dst->from = origin_at(L, n);
}

/* A non-empty string stored in the magus_config field the key table names,
 * checked against the table's choices when it has some. */
static int
str_field(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	const struct keyspec *spec = L->spec;
	const char *s = string(L, v, key);
	struct strbuf list = STRBUF_INIT;
	const char *const *c;
	int r;

	if (!s)
		return -1;
	for (c = spec->choices; c && *c; c++)
		if (!strcmp(s, *c))
			break;
	if (spec->choices && !*c) {
		for (c = spec->choices; *c; c++)
			strbuf_addf(&list, "%s%s", list.len ? ", " : "", *c);
		r = fail(L, 1007, v, key, NULL, "unknown value '%s' (%s)", s,
		    list.buf);
		strbuf_release(&list);
		return r;
	}
	set_str(L, (struct cfg_str *)((char *)L->cfg + spec->field), v, s);
	return 0;
}

#define FIELD(name) offsetof(struct magus_config, name)

/* ---- sandbox -------------------------------------------------------- */

static int
sb_mode(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_sandbox *sb = arg;
	const char *s = string(L, v, key);
	enum sandbox_mode m;

	if (!s)
		return -1;
	m = sandbox_mode_parse(s);
	if (m == SANDBOX_UNSET)
		return fail(L, 1007, v, key, NULL, "unknown sandbox mode '%s' "
		    "(off, best-effort or required)", s);
	sb->mode = m;
	sb->mode_from = origin_at(L, v);
	return 0;
}

struct allow_tmp {
	const char *path, *mode;
	const yaml_node_t *path_node, *mode_node;
};

static int
allow_path(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct allow_tmp *a = arg;

	a->path = string(L, v, key);
	a->path_node = v;
	return a->path ? 0 : -1;
}

static int
allow_mode(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct allow_tmp *a = arg;

	a->mode = string(L, v, key);
	a->mode_node = v;
	return a->mode ? 0 : -1;
}

static int
sb_allow_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	static const struct keyspec keys[] = {
		{ "path", allow_path }, { "mode", allow_mode }, { NULL, NULL },
	};
	struct cfg_sandbox *sb = arg;
	struct allow_tmp a = { NULL, "ro", NULL, NULL };
	struct cfg_allow *e;

	if (!expect(L, v, YAML_MAPPING_NODE, key) ||
	    walk_map(L, v, key, keys, &a) < 0)
		return -1;
	if (!a.path)
		return fail(L, 2004, v, key, NULL, "an allow entry needs a "
		    "path");
	if (a.path[0] != '/' && !(a.path[0] == '~' &&
	    (a.path[1] == '/' || !a.path[1])))
		return fail(L, 2004, a.path_node, key, NULL, "allow path "
		    "'%s' is relative: write an absolute path or ~/...",
		    a.path);
	if (!allow_mode_valid(a.mode))
		return fail(L, 2004, a.mode_node, key, NULL, "unknown allow "
		    "mode '%s' (ro, rw, rx or rwx)", a.mode);
	ALLOC_GROW(sb->allow, sb->nallow + 1, sb->allow_alloc);
	e = &sb->allow[sb->nallow++];
	e->path = xstrdup(a.path);
	e->mode = xstrdup(a.mode);
	e->from = origin_at(L, v);
	return 0;
}

static int
sb_allow(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	return walk_list(L, v, key, sb_allow_item, arg);
}

static int
sb_passthrough_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	struct cfg_sandbox *sb = arg;
	const char *s = string(L, v, key), *why;

	if (!s)
		return -1;
	why = passthrough_pattern_error(s);
	if (why)
		return fail(L, 2004, v, key, NULL, "passthrough pattern '%s' "
		    "refused: %s", s, why);
	ALLOC_GROW(sb->passthrough, sb->npassthrough + 1,
	    sb->passthrough_alloc);
	sb->passthrough[sb->npassthrough].value = NULL;
	set_str(L, &sb->passthrough[sb->npassthrough++], v, s);
	return 0;
}

static int
sb_passthrough(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	return walk_list(L, v, key, sb_passthrough_item, arg);
}

static int
sb_env(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	static const struct keyspec keys[] = {
		{ "passthrough", sb_passthrough }, { NULL, NULL },
	};

	return walk_map(L, v, key, keys, arg);
}

static int
net_mode(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_sandbox *sb = arg;
	const char *s = string(L, v, key);

	if (!s)
		return -1;
	if (strcmp(s, "allow") && strcmp(s, "none") && strcmp(s, "proxy"))
		return fail(L, 1007, v, key, NULL, "unknown network mode '%s' "
		    "(allow, none or proxy)", s);
	set_str(L, &sb->network, v, s);
	return 0;
}

static bool
host_port_valid(const char *s)
{
	const char *colon = strrchr(s, ':');
	long port;

	if (!colon || colon == s)
		return false;
	if (!parse_long(colon + 1, 1, 65535, &port))
		return false;
	return true;
}

static int
net_allow_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	struct cfg_sandbox *sb = arg;
	const char *s = string(L, v, key);

	if (!s)
		return -1;
	if (!host_port_valid(s))
		return fail(L, 2004, v, key, NULL, "egress allow entry "
		    "'%s' is not HOST:PORT (a port is always named)", s);
	ALLOC_GROW(sb->egress, sb->negress + 1, sb->egress_alloc);
	sb->egress[sb->negress].value = NULL;
	set_str(L, &sb->egress[sb->negress++], v, s);
	return 0;
}

static int
net_allow(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	return walk_list(L, v, key, net_allow_item, arg);
}

static int
sb_network(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	static const struct keyspec keys[] = {
		{ "mode", net_mode }, { "allow", net_allow }, { NULL, NULL },
	};

	/* `network: none` is short for `network: {mode: none}`. */
	if (v->type == YAML_SCALAR_NODE && !is_null(v))
		return net_mode(L, v, key, arg);
	return walk_map(L, v, key, keys, arg);
}

static int
sec_sandbox(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	static const struct keyspec keys[] = {
		{ "mode", sb_mode },	   { "allow", sb_allow },
		{ "env", sb_env },	   { "network", sb_network },
		{ NULL, NULL },
	};

	return walk_map(L, v, key, keys, arg);
}

/* ---- targets -------------------------------------------------------- */

/* One word of an argv list (any scalar), appended to the strvec `arg`. */
static int
argv_item(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	const char *s = scalar(L, v, key);

	if (!s)
		return -1;
	strvec_push(arg, s);
	return 0;
}

static int
tgt_run(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_target *t = arg;
	const char *s;

	if (v->type == YAML_SEQUENCE_NODE) {
		if (walk_list(L, v, key, argv_item, &t->argv) < 0)
			return -1;
		if (!t->argv.n || !t->argv.v[0][0])
			return fail(L, 1007, v, key, NULL, "the command is "
			    "empty");
		return 0;
	}
	s = string(L, v, key);
	if (!s)
		return -1;
	t->cmdline = xstrdup(s);
	return 0;
}

static bool
target_name_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/", *s))
			return false;
	return true;
}

static int
tgt_dep_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	struct cfg_target *t = arg;
	const char *s = string(L, v, key);

	if (!s)
		return -1;
	strvec_push(&t->deps, s);
	return 0;
}

static int
tgt_deps(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	return walk_list(L, v, key, tgt_dep_item, arg);
}

static int
tgt_sandbox(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	struct cfg_target *t = arg;

	/* `sandbox: required` is short for `sandbox: {mode: required}`. */
	if (v->type == YAML_SCALAR_NODE && !is_null(v))
		return sb_mode(L, v, key, &t->sandbox);
	return sec_sandbox(L, v, key, &t->sandbox);
}

static int
sec_target_one(struct loader *L, const yaml_node_t *name_node,
    const yaml_node_t *v, const char *key)
{
	static const struct keyspec keys[] = {
		{ "run", tgt_run }, { "deps", tgt_deps },
		{ "sandbox", tgt_sandbox }, { NULL, NULL },
	};
	struct magus_config *cfg = L->cfg;
	const char *name = (const char *)name_node->data.scalar.value;
	struct cfg_target *t;

	if (!target_name_valid(name))
		return fail(L, 1007, name_node, key, NULL, "target name '%s' "
		    "may hold only letters, digits, '.', '_', '-' and '/'",
		    name);
	ALLOC_GROW(cfg->targets, cfg->ntargets + 1, cfg->targets_alloc);
	t = &cfg->targets[cfg->ntargets++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	strvec_init(&t->argv);
	strvec_init(&t->deps);
	t->sandbox.mode = SANDBOX_UNSET;
	t->from = origin_at(L, name_node);
	if (!expect(L, v, YAML_MAPPING_NODE, key) ||
	    walk_map(L, v, key, keys, t) < 0)
		return -1;
	if (!t->cmdline && !t->argv.n)
		return fail(L, 1007, v, key, NULL, "a target needs 'run'");
	return 0;
}

static int
sec_targets(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	yaml_node_pair_t *pair;

	if (is_null(v))
		return 0;
	if (!expect(L, v, YAML_MAPPING_NODE, key))
		return -1;
	for (pair = v->data.mapping.pairs.start;
	    pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(L, pair->key), *val = node(L, pair->value);
		struct strbuf full = STRBUF_INIT;
		int r;

		if (!k || !val || k->type != YAML_SCALAR_NODE)
			return fail(L, 1006, k, key, NULL, "target names must "
			    "be plain names");
		strbuf_addf(&full, "%s.%s", key, k->data.scalar.value);
		if (config_target(L->cfg, (const char *)k->data.scalar.value))
			r = fail(L, 1004, k, full.buf, NULL, "duplicate "
			    "target");
		else
			r = sec_target_one(L, k, val, full.buf);
		strbuf_release(&full);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ---- platform ------------------------------------------------------- */

/* The image reference at v, or NULL (said) when it is not a string or
 * not pinned by digest. */
static const char *
pinned_image(struct loader *L, const yaml_node_t *v, const char *key)
{
	const char *s = string(L, v, key);

	if (s && !image_ref_pinned(s)) {
		fail(L, 1007, v, key, "pin the image: "
		    "name@sha256:<64 hex digits>", "image '%s' is not pinned "
		    "by digest", s);
		return NULL;
	}
	return s;
}

static int
img_ref(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_image *img = arg;
	const char *s = pinned_image(L, v, key);

	if (!s)
		return -1;
	img->ref = xstrdup(s);
	return 0;
}

static bool
env_name_valid(const char *s)
{
	return !passthrough_pattern_error(s) && s[strlen(s) - 1] != '*';
}

static int
img_env(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_image *img = arg;
	yaml_node_pair_t *pair;

	if (is_null(v))
		return 0;
	if (!expect(L, v, YAML_MAPPING_NODE, key))
		return -1;
	for (pair = v->data.mapping.pairs.start;
	    pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(L, pair->key), *val = node(L, pair->value);
		struct strbuf full = STRBUF_INIT;
		const char *name, *value;
		int r = 0;

		if (!k || !val || k->type != YAML_SCALAR_NODE)
			return fail(L, 1006, k, key, NULL, "variable names "
			    "must be plain names");
		name = (const char *)k->data.scalar.value;
		strbuf_addf(&full, "%s.%s", key, name);
		if (!env_name_valid(name))
			r = fail(L, 1007, k, full.buf, NULL, "'%s' is not a "
			    "variable name", name);
		else if (starts_with(name, "MAGUS_"))
			r = fail(L, 1007, k, full.buf, "MAGUS_* values come "
			    "from the host's magus, never from an image",
			    "'%s' may not be set by an image declaration", name);
		else if ((value = scalar(L, val, full.buf)) == NULL)
			r = -1;
		else
			strvec_pushf(&img->env, "%s=%s", name, value);
		strbuf_release(&full);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int
sec_images(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	static const struct keyspec keys[] = {
		{ "ref", img_ref }, { "env", img_env }, { NULL, NULL },
	};
	struct magus_config *cfg = L->cfg;
	yaml_node_pair_t *pair;

	if (is_null(v))
		return 0;
	if (!expect(L, v, YAML_MAPPING_NODE, key))
		return -1;
	for (pair = v->data.mapping.pairs.start;
	    pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(L, pair->key), *val = node(L, pair->value);
		struct strbuf full = STRBUF_INIT;
		struct cfg_image *img;
		const char *os;
		int r;

		if (!k || !val || k->type != YAML_SCALAR_NODE)
			return fail(L, 1006, k, key, NULL, "os names must be "
			    "plain names");
		os = (const char *)k->data.scalar.value;
		strbuf_addf(&full, "%s.%s", key, os);
		if (strcmp(os, "linux")) {
			r = fail(L, 1007, k, full.buf, NULL, "unknown os '%s' "
			    "(magus relays to linux)", os);
			strbuf_release(&full);
			return r;
		}
		ALLOC_GROW(cfg->images, cfg->nimages + 1, cfg->images_alloc);
		img = &cfg->images[cfg->nimages++];
		memset(img, 0, sizeof(*img));
		img->os = xstrdup(os);
		strvec_init(&img->env);
		img->from = origin_at(L, k);
		r = expect(L, val, YAML_MAPPING_NODE, full.buf) ?
		    walk_map(L, val, full.buf, keys, img) : -1;
		if (r == 0 && !img->ref)
			r = fail(L, 1007, val, full.buf, NULL, "an image needs "
			    "'ref'");
		strbuf_release(&full);
		if (r < 0)
			return -1;
	}
	return 0;
}


static const char *const network_choices[] = { "none", "default", NULL };

/* The relay's memory bound: Memory and MemorySwap of its containers. */
static int
platform_memory(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	struct magus_config *cfg = L->cfg;

	if (!number_long(L, v, key, 6, 1L << 20, &cfg->platform_memory_mb))
		return -1;
	cfg->platform_memory_from = origin_at(L, v);
	return 0;
}

static int
sec_platform(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	static const struct keyspec keys[] = {
		{ "images", sec_images },
		{ "network", str_field, FIELD(platform_network), network_choices },
		{ "memory_mb", platform_memory },
		{ NULL, NULL },
	};

	return walk_map(L, v, key, keys, arg);
}

/* ---- cache, tools --------------------------------------------------- */


static int
sec_cache(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	static const struct keyspec keys[] = {
		{ "dir", str_field, FIELD(cache_dir), NULL }, { NULL, NULL },
	};

	return walk_map(L, v, key, keys, arg);
}

static int
tools_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	struct magus_config *cfg = L->cfg;
	const char *s = string(L, v, key);

	if (!s)
		return -1;
	ALLOC_GROW(cfg->tools, cfg->ntools + 1, cfg->tools_alloc);
	cfg->tools[cfg->ntools].value = NULL;
	set_str(L, &cfg->tools[cfg->ntools++], v, s);
	return 0;
}

static int
sec_tools(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	return walk_list(L, v, key, tools_item, arg);
}

/* ---- indexers ------------------------------------------------------- */

static int
ix_project(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;
	const char *s = string(L, v, key), *why;

	if (!s)
		return -1;
	why = scip_project_error(s);
	if (why)
		return fail(L, 1007, v, key, "write the project's directory "
		    "relative to the root, as 'services/api' (or '.')",
		    "project '%s' is not a canonical relative path: %s", s,
		    why);
	ix->project = xstrdup(s);
	return 0;
}

static int
ix_tool(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;
	const char *s = string(L, v, key);

	if (!s)
		return -1;
	ix->tool = xstrdup(s);
	return 0;
}

static int
ix_image(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;
	const char *s = pinned_image(L, v, key);

	if (!s)
		return -1;
	ix->image = xstrdup(s);
	return 0;
}

static int
ix_memory(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;

	return number_long(L, v, key, 6, 1L << 20, &ix->memory_mb) ? 0 : -1;
}

static int
ix_cpus(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;
	const char *s = scalar(L, v, key);

	if (!s)
		return -1;
	if (v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return fail(L, 1006, v, key, NULL, "expected a number, found "
		    "a quoted string");
	if (!parse_positive_double(s, &ix->cpus) || ix->cpus > 1024)
		return fail(L, 1007, v, key, NULL, "'%s' is not a number of "
		    "CPUs above 0", s);
	return 0;
}

static int
ix_pids(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;

	return number_long(L, v, key, 8, 1L << 22, &ix->pids) ? 0 : -1;
}

static int
ix_cache_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	struct cfg_indexer *ix = arg;
	const char *s = string(L, v, key);

	if (!s)
		return -1;
	if (!env_name_valid(s))
		return fail(L, 1007, v, key, NULL, "'%s' is not a variable "
		    "name", s);
	strvec_push(&ix->caches, s);
	return 0;
}

static int
ix_caches(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	return walk_list(L, v, key, ix_cache_item, arg);
}

static int
ix_command(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	struct cfg_indexer *ix = arg;

	if (walk_list(L, v, key, argv_item, &ix->command) < 0)
		return -1;
	if (!ix->command.n)
		return fail(L, 1007, v, key, NULL, "the command is empty");
	return 0;
}

static int
ix_item(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	static const struct keyspec keys[] = {
		{ "project", ix_project }, { "tool", ix_tool },
		{ "image", ix_image },	   { "memory_mb", ix_memory },
		{ "cpus", ix_cpus },	   { "pids", ix_pids },
		{ "caches", ix_caches },   { "command", ix_command },
		{ NULL, NULL },
	};
	struct magus_config *cfg = L->cfg;
	struct cfg_indexer *ix;
	const char *missing = NULL;
	size_t i;

	if (!expect(L, v, YAML_MAPPING_NODE, key))
		return -1;
	ALLOC_GROW(cfg->indexers, cfg->nindexers + 1, cfg->indexers_alloc);
	ix = &cfg->indexers[cfg->nindexers++];
	memset(ix, 0, sizeof(*ix));
	strvec_init(&ix->caches);
	strvec_init(&ix->command);
	ix->from = origin_at(L, v);
	if (walk_map(L, v, key, keys, ix) < 0)
		return -1;
	if (!ix->project)
		missing = "project";
	else if (!ix->tool)
		missing = "tool";
	else if (!ix->image)
		missing = "image";
	else if (!ix->memory_mb)
		missing = "memory_mb";
	else if (!(ix->cpus > 0))
		missing = "cpus";
	else if (!ix->pids)
		missing = "pids";
	if (missing)
		return fail(L, 1007, v, key, "the bounds are measured, not "
		    "guessed: see bench/ for the bounds benchmark",
		    "an indexer needs '%s'", missing);
	if (!scip_tool_command(ix->tool) && !ix->command.n)
		return fail(L, 1007, v, key, NULL, "tool '%s' has no built-in "
		    "command: give 'command'", ix->tool);
	for (i = 0; i + 1 < cfg->nindexers; i++)
		if (!strcmp(cfg->indexers[i].project, ix->project))
			return fail(L, 1007, v, key, NULL, "project '%s' is "
			    "declared twice", ix->project);
	return 0;
}

static int
sec_indexers(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	return walk_list(L, v, key, ix_item, arg);
}

/* ---- user-tier sections --------------------------------------------- */



static const char *const rootless_choices[] = { "required", "optional",
	NULL };

static int
sec_container(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg)
{
	static const struct keyspec keys[] = {
		{ "api", str_field, FIELD(container_api), NULL },
		{ "rootless", str_field, FIELD(container_rootless),
		    rootless_choices },
		{ NULL, NULL },
	};

	return walk_map(L, v, key, keys, arg);
}



static int
sec_self(struct loader *L, const yaml_node_t *v, const char *key, void *arg)
{
	static const struct keyspec keys[] = {
		{ "index", str_field, FIELD(self_index), NULL },
		{ "pubkey", str_field, FIELD(self_pubkey), NULL },
		{ NULL, NULL },
	};

	return walk_map(L, v, key, keys, arg);
}

/* Keys that live in the user tier only. */
static int
user_only(struct loader *L, const yaml_node_t *v, const char *key,
    void *arg UNUSED)
{
	struct strbuf hint = STRBUF_INIT;
	const char *xdg = getenv("XDG_CONFIG_HOME");
	int r;

	if (xdg && *xdg)
		strbuf_addf(&hint, "move it to the user tier, %s/magus/"
		    "config.yaml", xdg);
	else
		strbuf_addstr(&hint, "move it to the user tier, "
		    "~/.config/magus/config.yaml");
	r = fail(L, 1008, L->key_node ? L->key_node : v, key, hint.buf,
	    "'%s' belongs in the user tier, "
	    "not in the workspace's %s", key, L->file);
	strbuf_release(&hint);
	return r;
}

/* ---- loading a file ------------------------------------------------- */

static int
load_file(struct magus_config *cfg, const char *path, enum origin_kind tier,
    bool must_exist)
{
	static const struct keyspec ws_keys[] = {
		{ "sandbox", sec_sandbox },  { "targets", sec_targets },
		{ "platform", sec_platform }, { "cache", sec_cache },
		{ "indexers", sec_indexers }, { "tools", sec_tools },
		{ "container", user_only },  { "self", user_only },
		{ NULL, NULL },
	};
	static const struct keyspec user_keys[] = {
		{ "sandbox", sec_sandbox },  { "container", sec_container },
		{ "self", sec_self },	     { "cache", sec_cache },
		{ NULL, NULL },
	};
	struct loader L;
	yaml_parser_t parser;
	yaml_node_t *root;
	FILE *f;
	int r = 0;

	memset(&L, 0, sizeof(L));
	L.cfg = cfg;
	L.file = path;
	L.tier = tier;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		diag(1003, NULL, "cannot read '%s': %s", path, strerror(errno));
		return 1003;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		diag(1003, NULL, "cannot read '%s': out of memory", path);
		return 1003;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &L.doc)) {
		diag(1004, NULL, "%s:%lu:%lu: %s%s%s", path,
		    (unsigned long)parser.problem_mark.line + 1,
		    (unsigned long)parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "syntax error",
		    parser.context ? " " : "",
		    parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		fclose(f);
		return 1004;
	}
	if (ferror(f)) {
		diag(1003, NULL, "cannot read '%s': %s", path, strerror(errno));
		r = 1003;
		goto out;
	}
	root = yaml_document_get_root_node(&L.doc);
	if (root && !is_null(root)) {
		if (root->type != YAML_MAPPING_NODE) {
			fail(&L, 1006, root, "(top)", NULL, "expected a "
			    "mapping of keys, found %s", node_kind(root));
		} else {
			walk_map(&L, root, "",
			    tier == ORIGIN_USER ? user_keys : ws_keys,
			    &cfg->sandbox);
		}
	}
	r = L.err;
	if (!r && tier == ORIGIN_USER)
		cfg->user_file_read = true;
out:
	yaml_document_delete(&L.doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return r;
}

/* ---- checks across keys --------------------------------------------- */

const struct cfg_target *
config_target(const struct magus_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->ntargets; i++)
		if (!strcmp(cfg->targets[i].name, name))
			return &cfg->targets[i];
	return NULL;
}

/* Depth-first search for a cycle through target i; `state` is 0 for
 * unvisited, 1 on the current path, 2 done.  The path is kept in `path`. */
static bool
find_cycle(const struct magus_config *cfg, size_t i, unsigned char *state,
    struct strvec *path)
{
	const struct cfg_target *t = &cfg->targets[i];
	size_t j;

	if (state[i] == 2)
		return false;
	strvec_push(path, t->name);
	if (state[i] == 1)
		return true;
	state[i] = 1;
	for (j = 0; j < t->deps.n; j++) {
		const struct cfg_target *d = config_target(cfg, t->deps.v[j]);

		if (d && find_cycle(cfg, (size_t)(d - cfg->targets), state,
		    path))
			return true;
	}
	state[i] = 2;
	free(path->v[--path->n]);
	path->v[path->n] = NULL;
	return false;
}

static int
check_cycles(struct magus_config *cfg)
{
	unsigned char *state = xcalloc(cfg->ntargets ? cfg->ntargets : 1, 1);
	struct strvec path = STRVEC_INIT;
	struct strbuf msg = STRBUF_INIT;
	size_t i, j;
	int r = 0;

	for (i = 0; i < cfg->ntargets && !r; i++) {
		if (!find_cycle(cfg, i, state, &path))
			continue;
		/* Print from the first occurrence of the repeated name. */
		for (j = 0; j + 1 < path.n; j++)
			if (!strcmp(path.v[j], path.v[path.n - 1]))
				break;
		for (; j < path.n; j++)
			strbuf_addf(&msg, "%s%s", msg.len ? " -> " : "",
			    path.v[j]);
		diag(1014, NULL, "%s: targets depend on each other: %s",
		    cfg->targets[i].from.where, msg.buf);
		r = 1014;
	}
	strbuf_release(&msg);
	strvec_clear(&path);
	free(state);
	return r;
}

static int
check_targets(struct magus_config *cfg)
{
	size_t i, j;

	for (i = 0; i < cfg->ntargets; i++) {
		const struct cfg_target *t = &cfg->targets[i];

		for (j = 0; j < t->deps.n; j++) {
			if (config_target(cfg, t->deps.v[j]))
				continue;
			diag(1013, NULL, "%s:%d: key 'targets.%s.deps': "
			    "unknown target '%s'", t->from.where, t->from.line,
			    t->name, t->deps.v[j]);
			return 1013;
		}
		if (t->sandbox.mode != SANDBOX_UNSET &&
		    cfg->sandbox.mode != SANDBOX_UNSET &&
		    t->sandbox.mode < cfg->sandbox.mode) {
			diag(1007, "a target's sandbox may only strengthen the "
			    "workspace's", "%s:%d: key 'targets.%s.sandbox.mode':"
			    " '%s' is weaker than the workspace's '%s'",
			    t->sandbox.mode_from.where,
			    t->sandbox.mode_from.line, t->name,
			    sandbox_mode_name(t->sandbox.mode),
			    sandbox_mode_name(cfg->sandbox.mode));
			return 1007;
		}
	}
	return check_cycles(cfg);
}

/* ---- merging -------------------------------------------------------- */

static void
set_origin(struct cfg_str *dst, const char *value, enum origin_kind kind,
    const char *where)
{
	free(dst->value);
	dst->value = xstrdup(value);
	dst->from.kind = kind;
	dst->from.where = where;
	dst->from.line = 0;
}

/* Flag beats environment beats the files (already merged) beats default. */
static void
layer(struct cfg_str *dst, const char *flag_value, const char *flag_name,
    const char *env_name, const char *def)
{
	const char *env = env_name ? getenv(env_name) : NULL;

	if (flag_value)
		set_origin(dst, flag_value, ORIGIN_FLAG, flag_name);
	else if (env && *env)
		set_origin(dst, env, ORIGIN_ENV, env_name);
	else if (!dst->value && def)
		set_origin(dst, def, ORIGIN_DEFAULT, NULL);
}

static int
resolve_sandbox(struct magus_config *cfg, const char *flag)
{
	const char *env = getenv("MAGUS_SANDBOX");
	struct cfg_sandbox *sb = &cfg->sandbox;
	enum sandbox_mode m;

	cfg->floor = SANDBOX_UNSET;
	if (env && *env) {
		cfg->floor = sandbox_mode_parse(env);
		if (cfg->floor == SANDBOX_UNSET) {
			diag(1007, NULL, "MAGUS_SANDBOX: unknown sandbox mode "
			    "'%s' (off, best-effort or required)", env);
			return 1007;
		}
	}
	if (flag) {
		m = sandbox_mode_parse(flag);
		if (m == SANDBOX_UNSET) {
			diag(1002, NULL, "--sandbox: unknown sandbox mode '%s' "
			    "(off, best-effort or required)", flag);
			return 1002;
		}
		if (cfg->floor != SANDBOX_UNSET && m < cfg->floor) {
			diag(2010, NULL, "--sandbox=%s is weaker than the "
			    "inherited floor MAGUS_SANDBOX=%s",
			    sandbox_mode_name(m), sandbox_mode_name(cfg->floor));
			return 2010;
		}
		sb->mode = m;
		sb->mode_from.kind = ORIGIN_FLAG;
		sb->mode_from.where = "--sandbox";
		sb->mode_from.line = 0;
	}
	/* The floor raises whatever the files chose; it never lowers. */
	if (cfg->floor != SANDBOX_UNSET &&
	    (sb->mode == SANDBOX_UNSET || sb->mode < cfg->floor ||
	    (!flag && sb->mode == cfg->floor))) {
		sb->mode = cfg->floor;
		sb->mode_from.kind = ORIGIN_ENV;
		sb->mode_from.where = "MAGUS_SANDBOX";
		sb->mode_from.line = 0;
	}
	if (sb->mode == SANDBOX_UNSET) {
		sb->mode = SANDBOX_OFF;
		sb->mode_from.kind = ORIGIN_DEFAULT;
		sb->mode_from.where = NULL;
		sb->mode_from.line = 0;
	}
	return 0;
}

static char *
user_config_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return xasprintf("%s/magus/config.yaml", xdg);
	if (home && *home)
		return xasprintf("%s/.config/magus/config.yaml", home);
	return NULL;
}

int
config_load(struct magus_config *cfg, const char *root,
    const char *workspace_file, const struct config_flags *flags)
{
	static const struct config_flags none = { NULL, NULL, NULL };
	struct stat st;
	char *ws;
	int r;

	if (!flags)
		flags = &none;
	memset(cfg, 0, sizeof(*cfg));
	cfg->sandbox.mode = SANDBOX_UNSET;
	cfg->floor = SANDBOX_UNSET;
	cfg->root = xstrdup(root);

	cfg->user_file = user_config_path();
	if (cfg->user_file) {
		r = load_file(cfg, cfg->user_file, ORIGIN_USER, false);
		if (r)
			return r;
	}

	ws = workspace_file ? xstrdup(workspace_file) :
	    path_join(root, "magus.yaml");
	if (workspace_file || stat(ws, &st) == 0) {
		cfg->workspace_file = ws;
		r = load_file(cfg, ws, ORIGIN_WORKSPACE, true);
		if (r)
			return r;
	} else {
		free(ws);
	}

	r = check_targets(cfg);
	if (r)
		return r;
	r = resolve_sandbox(cfg, flags->sandbox);
	if (r)
		return r;

	layer(&cfg->cache_dir, NULL, NULL, "MAGUS_CACHE_DIR", ".magus");
	cfg->cache_dir_abs = cfg->cache_dir.value[0] == '/' ?
	    xstrdup(cfg->cache_dir.value) :
	    path_join(root, cfg->cache_dir.value);
	layer(&cfg->container_api, flags->container_api, "--container-api",
	    "MAGUS_CONTAINER_API", NULL);
	layer(&cfg->self_index, NULL, NULL, "MAGUS_RELEASE_INDEX",
	    MAGUS_RELEASE_INDEX_DEFAULT);
	layer(&cfg->self_pubkey, NULL, NULL, "MAGUS_RELEASE_PUBKEY", NULL);
	layer(&cfg->platform_network, NULL, NULL, "MAGUS_PLATFORM_NETWORK",
	    "default");
	if (strcmp(cfg->platform_network.value, "none") &&
	    strcmp(cfg->platform_network.value, "default")) {
		diag(1007, NULL, "MAGUS_PLATFORM_NETWORK: unknown platform "
		    "network '%s' (none or default)",
		    cfg->platform_network.value);
		return 1007;
	}
	layer(&cfg->output, flags->output, "-o", "MAGUS_OUTPUT", "text");
	if (strcmp(cfg->output.value, "text") &&
	    strcmp(cfg->output.value, "json")) {
		diag(cfg->output.from.kind == ORIGIN_FLAG ? 1002 : 1007, NULL,
		    "%s: unknown output format '%s' (text or json)",
		    cfg->output.from.where, cfg->output.value);
		return cfg->output.from.kind == ORIGIN_FLAG ? 1002 : 1007;
	}
	if (!cfg->sandbox.network.value)
		set_origin(&cfg->sandbox.network, "allow", ORIGIN_DEFAULT, NULL);
	return 0;
}

/* ---- listing -------------------------------------------------------- */

typedef void (*emit_fn)(const char *, const char *, const struct origin *,
    void *);

static void
each_str(const char *key, const struct cfg_str *s, emit_fn emit, void *arg)
{
	if (s->value)
		emit(key, s->value, &s->from, arg);
}

static void
each_sandbox(const char *prefix, const struct cfg_sandbox *sb, emit_fn emit,
    void *arg)
{
	struct strbuf k = STRBUF_INIT, v = STRBUF_INIT;
	size_t i;

	if (sb->mode != SANDBOX_UNSET) {
		strbuf_addf(&k, "%s.mode", prefix);
		emit(k.buf, sandbox_mode_name(sb->mode), &sb->mode_from, arg);
	}
	for (i = 0; i < sb->nallow; i++) {
		strbuf_reset(&k);
		strbuf_reset(&v);
		strbuf_addf(&k, "%s.allow", prefix);
		strbuf_addf(&v, "%s:%s", sb->allow[i].mode, sb->allow[i].path);
		emit(k.buf, v.buf, &sb->allow[i].from, arg);
	}
	for (i = 0; i < sb->npassthrough; i++) {
		strbuf_reset(&k);
		strbuf_addf(&k, "%s.env.passthrough", prefix);
		each_str(k.buf, &sb->passthrough[i], emit, arg);
	}
	strbuf_reset(&k);
	strbuf_addf(&k, "%s.network.mode", prefix);
	each_str(k.buf, &sb->network, emit, arg);
	for (i = 0; i < sb->negress; i++) {
		strbuf_reset(&k);
		strbuf_addf(&k, "%s.network.allow", prefix);
		each_str(k.buf, &sb->egress[i], emit, arg);
	}
	strbuf_release(&k);
	strbuf_release(&v);
}

void
config_each(const struct magus_config *cfg, emit_fn emit, void *arg)
{
	struct strbuf k = STRBUF_INIT, v = STRBUF_INIT;
	size_t i, j;

	each_sandbox("sandbox", &cfg->sandbox, emit, arg);
	for (i = 0; i < cfg->ntargets; i++) {
		const struct cfg_target *t = &cfg->targets[i];

		strbuf_reset(&k);
		strbuf_reset(&v);
		strbuf_addf(&k, "targets.%s.run", t->name);
		if (t->cmdline) {
			strbuf_addstr(&v, t->cmdline);
		} else {
			for (j = 0; j < t->argv.n; j++)
				strbuf_addf(&v, "%s%s", j ? " " : "",
				    t->argv.v[j]);
		}
		emit(k.buf, v.buf, &t->from, arg);
		for (j = 0; j < t->deps.n; j++) {
			strbuf_reset(&k);
			strbuf_addf(&k, "targets.%s.deps", t->name);
			emit(k.buf, t->deps.v[j], &t->from, arg);
		}
		strbuf_reset(&k);
		strbuf_addf(&k, "targets.%s.sandbox", t->name);
		if (t->sandbox.mode != SANDBOX_UNSET || t->sandbox.nallow ||
		    t->sandbox.npassthrough)
			each_sandbox(k.buf, &t->sandbox, emit, arg);
	}
	for (i = 0; i < cfg->nimages; i++) {
		strbuf_reset(&k);
		strbuf_addf(&k, "platform.images.%s.ref", cfg->images[i].os);
		emit(k.buf, cfg->images[i].ref, &cfg->images[i].from, arg);
		for (j = 0; j < cfg->images[i].env.n; j++) {
			strbuf_reset(&k);
			strbuf_addf(&k, "platform.images.%s.env",
			    cfg->images[i].os);
			emit(k.buf, cfg->images[i].env.v[j],
			    &cfg->images[i].from, arg);
		}
	}
	each_str("platform.network", &cfg->platform_network, emit, arg);
	if (cfg->platform_memory_mb) {
		strbuf_reset(&v);
		strbuf_addf(&v, "%ld", cfg->platform_memory_mb);
		emit("platform.memory_mb", v.buf, &cfg->platform_memory_from,
		    arg);
	}
	each_str("cache.dir", &cfg->cache_dir, emit, arg);
	for (i = 0; i < cfg->nindexers; i++) {
		const struct cfg_indexer *ix = &cfg->indexers[i];

		strbuf_reset(&k);
		strbuf_reset(&v);
		strbuf_addf(&k, "indexers.%s", ix->project);
		strbuf_addf(&v, "tool=%s image=%s memory_mb=%ld cpus=%g "
		    "pids=%ld", ix->tool, ix->image, ix->memory_mb, ix->cpus,
		    ix->pids);
		emit(k.buf, v.buf, &ix->from, arg);
	}
	for (i = 0; i < cfg->ntools; i++)
		each_str("tools", &cfg->tools[i], emit, arg);
	each_str("container.api", &cfg->container_api, emit, arg);
	each_str("container.rootless", &cfg->container_rootless, emit, arg);
	each_str("self.index", &cfg->self_index, emit, arg);
	each_str("self.pubkey", &cfg->self_pubkey, emit, arg);
	each_str("output", &cfg->output, emit, arg);
	strbuf_release(&k);
	strbuf_release(&v);
}

/* ---- release -------------------------------------------------------- */

static void
release_sandbox(struct cfg_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->nallow; i++) {
		free(sb->allow[i].path);
		free(sb->allow[i].mode);
	}
	free(sb->allow);
	for (i = 0; i < sb->npassthrough; i++)
		free(sb->passthrough[i].value);
	free(sb->passthrough);
	for (i = 0; i < sb->negress; i++)
		free(sb->egress[i].value);
	free(sb->egress);
	free(sb->network.value);
}

void
config_release(struct magus_config *cfg)
{
	size_t i;

	release_sandbox(&cfg->sandbox);
	for (i = 0; i < cfg->ntargets; i++) {
		free(cfg->targets[i].name);
		free(cfg->targets[i].cmdline);
		strvec_clear(&cfg->targets[i].argv);
		strvec_clear(&cfg->targets[i].deps);
		release_sandbox(&cfg->targets[i].sandbox);
	}
	free(cfg->targets);
	for (i = 0; i < cfg->nimages; i++) {
		free(cfg->images[i].os);
		free(cfg->images[i].ref);
		strvec_clear(&cfg->images[i].env);
	}
	free(cfg->images);
	for (i = 0; i < cfg->nindexers; i++) {
		free(cfg->indexers[i].project);
		free(cfg->indexers[i].tool);
		free(cfg->indexers[i].image);
		strvec_clear(&cfg->indexers[i].caches);
		strvec_clear(&cfg->indexers[i].command);
	}
	free(cfg->indexers);
	for (i = 0; i < cfg->ntools; i++)
		free(cfg->tools[i].value);
	free(cfg->tools);
	free(cfg->cache_dir.value);
	free(cfg->cache_dir_abs);
	free(cfg->container_api.value);
	free(cfg->container_rootless.value);
	free(cfg->self_index.value);
	free(cfg->self_pubkey.value);
	free(cfg->platform_network.value);
	free(cfg->output.value);
	free(cfg->root);
	free(cfg->workspace_file);
	free(cfg->user_file);
	memset(cfg, 0, sizeof(*cfg));
}
