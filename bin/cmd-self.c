/*
 * magus self fetch OS/ARCH[/VARIANT]: the porcelain of magus-self-fetch.
 * It hands the helper the release index and public key the front
 * resolved (self.index / MAGUS_RELEASE_INDEX / the URL compiled in;
 * self.pubkey / MAGUS_RELEASE_PUBKEY), as arguments, so the helper never
 * reads the configuration itself.
 */
#include "compat.h"

#include "config.h"
#include "diag.h"
#include "front.h"
#include "strvec.h"

#define SELF_USAGE "usage: magus self fetch OS/ARCH[/VARIANT]\n"

int
cmd_self(struct front *f, int argc, char **argv)
{
	struct strvec av = STRVEC_INIT;
	int status;

	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		fputs(SELF_USAGE, stdout);
		return 0;
	}
	if (argc < 2)
		verb_usage_error("self", "needs a subcommand: fetch");
	if (argv[1][0] == '-')
		verb_bad_option("self", argv[1]);
	if (strcmp(argv[1], "fetch"))
		verb_usage_error("self", "unknown subcommand '%s' (fetch)",
		    argv[1]);
	if (argc >= 3 && !strcmp(argv[2], "--help")) {
		fputs(SELF_USAGE, stdout);
		return 0;
	}
	if (argc >= 3 && argv[2][0] == '-')
		verb_bad_option("self fetch", argv[2]);
	if (argc != 3)
		verb_usage_error("self", "fetch takes one platform, OS/ARCH");

	front_export_env(f);
	strvec_push(&av, "magus-self-fetch");
	strvec_push(&av, "--index");
	strvec_push(&av, f->cfg.self_index.value);
	if (f->cfg.self_pubkey.value) {
		strvec_push(&av, "--pubkey");
		strvec_push(&av, f->cfg.self_pubkey.value);
	}
	strvec_push(&av, "--");
	strvec_push(&av, argv[2]);
	status = front_run_helper("self-fetch", av.v);
	strvec_clear(&av);
	return status;
}
