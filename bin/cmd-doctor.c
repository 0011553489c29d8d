/*
 * magus doctor: what this host, this workspace and this configuration
 * amount to.  It reads files and asks the kernel; it never touches the
 * network or a container engine.
 */
#include "compat.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "diag.h"
#include "execpath.h"
#include "front.h"
#include "json.h"
#include "landlock.h"
#include "strbuf.h"

struct landlock_facts {
	int found;	/* ABI from the kernel, -1 when none */
	int err;	/* errno of the probe when none */
	int used;	/* the ABI magus uses */
	int limit;	/* MAGUS_LANDLOCK_ABI_MAX, -1 when unset */
	const char *bad_knob; /* a knob value that is not an ABI number */
	struct strbuf missing; /* as magus-sandbox-exec --print-policy says */
};

static void
probe(struct landlock_facts *ll)
{
	const char *knob = getenv("MAGUS_LANDLOCK_ABI_MAX");
	struct landlock_abi a;

	ll->bad_knob = landlock_abi_get(&a, knob) < 0 ? knob : NULL;
	ll->found = a.found;
	ll->err = a.err;
	ll->used = a.used;
	ll->limit = a.limit;
	strbuf_init(&ll->missing, 0);
	if (ll->used > 0)
		landlock_features_text(landlock_missing(ll->used,
		    LANDLOCK_FEAT_RIGHTS), &ll->missing);
}

/* What each sandbox mode would do on this host, one sentence each. */
static void
mode_outcome(const struct landlock_facts *ll, enum sandbox_mode m,
    struct strbuf *out)
{
	switch (m) {
	case SANDBOX_OFF:
		strbuf_addstr(out, "runs commands unconfined, environment "
		    "unchanged");
		break;
	case SANDBOX_BEST_EFFORT:
		if (ll->used < 1)
			strbuf_addstr(out, "no Landlock: environment allowlist "
			    "and exec check only (MGS2005)");
		else if (strcmp(ll->missing.buf, "nothing"))
			strbuf_addf(out, "Landlock ABI %d; not enforced: %s",
			    ll->used, ll->missing.buf);
		else
			strbuf_addf(out, "Landlock ABI %d, every right magus "
			    "knows enforced", ll->used);
		break;
	case SANDBOX_REQUIRED:
		if (ll->used >= MAGUS_LANDLOCK_ABI_REQUIRED)
			strbuf_addf(out, "runs confined at Landlock ABI %d%s",
			    ll->used, ll->used < 4 ? "; refuses --network "
			    "none (MGS2012: tcp needs ABI 4)" : "");
		else if (ll->used)
			strbuf_addf(out, "refuses to run (MGS2012): needs "
			    "Landlock ABI %d, uses ABI %d",
			    MAGUS_LANDLOCK_ABI_REQUIRED, ll->used);
		else
			strbuf_addf(out, "refuses to run (MGS2012): needs "
			    "Landlock ABI %d, has none",
			    MAGUS_LANDLOCK_ABI_REQUIRED);
		break;
	default:
		break;
	}
}

static const char *
file_state(const char *path, bool read)
{
	struct stat st;

	if (read)
		return "read";
	return path && stat(path, &st) == 0 ? "present" : "not present";
}

static void
doctor_text(struct front *f, const struct landlock_facts *ll)
{
	struct magus_config *c = &f->cfg;
	struct strbuf sb = STRBUF_INIT, o = STRBUF_INIT;
	enum sandbox_mode m;

	printf("magus %s\n", PACKAGE_VERSION);
	printf("exec path:      %s\n", exec_path());
	if (f->have_workspace)
		printf("workspace:      %s\n", f->root);
	else
		printf("workspace:      none (no magus.yaml at or above %s)\n",
		    f->root);
	printf("config files:   %s (%s)\n", c->workspace_file ?
	    c->workspace_file : "magus.yaml", c->workspace_file ? "read" :
	    "not present");
	if (c->user_file)
		printf("                %s (%s)\n", c->user_file,
		    file_state(c->user_file, c->user_file_read));
	if (ll->found > 0)
		printf("landlock:       ABI %d found, ABI %d used%s\n",
		    ll->found, ll->used, ll->limit >= 0 && ll->limit <
		    landlock_abi_used(ll->found) ? " (lowered by "
		    "MAGUS_LANDLOCK_ABI_MAX)" : ll->found > ll->used ?
		    " (the newest magus knows)" : "");
	else
		printf("landlock:       none (%s)\n  hint: %s\n",
		    strerror(ll->err), landlock_errno_hint(ll->err));
	if (ll->bad_knob)
		printf("  MAGUS_LANDLOCK_ABI_MAX='%s' is not an ABI number "
		    "from 0 to %d: magus-sandbox-exec refuses it\n",
		    ll->bad_knob, MAGUS_LANDLOCK_ABI_MAX);
	if (ll->used > 0)
		printf("  not enforced: %s\n", ll->missing.buf);
	printf("sandbox modes on this host:\n");
	for (m = SANDBOX_OFF; m <= SANDBOX_REQUIRED; m++) {
		strbuf_reset(&sb);
		mode_outcome(ll, m, &sb);
		printf("  %-12s %s\n", sandbox_mode_name(m), sb.buf);
	}
	origin_format(&c->sandbox.mode_from, &o);
	printf("sandbox.mode:   %s (%s)\n", sandbox_mode_name(c->sandbox.mode),
	    o.buf);
	strbuf_reset(&o);
	if (c->container_api.value) {
		origin_format(&c->container_api.from, &o);
		printf("container.api:  %s (%s)\n", c->container_api.value,
		    o.buf);
	} else {
		printf("container.api:  not set (the relay and the indexers "
		    "need it; set it in the user tier)\n");
	}
	printf("indexers (last runs, from status.json):\n");
	scip_report_text(f, true);
	strbuf_release(&sb);
	strbuf_release(&o);
}

static void
doctor_json(struct front *f, const struct landlock_facts *ll)
{
	struct magus_config *c = &f->cfg;
	struct strbuf sb = STRBUF_INIT, tmp = STRBUF_INIT;
	enum sandbox_mode m;
	struct json j;

	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_str(&j, "version", PACKAGE_VERSION);
	json_kv_str(&j, "exec_path", exec_path());
	json_key(&j, "workspace");
	if (f->have_workspace)
		json_str(&j, f->root);
	else
		json_null(&j);
	json_key(&j, "config_files");
	json_array_begin(&j);
	if (c->workspace_file)
		json_str(&j, c->workspace_file);
	if (c->user_file_read)
		json_str(&j, c->user_file);
	json_array_end(&j);
	json_key(&j, "landlock");
	json_object_begin(&j);
	json_kv_int(&j, "abi_found", ll->found > 0 ? ll->found : 0);
	json_kv_int(&j, "abi_used", ll->used);
	json_key(&j, "abi_limit");
	if (ll->limit >= 0)
		json_int(&j, ll->limit);
	else
		json_null(&j);
	if (ll->found < 1)
		json_kv_str(&j, "error", strerror(ll->err));
	json_kv_str(&j, "not_enforced", ll->missing.buf);
	json_object_end(&j);
	json_key(&j, "sandbox_modes");
	json_object_begin(&j);
	for (m = SANDBOX_OFF; m <= SANDBOX_REQUIRED; m++) {
		strbuf_reset(&tmp);
		mode_outcome(ll, m, &tmp);
		json_kv_str(&j, sandbox_mode_name(m), tmp.buf);
	}
	json_object_end(&j);
	json_kv_str(&j, "sandbox_mode", sandbox_mode_name(c->sandbox.mode));
	json_kv_str(&j, "container_api", c->container_api.value);
	json_key(&j, "indexers");
	scip_report_json(f, &j);
	json_object_end(&j);
	puts(sb.buf);
	strbuf_release(&sb);
	strbuf_release(&tmp);
}

int
cmd_doctor(struct front *f, int argc, char **argv)
{
	struct landlock_facts ll;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help")) {
			puts("usage: magus doctor");
			return 0;
		}
		if (argv[1][0] == '-')
			verb_bad_option("doctor", argv[1]);
		verb_usage_error("doctor", "takes no arguments");
	}
	probe(&ll);
	if (diag_json())
		doctor_json(f, &ll);
	else
		doctor_text(f, &ll);
	strbuf_release(&ll.missing);
	return 0;
}
