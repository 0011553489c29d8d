/*
 * print.c: --print-policy, the policy exactly as it would be applied.
 *
 * The rights printed for a rule are those the kernel will be given at
 * the ABI used (policy_applied), not those magus would like: on an older
 * kernel the lines say less, and "not enforced" says what is missing.
 */
#include "compat.h"

#include <sys/capability.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "sandbox.h"
#include "strbuf.h"

static const char *const tmp_pending = "(made at run time, removed after)";

/* The rights a rule shows: applied under Landlock; wanted without it,
 * where they drive the binding-level exec check. */
static uint64_t
shown(const struct policy *p, const struct grant *g)
{
	if (p->abi.used > 0)
		return policy_applied(p, g);
	return g->file ? g->access & LANDLOCK_RIGHTS_FILE : g->access;
}

/* The workspace's rights, which the private temp dir shares. */
static uint64_t
tmp_rights(const struct policy *p)
{
	size_t i;

	for (i = 0; i < p->ngrants; i++)
		if (!strcmp(p->grants[i].what, "workspace"))
			return shown(p, &p->grants[i]);
	return 0;
}

static bool
may_empty_bounding(void)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (caps) {
		cap_get_flag(caps, CAP_SETPCAP, CAP_PERMITTED, &v);
		cap_free(caps);
	}
	return v == CAP_SET;
}

/* Where --network proxy will make the namespace: directly when this
 * process may (CAP_SYS_ADMIN), else through a user namespace. */
static bool
may_unshare_net(void)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (caps) {
		cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v);
		cap_free(caps);
	}
	return v == CAP_SET;
}

static void
proxy_text(const struct policy *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	printf("%-14s%s\n", "network", may_unshare_net() ? "proxy: a new "
	    "network namespace with loopback only (made at run time)" :
	    "proxy: a new network namespace with loopback only, inside a "
	    "user namespace (made at run time)");
	printf("%-14s%s\n", "", "the way out: a forwarder on 127.0.0.1 "
	    "(port picked at run time) to magus-egress");
	if (p->handled_net)
		printf("%-14s%s\n", "", "tcp: connect only to the forwarder's "
		    "port, bind denied");
	else
		printf("%-14s%s\n", "", "tcp: the port rule is not enforced "
		    "(needs ABI 4); the namespace holds");
	for (i = 0; i < p->egress.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", p->egress.v[i]);
	printf("%-14s%s\n", "egress allow", sb.len ? sb.buf : "nothing: "
	    "every destination is refused");
	printf("%-14s%s\n", "egress log", p->egress_log ? p->egress_log :
	    "standard error");
	strbuf_release(&sb);
}

static void
landlock_line(const struct policy *p, struct strbuf *sb)
{
	if (p->abi.found < 1) {
		strbuf_addf(sb, "none (%s): binding-level checks only",
		    strerror(p->abi.err));
		return;
	}
	strbuf_addf(sb, "ABI %d found, ABI %d used", p->abi.found,
	    p->abi.used);
	if (p->abi.limit >= 0 && p->abi.limit < landlock_abi_used(p->abi.found))
		strbuf_addf(sb, " (lowered by MAGUS_LANDLOCK_ABI_MAX=%d)",
		    p->abi.limit);
	else if (p->abi.found > p->abi.used)
		strbuf_addstr(sb, " (the newest magus knows)");
	if (!p->abi.used)
		strbuf_addstr(sb, ": binding-level checks only");
}

static void
print_text(const struct policy *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	printf("%-14s%s", "mode", sandbox_mode_name(p->mode));
	if (p->floor != SANDBOX_UNSET)
		printf(" (floor from MAGUS_SANDBOX: %s)",
		    sandbox_mode_name(p->floor));
	putchar('\n');
	if (p->mode == SANDBOX_OFF) {
		printf("%-14s%s\n", "policy", "none: the command runs "
		    "unconfined with the environment unchanged");
		return;
	}
	printf("%-14s%s\n", "workspace", p->root);
	printf("%-14s%s\n", "private temp", p->tmp ? p->tmp : tmp_pending);
	landlock_line(p, &sb);
	printf("%-14s%s\n", "landlock", sb.buf);
	strbuf_reset(&sb);
	if (p->abi.used > 0) {
		landlock_features_text(p->not_enforced, &sb);
		printf("%-14s%s\n", "not enforced", sb.buf);
		strbuf_reset(&sb);
	}
	printf("rules\n");
	for (i = 0; i < p->ngrants; i++) {
		const struct grant *g = &p->grants[i];

		strbuf_reset(&sb);
		landlock_rights_summary(shown(p, g), &sb);
		printf("  %-34s %s (%s)\n", sb.buf, g->path, g->given ?
		    g->given : g->what);
	}
	if (!p->tmp) {
		strbuf_reset(&sb);
		landlock_rights_summary(tmp_rights(p), &sb);
		printf("  %-34s %s (%s)\n", sb.buf, tmp_pending,
		    "private temp");
	}
	for (i = 0; i < p->skipped.n; i++)
		printf("  %-34s %s\n", "not granted", p->skipped.v[i]);
	if (p->network_proxy)
		proxy_text(p);
	else if (!p->network_none)
		printf("%-14s%s\n", "network", "allow: tcp bind and connect "
		    "not restricted");
	else if (p->handled_net)
		printf("%-14s%s\n", "network", "none: tcp bind and connect "
		    "denied");
	else
		printf("%-14s%s\n", "network", "none asked, not enforced: "
		    "tcp needs ABI 4");
	printf("%-14s%s\n", "scopes", p->scopes ? "abstract unix sockets, "
	    "signals: confined to the sandbox" : "not enforced: scopes need "
	    "ABI 6");
	printf("%-14s%s\n", "log", p->restrict_flags ? "the command's "
	    "denials are audited (log_new_exec_on)" : "the kernel's default");
	printf("%-14s%s\n", "privileges", "no_new_privs set");
	printf("%-14s%s\n", "terminal", confine_terminal_filter(p) ?
	    "TIOCSTI and TIOCLINUX refused (seccomp)" : "none to type into: "
	    "no controlling terminal or terminal descriptor, and no device "
	    "ioctls granted (no seccomp filter needed)");
	printf("%-14s%s\n", "capabilities", may_empty_bounding() ?
	    "all dropped: bounding, permitted, effective, inheritable, "
	    "ambient" : "all dropped: permitted, effective, inheritable, "
	    "ambient (bounding kept: no CAP_SETPCAP to drop it)");
	if (p->exe_real)
		printf("%-14s%s\n", "command", p->exe_real);
	strbuf_reset(&sb);
	for (i = 0; i < p->passed.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", p->passed.v[i]);
	printf("%-14s%s\n", "env", sb.buf);
	strbuf_reset(&sb);
	for (i = 0; i < p->stripped.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", p->stripped.v[i]);
	printf("%-14s%s\n", "stripped", sb.len ? sb.buf : "nothing");
	if (p->withheld.n) {
		strbuf_reset(&sb);
		for (i = 0; i < p->withheld.n; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "",
			    p->withheld.v[i]);
		printf("%-14s%s (sockets)\n", "withheld", sb.buf);
	}
	strbuf_release(&sb);
}

static void
json_rights(struct json *j, uint64_t rights)
{
	uint64_t bit;

	json_array_begin(j);
	for (bit = 1; bit && bit <= LANDLOCK_ACCESS_FS_IOCTL_DEV; bit <<= 1)
		if (rights & bit)
			json_str(j, landlock_fs_right_name(bit));
	json_array_end(j);
}

static void
json_names(struct json *j, const char *key, const struct strvec *v)
{
	size_t i;

	json_key(j, key);
	json_array_begin(j);
	for (i = 0; i < v->n; i++)
		json_str(j, v->v[i]);
	json_array_end(j);
}

static void
print_json(const struct policy *p)
{
	struct strbuf sb = STRBUF_INIT, tmp = STRBUF_INIT;
	struct json j;
	unsigned f;
	size_t i;

	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_str(&j, "mode", sandbox_mode_name(p->mode));
	json_kv_str(&j, "floor", p->floor == SANDBOX_UNSET ? NULL :
	    sandbox_mode_name(p->floor));
	json_kv_str(&j, "root", p->root);
	if (p->mode == SANDBOX_OFF) {
		json_object_end(&j);
		puts(sb.buf);
		strbuf_release(&sb);
		return;
	}
	json_kv_str(&j, "tmp", p->tmp);
	json_key(&j, "landlock");
	json_object_begin(&j);
	json_kv_int(&j, "abi_found", p->abi.found > 0 ? p->abi.found : 0);
	json_kv_int(&j, "abi_used", p->abi.used);
	json_key(&j, "abi_limit");
	if (p->abi.limit >= 0)
		json_int(&j, p->abi.limit);
	else
		json_null(&j);
	json_kv_str(&j, "error", p->abi.found < 1 ? strerror(p->abi.err) :
	    NULL);
	json_key(&j, "restrict_flags");
	json_array_begin(&j);
	if (p->restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON)
		json_str(&j, "log_new_exec_on");
	json_array_end(&j);
	json_object_end(&j);
	json_key(&j, "not_enforced");
	json_array_begin(&j);
	for (f = 1; f <= LANDLOCK_FEAT_LOG; f <<= 1)
		if (p->abi.used > 0 && (p->not_enforced & f))
			json_str(&j, landlock_feature_name(f));
	json_array_end(&j);
	if (p->abi.used > 0)
		landlock_features_text(p->not_enforced, &tmp);
	else
		strbuf_addstr(&tmp, "everything: no Landlock");
	json_kv_str(&j, "not_enforced_text", tmp.buf);
	json_key(&j, "rules");
	json_array_begin(&j);
	for (i = 0; i < p->ngrants; i++) {
		const struct grant *g = &p->grants[i];

		json_object_begin(&j);
		json_key(&j, "access");
		json_rights(&j, shown(p, g));
		json_kv_str(&j, "path", g->path);
		json_kv_str(&j, "what", g->what);
		if (g->given)
			json_kv_str(&j, "given", g->given);
		json_object_end(&j);
	}
	if (!p->tmp) {
		json_object_begin(&j);
		json_key(&j, "access");
		json_rights(&j, tmp_rights(p));
		json_kv_str(&j, "path", NULL);
		json_kv_str(&j, "what", "private temp");
		json_object_end(&j);
	}
	json_array_end(&j);
	json_names(&j, "not_granted", &p->skipped);
	json_key(&j, "network");
	json_object_begin(&j);
	json_kv_str(&j, "mode", p->network_none ? "none" : p->network_proxy ?
	    "proxy" : "allow");
	json_key(&j, "denied");
	json_array_begin(&j);
	if (p->handled_net & LANDLOCK_ACCESS_NET_BIND_TCP)
		json_str(&j, "bind_tcp");
	/* Under proxy, every connect but the one to the forwarder. */
	if (p->handled_net & LANDLOCK_ACCESS_NET_CONNECT_TCP)
		json_str(&j, "connect_tcp");
	json_array_end(&j);
	if (p->network_proxy) {
		json_kv_str(&j, "namespace", may_unshare_net() ? "direct" :
		    "user");
		json_kv_bool(&j, "port_rule", p->handled_net != 0);
		json_names(&j, "allow", &p->egress);
		json_kv_str(&j, "log", p->egress_log);
	}
	json_object_end(&j);
	json_key(&j, "scopes");
	json_array_begin(&j);
	if (p->scopes & LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET)
		json_str(&j, "abstract_unix_socket");
	if (p->scopes & LANDLOCK_SCOPE_SIGNAL)
		json_str(&j, "signal");
	json_array_end(&j);
	json_kv_bool(&j, "no_new_privs", true);
	json_key(&j, "seccomp_denied");
	json_array_begin(&j);
	if (confine_terminal_filter(p)) {
		json_str(&j, "ioctl:TIOCSTI");
		json_str(&j, "ioctl:TIOCLINUX");
	}
	json_array_end(&j);
	json_kv_bool(&j, "bounding_set_dropped", may_empty_bounding());
	json_kv_str(&j, "command", p->exe_real);
	json_names(&j, "env", &p->passed);
	json_names(&j, "stripped", &p->stripped);
	json_names(&j, "withheld", &p->withheld);
	json_object_end(&j);
	puts(sb.buf);
	strbuf_release(&sb);
	strbuf_release(&tmp);
}

void
policy_print(const struct policy *p)
{
	if (diag_json())
		print_json(p);
	else
		print_text(p);
	fflush(stdout);
}
