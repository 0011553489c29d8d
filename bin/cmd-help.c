/*
 * magus help [VERB]: the verbs, or one verb's usage.
 */
#include "compat.h"

#include "diag.h"
#include "front.h"

int
cmd_help(struct front *f UNUSED, int argc, char **argv)
{
	const struct verb *v;

	if (argc > 2)
		verb_usage_error("help", "takes at most one verb");
	if (argc == 2 && argv[1][0] == '-' && strcmp(argv[1], "--help"))
		verb_bad_option("help", argv[1]);
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		print_front_usage(stdout);
		return 0;
	}
	v = verb_find(argv[1]);
	if (!v) {
		verb_unknown(argv[1], "magus help");
		return 2;
	}
	printf("usage: magus [GLOBAL FLAGS] %s\n\n  %s\n\nSee magus(1).\n",
	    v->synopsis, v->summary);
	return 0;
}
