/*
 * magus clean {--platform OS/ARCH | --all} [--dry-run]: the porcelain
 * over magus-clean.  The front has resolved the workspace, its cache dir
 * and the engine; this checks the verb's own flags and hands them to the
 * helper with --root.
 */
#include "compat.h"

#include "diag.h"
#include "front.h"
#include "strutil.h"
#include "strvec.h"

int
cmd_clean(struct front *f, int argc, char **argv)
{
	struct strvec av = STRVEC_INIT;
	const char *platform = NULL;
	bool all = false, dry_run = false;
	int i, status;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: magus [GLOBAL FLAGS] clean --platform "
			    "OS/ARCH [--dry-run]\n"
			    "       magus [GLOBAL FLAGS] clean --all "
			    "[--dry-run]\n\nSee magus-clean(1).\n");
			return 0;
		} else if (!strcmp(a, "--all")) {
			all = true;
		} else if (!strcmp(a, "--dry-run")) {
			dry_run = true;
		} else if (!strcmp(a, "--platform")) {
			if (i + 1 >= argc)
				verb_usage_error("clean", "option '--platform' "
				    "needs a value");
			platform = argv[++i];
		} else if (starts_with(a, "--platform=")) {
			platform = a + strlen("--platform=");
		} else if (a[0] == '-') {
			verb_bad_option("clean", a);
		} else {
			verb_usage_error("clean", "unexpected argument '%s'",
			    a);
		}
	}
	if (!!platform == all)
		verb_usage_error("clean", "name one of --platform OS/ARCH and "
		    "--all");
	front_export_env(f);
	strvec_push(&av, "magus-clean");
	strvec_pushf(&av, "--root=%s", f->root);
	if (platform)
		strvec_pushf(&av, "--platform=%s", platform);
	else
		strvec_push(&av, "--all");
	if (dry_run)
		strvec_push(&av, "--dry-run");
	status = front_run_helper("clean", av.v);
	strvec_clear(&av);
	return status;
}
