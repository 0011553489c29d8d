/*
 * request.c: the create request, and --print-request.
 *
 * The body is built once, with json.h (deterministic, no whitespace),
 * and the same bytes are either sent (engine_container_create sends a
 * body byte for byte) or printed: --print-request shows exactly what the
 * engine would receive.
 */
#include "compat.h"

#include <unistd.h>

#include "engine.h"
#include "json.h"
#include "relay.h"
#include "strutil.h"
#include "xalloc.h"

static void
mount(struct json *j, const char *type, const char *src, const char *dst,
    bool ro)
{
	json_object_begin(j);
	json_kv_str(j, "Type", type);
	json_kv_str(j, "Source", src);
	json_kv_str(j, "Target", dst);
	json_kv_bool(j, "ReadOnly", ro);
	json_object_end(j);
}

void
relay_build_request(struct relay *r)
{
	struct json j;
	char ug[64];
	size_t i;

	snprintf(ug, sizeof(ug), "%u:%u", (unsigned)getuid(),
	    (unsigned)getgid());
	strbuf_reset(&r->body);
	json_init(&j, &r->body);
	json_object_begin(&j);
	json_kv_str(&j, "Image", r->image->ref);
	json_key(&j, "Entrypoint");
	json_array_begin(&j);
	json_str(&j, RELAY_INNER_MAGUS);
	json_array_end(&j);
	json_key(&j, "Cmd");
	json_array_begin(&j);
	for (i = 0; i < r->inner.n; i++)
		json_str(&j, r->inner.v[i]);
	json_array_end(&j);
	json_kv_str(&j, "WorkingDir", r->cwd);
	json_kv_str(&j, "User", ug);
	json_key(&j, "Env");
	json_array_begin(&j);
	for (i = 0; i < r->env.n; i++)
		json_str(&j, r->env.v[i]);
	json_array_end(&j);
	json_key(&j, "Labels");
	json_object_begin(&j);
	labels_json_members(&r->labels, &j);
	json_kv_str(&j, LABEL_PLATFORM, platform_str(&r->plat));
	json_object_end(&j);
	json_kv_bool(&j, "Tty", r->tty);
	json_kv_bool(&j, "OpenStdin", r->with_stdin);
	json_kv_bool(&j, "StdinOnce", r->with_stdin);
	json_kv_bool(&j, "AttachStdin", r->with_stdin);
	json_kv_bool(&j, "AttachStdout", true);
	json_kv_bool(&j, "AttachStderr", true);
	json_key(&j, "HostConfig");
	json_object_begin(&j);
	json_key(&j, "Mounts");
	json_array_begin(&j);
	mount(&j, "bind", r->root, r->root, true);
	mount(&j, "bind", r->store, r->cfg.cache_dir_abs, false);
	mount(&j, "bind", r->lookup.dir, RELAY_INNER_DIR, true);
	mount(&j, "volume", r->volume, r->home, false);
	json_array_end(&j);
	engine_json_hardening(&j);
	if (r->tty && r->rows) {
		/* The first size, before start: a resize can only follow
		 * once the container runs, too late for its first look. */
		json_key(&j, "ConsoleSize");
		json_array_begin(&j);
		json_uint(&j, r->rows);
		json_uint(&j, r->cols);
		json_array_end(&j);
	}
	json_kv_int(&j, "PidsLimit", RELAY_PIDS_LIMIT);
	if (r->cfg.platform_memory_mb) {
		json_kv_int(&j, "Memory", r->cfg.platform_memory_mb << 20);
		json_kv_int(&j, "MemorySwap", r->cfg.platform_memory_mb << 20);
	}
	if (!strcmp(r->cfg.platform_network.value, "none"))
		json_kv_str(&j, "NetworkMode", "none");
	json_object_end(&j);
	json_object_end(&j);
}

/* A word for a POSIX shell: as is when it is plain, else single-quoted. */
static void
shell_word(struct strbuf *sb, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789@%+=:,./_-") == strlen(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

static void
opt(struct strbuf *sb, const char *flag, const char *value)
{
	strbuf_addstr(sb, " \\\n    ");
	strbuf_addstr(sb, flag);
	if (value) {
		strbuf_addch(sb, ' ');
		shell_word(sb, value);
	}
}

int
relay_print_request(struct relay *r)
{
	struct strbuf out = STRBUF_INIT, v = STRBUF_INIT;
	size_t i;

	/* The request first, alone on its line: `head -n 1` is the body. */
	strbuf_add(&out, r->body.buf, r->body.len);
	strbuf_addstr(&out, "\n\n# the environment inside (the image "
	    "declaration's under the request's)\n");
	for (i = 0; i < r->env.n; i++)
		strbuf_addf(&out, "%s\t# %s\n", r->env.v[i], r->env_from.v[i]);

	strbuf_addstr(&out, "\n# a rendering as a docker run command: "
	    "magus sends the request above, it runs no CLI\n");
	strbuf_addstr(&out, "docker run --rm=false --init --cap-drop ALL "
	    "--security-opt no-new-privileges");
	strbuf_addf(&v, "%d", RELAY_PIDS_LIMIT);
	opt(&out, "--pids-limit", v.buf);
	if (r->cfg.platform_memory_mb) {
		strbuf_reset(&v);
		strbuf_addf(&v, "%ldm", r->cfg.platform_memory_mb);
		opt(&out, "--memory", v.buf);
		opt(&out, "--memory-swap", v.buf);
	}
	if (!strcmp(r->cfg.platform_network.value, "none"))
		opt(&out, "--network", "none");
	if (r->tty)
		opt(&out, "-t", NULL);
	if (r->with_stdin)
		opt(&out, "-i", NULL);
	strbuf_reset(&v);
	strbuf_addf(&v, "%u:%u", (unsigned)getuid(), (unsigned)getgid());
	opt(&out, "--user", v.buf);
	opt(&out, "--workdir", r->cwd);
	strbuf_reset(&v);
	strbuf_addf(&v, "type=bind,src=%s,dst=%s,readonly", r->root, r->root);
	opt(&out, "--mount", v.buf);
	strbuf_reset(&v);
	strbuf_addf(&v, "type=bind,src=%s,dst=%s", r->store,
	    r->cfg.cache_dir_abs);
	opt(&out, "--mount", v.buf);
	strbuf_reset(&v);
	strbuf_addf(&v, "type=bind,src=%s,dst=%s,readonly", r->lookup.dir,
	    RELAY_INNER_DIR);
	opt(&out, "--mount", v.buf);
	strbuf_reset(&v);
	strbuf_addf(&v, "type=volume,src=%s,dst=%s", r->volume, r->home);
	opt(&out, "--mount", v.buf);
	for (i = 0; i < r->env.n; i++)
		opt(&out, "--env", r->env.v[i]);
	strbuf_reset(&v);
	strbuf_addf(&v, "%s=%s", LABEL_PLATFORM, platform_str(&r->plat));
	opt(&out, "--label", v.buf);
	opt(&out, "--platform", platform_str(&r->plat));
	opt(&out, "--entrypoint", RELAY_INNER_MAGUS);
	strbuf_addstr(&out, " \\\n    ");
	shell_word(&out, r->image->ref);
	for (i = 0; i < r->inner.n; i++) {
		strbuf_addch(&out, ' ');
		shell_word(&out, r->inner.v[i]);
	}
	strbuf_addch(&out, '\n');

	if (fwrite(out.buf, 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		strbuf_release(&out);
		strbuf_release(&v);
		return 71;
	}
	strbuf_release(&out);
	strbuf_release(&v);
	return 0;
}
