/*
 * env.c: the child's environment, an allowlist.
 *
 * Nothing crosses by default except the names below, the locale (LC_*)
 * and what a --passthrough pattern names.  A variable that names a
 * socket is withheld even when a pattern matches it.  Names are
 * reported, never values.
 */
#include "compat.h"

#include "diag.h"
#include "sandbox.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

static const char *const allowlist[] = {
	"HOME", "PATH", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ",
	"TERM", "COLORTERM", "NO_COLOR", "COLUMNS", "LINES",
};

/* Set by the sandbox itself: whatever the parent had is replaced. */
static const char *const owned[] = { "TMPDIR", "MAGUS_SANDBOX" };

static const char *const sockets[] = {
	"SSH_AUTH_SOCK", "DOCKER_HOST", "MAGUS_CONTAINER_API",
};

/* PATH-shim managers: their variables' prefix, and their name. */
static const struct {
	const char *prefix;
	const char *name;
} shims[] = {
	{ "MISE_", "mise" },
	{ "ASDF_", "asdf" },
	{ "DIRENV_", "direnv" },
	{ "PYENV_", "pyenv" },
	{ "RBENV_", "rbenv" },
	{ "NODENV_", "nodenv" },
};

static bool
in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

bool
env_pattern_match(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return !strncmp(name, pattern, n - 1);
	return !strcmp(name, pattern);
}

static bool
passthrough(const struct policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->passthrough.n; i++)
		if (env_pattern_match(p->passthrough.v[i], name))
			return true;
	return false;
}

static void
join_names(const struct strvec *names, const char *prefix, struct strbuf *out)
{
	size_t i;
	int n = 0;

	for (i = 0; i < names->n; i++)
		if (!prefix || starts_with(names->v[i], prefix))
			strbuf_addf(out, "%s%s", n++ ? ", " : "",
			    names->v[i]);
}

/* A shims directory on PATH ("~/.asdf/shims"), or NULL. */
static char *
shims_on_path(const struct policy *p)
{
	const char *path = env_get(p->env.v, "PATH");
	char *copy, *s, *dir, *found = NULL;

	if (!path)
		return NULL;
	copy = xstrdup(path);
	for (s = copy; (dir = strsep(&s, ":"));) {
		if (ends_with(dir, "/shims") || ends_with(dir, "/shims/")) {
			found = xstrdup(dir);
			break;
		}
	}
	free(copy);
	return found;
}

/* MGS2006, once: what was stripped looks like a PATH-shim manager's. */
static void
report_shims(const struct policy *p)
{
	struct strbuf names = STRBUF_INIT, hint = STRBUF_INIT;
	const char *prefix = NULL, *name = NULL;
	char *dir;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(shims) && !prefix; i++)
		for (j = 0; j < p->stripped.n; j++)
			if (starts_with(p->stripped.v[j], shims[i].prefix)) {
				prefix = shims[i].prefix;
				name = shims[i].name;
				break;
			}
	if (prefix) {
		join_names(&p->stripped, prefix, &names);
		strbuf_addf(&hint, "keep them with --passthrough '%s*' "
		    "(sandbox.env.passthrough in magus.yaml)", prefix);
		diag(2006, hint.buf, "stripped the variables of %s, a "
		    "PATH-shim manager: %s", name, names.buf);
	} else if (p->stripped.n && (dir = shims_on_path(p))) {
		for (i = 0; i < ARRAY_SIZE(shims); i++)
			if (strstr(dir, shims[i].name))
				break;
		if (i < ARRAY_SIZE(shims))
			strbuf_addf(&hint, "keep its variables with "
			    "--passthrough '%s*'", shims[i].prefix);
		else
			strbuf_addstr(&hint, "keep its manager's variables "
			    "with --passthrough");
		diag(2006, hint.buf, "PATH holds the shims directory '%s' and "
		    "variables were stripped; the shims may pick another "
		    "version or fail", dir);
		free(dir);
	}
	strbuf_release(&names);
	strbuf_release(&hint);
}

/* Under --network proxy the proxy variables are the sandbox's own. */
static bool
proxy_owned(const struct policy *p, const char *name)
{
	return p->network_proxy &&
	    (in_list(name, netproxy_vars, netproxy_nvars) ||
	    in_list(name, netproxy_empty_vars, netproxy_nempty));
}

/* Point the command at the forwarder (the port is filled in when it is
 * known) and let nothing bypass it. */
static void
set_proxy_vars(struct policy *p)
{
	size_t i;

	for (i = 0; i < netproxy_nvars; i++) {
		env_set(&p->env, netproxy_vars[i], netproxy_url_placeholder);
		strvec_push(&p->passed, netproxy_vars[i]);
	}
	for (i = 0; i < netproxy_nempty; i++) {
		env_set(&p->env, netproxy_empty_vars[i], "");
		strvec_push(&p->passed, netproxy_empty_vars[i]);
	}
}

void
env_build(struct policy *p, char *const *envp)
{
	struct strbuf list = STRBUF_INIT;

	for (; *envp; envp++) {
		const char *eq = strchr(*envp, '=');
		char *name;

		if (!eq || eq == *envp)
			continue;
		name = xstrndup(*envp, (size_t)(eq - *envp));
		if (in_list(name, owned, ARRAY_SIZE(owned)) ||
		    proxy_owned(p, name) || strvec_find(&p->passed, name) >= 0 ||
		    strvec_find(&p->stripped, name) >= 0 ||
		    strvec_find(&p->withheld, name) >= 0) {
			free(name);
			continue;
		}
		if (in_list(name, sockets, ARRAY_SIZE(sockets))) {
			/* Asked for by name, refused anyway: say so. */
			if (p->verbose || passthrough(p, name))
				diag(2008, "a socket is never passed into the "
				    "sandbox", "withheld %s: it names a socket",
				    name);
			strvec_push_nodup(&p->withheld, name);
		} else if (in_list(name, allowlist, ARRAY_SIZE(allowlist)) ||
		    starts_with(name, "LC_") || passthrough(p, name)) {
			strvec_push(&p->env, *envp);
			strvec_push_nodup(&p->passed, name);
		} else {
			strvec_push_nodup(&p->stripped, name);
		}
	}
	env_set(&p->env, "MAGUS_SANDBOX", sandbox_mode_name(p->mode));
	strvec_push(&p->passed, "MAGUS_SANDBOX");
	strvec_push(&p->passed, "TMPDIR");
	if (p->network_proxy)
		set_proxy_vars(p);

	if (p->verbose && p->stripped.n) {
		join_names(&p->stripped, NULL, &list);
		diag(2003, NULL, "stripped %zu variables from the environment: "
		    "%s", p->stripped.n, list.buf);
	}
	report_shims(p);
	strbuf_release(&list);
}
