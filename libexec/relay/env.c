/*
 * env.c: the environment inside the container (spec/relay.md, "The
 * environment inside").
 *
 * Three sources, weakest first: the image declaration's env (never a
 * MAGUS_* name: config.c refuses one at load), the values the caller
 * told magus (every MAGUS_* variable of the host, and the user tier's
 * non-default values, under their MAGUS_* names), and the floor magus
 * sets itself.  Nothing else crosses: no secret, no DOCKER_HOST, no
 * SSH_AUTH_SOCK.  A told value that cannot cross is a refusal, never a
 * silent drop.
 */
#include "compat.h"

#include <pwd.h>
#include <unistd.h>

#include "diag.h"
#include "relay.h"
#include "strutil.h"
#include "xalloc.h"

extern char **environ;

void
relay_env_set(struct relay *r, const char *name, const char *value,
    const char *from)
{
	size_t n = strlen(name), i;

	for (i = 0; i < r->env.n; i++) {
		if (!strncmp(r->env.v[i], name, n) && r->env.v[i][n] == '=') {
			free(r->env.v[i]);
			r->env.v[i] = xasprintf("%s=%s", name, value);
			free(r->env_from.v[i]);
			r->env_from.v[i] = xstrdup(from);
			return;
		}
	}
	strvec_pushf(&r->env, "%s=%s", name, value);
	strvec_push(&r->env_from, from);
}

/*
 * The relay's own inputs, resolved on this side and meaningless inside
 * (a socket, a host directory of helpers, the network choice the create
 * request already carries, the release index, key and CA bundle of a
 * verb that is never relayed), and the values the floor sets below.
 */
static bool
consumed(const char *name)
{
	static const char *const names[] = {
		"MAGUS_CONTAINER_API", "MAGUS_EXEC_PATH",
		"MAGUS_PLATFORM_NETWORK", "MAGUS_RELEASE_INDEX",
		"MAGUS_RELEASE_PUBKEY", "MAGUS_CA_BUNDLE", "MAGUS_SANDBOX",
		"MAGUS_PLATFORM",
		"MAGUS_BROKER", "MAGUS_NO_BOOTSTRAP_EXEC",
		"MAGUS_CACHE_REMOTE_WRITE_ENABLED", NULL,
	};
	size_t i;

	for (i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* Told values whose value is a host path: they cross only under the root. */
static bool
is_path_value(const char *name)
{
	return !strcmp(name, "MAGUS_CACHE_DIR") ||
	    !strcmp(name, "MAGUS_CONFIG") || !strcmp(name, "MAGUS_ROOT");
}

static void NORETURN
cannot_cross(const char *what, const char *why)
{
	diag(3039, "unset it for the relayed run, or move the setting into "
	    "the workspace's magus.yaml", "%s cannot cross into the "
	    "container: %s", what, why);
	exit(2);
}

static void
cross_told(struct relay *r, const char *name, const char *value,
    const char *from)
{
	char *abs;

	if (is_path_value(name)) {
		abs = path_absolute(value);
		if (!path_is_under(abs, r->root)) {
			struct strbuf why = STRBUF_INIT;

			strbuf_addf(&why, "'%s' lies outside the mounted "
			    "checkout '%s'", value, r->root);
			cannot_cross(name, why.buf);
		}
		free(abs);
	}
	relay_env_set(r, name, value, from);
}

struct user_walk {
	struct relay *r;
};

/*
 * The user tier's values: those with a MAGUS_* name cross under it; the
 * relay's own (container.*, self.*, platform.network) stay here; any
 * other is a told value with no name to cross under.
 */
static void
user_value(const char *key, const char *value, const struct origin *from,
    void *arg)
{
	struct user_walk *w = arg;
	struct strbuf what = STRBUF_INIT;

	if (from->kind != ORIGIN_USER)
		return;
	if (starts_with(key, "container.") || starts_with(key, "self.") ||
	    !strcmp(key, "platform.network") || !strcmp(key, "sandbox.mode"))
		return;
	if (!strcmp(key, "output")) {
		if (!getenv("MAGUS_OUTPUT"))
			cross_told(w->r, "MAGUS_OUTPUT", value, "user config");
		return;
	}
	if (!strcmp(key, "cache.dir")) {
		/* cache.dir is resolved by the relay itself, below. */
		return;
	}
	strbuf_addf(&what, "user configuration '%s' (%s:%d)", key,
	    from->where ? from->where : "?", from->line);
	cannot_cross(what.buf, "it has no MAGUS_* name to cross under");
}

static const char *
user_name(void)
{
	struct passwd *pw = getpwuid(getuid());

	return pw && pw->pw_name && *pw->pw_name ? pw->pw_name : "magus";
}

void
relay_build_env(struct relay *r)
{
	const struct magus_config *c = &r->cfg;
	struct user_walk w = { r };
	char **e;
	size_t i;

	/* The image declaration's env, under everything told. */
	for (i = 0; r->image && i < r->image->env.n; i++) {
		char *eq = strchr(r->image->env.v[i], '=');
		char *name = xstrndup(r->image->env.v[i],
		    (size_t)(eq - r->image->env.v[i]));

		relay_env_set(r, name, eq + 1, "image declaration");
		free(name);
	}

	/* Every MAGUS_* of the host, as told. */
	for (e = environ; *e; e++) {
		char *eq = strchr(*e, '=');
		char *name;

		if (!eq || !starts_with(*e, "MAGUS_"))
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		if (!consumed(name))
			cross_told(r, name, eq + 1, "environment");
		free(name);
	}
	config_each(c, user_value, &w);

	/* The cache directory, wherever it came from, is where the store is
	 * mounted: it must lie under the checkout. */
	if (!path_is_under(c->cache_dir_abs, r->root)) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addf(&why, "'%s' lies outside the mounted checkout "
		    "'%s'", c->cache_dir_abs, r->root);
		cannot_cross("cache.dir", why.buf);
	}

	/* The floor. */
	relay_env_set(r, "MAGUS_SANDBOX", sandbox_mode_name(c->sandbox.mode),
	    "relay");
	relay_env_set(r, "MAGUS_CACHE_REMOTE_WRITE_ENABLED", "false", "relay");
	relay_env_set(r, "MAGUS_NO_BOOTSTRAP_EXEC", "1", "relay");
	relay_env_set(r, "MAGUS_BROKER", "off", "relay");
	relay_env_set(r, "MAGUS_PLATFORM", platform_str(&r->plat), "relay");
	snprintf(r->user, sizeof(r->user), "%s", user_name());
	free(r->home);
	r->home = xasprintf("/home/%s", r->user);
	relay_env_set(r, "HOME", r->home, "relay");
	relay_env_set(r, "USER", r->user, "relay");
	if (getenv("TERM"))
		relay_env_set(r, "TERM", getenv("TERM"), "environment");
	if (getenv("NO_COLOR"))
		relay_env_set(r, "NO_COLOR", getenv("NO_COLOR"), "environment");
}
