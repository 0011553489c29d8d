/*
 * magus scip PROJECT: run the project's declared indexer through
 * magus-scip.  magus scip status: what each project's last run left in
 * its status.json, read from disk; nothing is contacted, so a report is
 * there even when the engine is not.
 */
#include "compat.h"

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "config.h"
#include "diag.h"
#include "front.h"
#include "json.h"
#include "scip.h"
#include "strbuf.h"
#include "strvec.h"
#include "xalloc.h"

static const struct cfg_indexer *
find_indexer(const struct magus_config *cfg, const char *project)
{
	size_t i;

	for (i = 0; i < cfg->nindexers; i++)
		if (!strcmp(cfg->indexers[i].project, project))
			return &cfg->indexers[i];
	return NULL;
}

int
scip_run_project(struct front *f, const char *project)
{
	struct strvec av = STRVEC_INIT;
	const struct cfg_indexer *ix;
	const char *const *cmd;
	size_t i;
	int status;

	front_load_config(f);
	ix = find_indexer(&f->cfg, project);
	if (!ix) {
		struct strbuf list = STRBUF_INIT;

		for (i = 0; i < f->cfg.nindexers; i++)
			strbuf_addf(&list, "%s'%s'", i ? ", " : "declared: ",
			    f->cfg.indexers[i].project);
		diag(5006, list.len ? list.buf : "declare one under "
		    "'indexers' in magus.yaml", "no indexer is declared for "
		    "project '%s'", project);
		strbuf_release(&list);
		return 2;
	}
	strvec_push(&av, "magus-scip");
	strvec_pushf(&av, "--root=%s", f->root);
	strvec_pushf(&av, "--project=%s", ix->project);
	strvec_pushf(&av, "--image=%s", ix->image);
	strvec_pushf(&av, "--memory-mb=%ld", ix->memory_mb);
	strvec_pushf(&av, "--cpus=%g", ix->cpus);
	strvec_pushf(&av, "--pids=%ld", ix->pids);
	for (i = 0; i < ix->caches.n; i++)
		strvec_pushf(&av, "--cache=%s", ix->caches.v[i]);
	if (f->fetch)
		strvec_push(&av, "--fetch");
	strvec_push(&av, "--");
	if (ix->command.n) {
		strvec_pushv(&av, ix->command.v);
	} else {
		cmd = scip_tool_command(ix->tool);
		for (i = 0; cmd && cmd[i]; i++)
			strvec_push(&av, cmd[i]);
	}
	front_export_env(f);
	status = front_run_helper("scip", av.v);
	strvec_clear(&av);
	return status;
}

/* ---- the report ---------------------------------------------------------- */

struct project_report {
	const struct cfg_indexer *ix;
	struct scip_status st;
	int read;		/* scip_status_read's answer */
	struct strbuf err;
	bool index_present;
	char index_time[32];	/* the index file's mtime, UTC */
	bool changed;		/* the declaration differs from the run */
};

static void
gather(const struct magus_config *cfg, const struct cfg_indexer *ix,
    struct project_report *r)
{
	char *dir = scip_index_dir(cfg->cache_dir_abs, ix->project);
	char *idx = xasprintf("%s/%s", dir, SCIP_INDEX_FILE);
	struct stat st;
	struct tm tm;

	memset(r, 0, sizeof(*r));
	r->ix = ix;
	strbuf_init(&r->err, 0);
	r->read = scip_status_read(dir, &r->st, &r->err);
	if (stat(idx, &st) == 0 && S_ISREG(st.st_mode)) {
		r->index_present = true;
		if (gmtime_r(&st.st_mtime, &tm))
			strftime(r->index_time, sizeof(r->index_time),
			    "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	/* A run under other bounds or another image says nothing about
	 * the declaration as it stands now. */
	if (r->read == 1 && ((r->st.image && strcmp(r->st.image,
	    ix->image)) || (r->st.memory_mb >= 0 && r->st.memory_mb !=
	    ix->memory_mb) || (r->st.pids >= 0 && r->st.pids != ix->pids) ||
	    (r->st.cpus > 0 && r->st.cpus != ix->cpus)))
		r->changed = true;
	free(dir);
	free(idx);
}

static void
release_report(struct project_report *r)
{
	scip_status_release(&r->st);
	strbuf_release(&r->err);
}

static const char *
state_of(const struct project_report *r)
{
	if (r->read < 0)
		return "unreadable";
	if (r->read == 0)
		return "never run";
	return scip_state_name(r->st.state);
}

static void
text_report(const struct project_report *r, bool brief)
{
	const struct scip_status *s = &r->st;

	printf("%s%s: %s", brief ? "  " : "", r->ix->project, state_of(r));
	if (r->read == 1 && s->time)
		printf(" (%s)", s->time);
	putchar('\n');
	if (r->read < 0)
		printf("    %s\n", r->err.buf);
	if (r->read == 1 && s->reason && (!brief ||
	    s->state != SCIP_STATE_OK))
		printf("    reason: %s\n", s->reason);
	if (r->read == 1 && s->fix)
		printf("    fix: %s\n", s->fix);
	if (r->changed)
		printf("    the declaration changed since this run (image or "
		    "bounds): run 'magus scip %s'\n", r->ix->project);
	if (brief)
		return;
	if (r->read == 1 && s->image)
		printf("    image: %s\n", s->image);
	if (r->read == 1)
		printf("    bounds: memory_mb %ld, cpus %g, pids %ld\n",
		    s->memory_mb, s->cpus, s->pids);
	if (r->read == 1 && (s->peak_memory_bytes >= 0 || s->cpu_usec >= 0))
		printf("    measured: peak memory %.1f MiB, cpu %.2f s\n",
		    s->peak_memory_bytes >= 0 ? s->peak_memory_bytes /
		    1048576.0 : 0.0, s->cpu_usec >= 0 ? s->cpu_usec / 1e6 :
		    0.0);
	if (r->index_present && r->read == 1 && s->state == SCIP_STATE_OK)
		printf("    index: %s (%s)\n", SCIP_INDEX_FILE,
		    r->index_time);
	else if (r->index_present)
		printf("    index: an older %s is kept (%s)\n",
		    SCIP_INDEX_FILE, r->index_time);
	else
		printf("    index: none\n");
}

static void
json_report(struct json *j, const struct project_report *r)
{
	struct strbuf status = STRBUF_INIT;

	json_object_begin(j);
	json_kv_str(j, "project", r->ix->project);
	json_kv_str(j, "state", r->read == 1 ? scip_state_name(r->st.state) :
	    r->read == 0 ? "none" : "unreadable");
	json_key(j, "status");
	if (r->read == 1) {
		scip_status_json(&r->st, &status);
		strbuf_rtrim(&status);
		json_raw(j, status.buf);
	} else {
		json_null(j);
	}
	if (r->read < 0)
		json_kv_str(j, "error", r->err.buf);
	json_kv_bool(j, "index_present", r->index_present);
	if (r->index_present)
		json_kv_str(j, "index_time", r->index_time);
	json_kv_bool(j, "declaration_changed", r->changed);
	json_object_end(j);
	strbuf_release(&status);
}

void
scip_report_text(struct front *f, bool brief)
{
	const struct magus_config *cfg = &f->cfg;
	struct project_report r;
	size_t i;

	if (!cfg->nindexers) {
		printf("%sno indexers declared\n", brief ? "  " : "");
		return;
	}
	for (i = 0; i < cfg->nindexers; i++) {
		gather(cfg, &cfg->indexers[i], &r);
		text_report(&r, brief);
		release_report(&r);
	}
}

void
scip_report_json(struct front *f, struct json *j)
{
	const struct magus_config *cfg = &f->cfg;
	struct project_report r;
	size_t i;

	json_array_begin(j);
	for (i = 0; i < cfg->nindexers; i++) {
		gather(cfg, &cfg->indexers[i], &r);
		json_report(j, &r);
		release_report(&r);
	}
	json_array_end(j);
}

static const char usage_text[] =
    "usage: magus scip PROJECT\n"
    "       magus scip status\n";

int
cmd_scip(struct front *f, int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argv[1][0] == '-')
		verb_bad_option("scip", argv[1]);
	if (argc > 2)
		verb_usage_error("scip", "takes one project (or 'status')");
	front_load_config(f);
	if (!strcmp(argv[1], "status")) {
		if (diag_json()) {
			struct strbuf sb = STRBUF_INIT;
			struct json j;

			json_init(&j, &sb);
			scip_report_json(f, &j);
			puts(sb.buf);
			strbuf_release(&sb);
		} else {
			scip_report_text(f, false);
		}
		return 0;
	}
	return scip_run_project(f, argv[1]);
}
