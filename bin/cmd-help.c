/*
 * magus help [VERB]: the verbs, or one verb's usage.
 */
#include "compat.h"

#include "diag.h"
#include "front.h"
#include "strbuf.h"
#include "strutil.h"

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
		const char *names[64];
		const struct verb *t = verb_table();
		const char *near;
		size_t n = 0;

		for (; t->name && n < ARRAY_SIZE(names) - 1; t++)
			names[n++] = t->name;
		names[n] = NULL;
		near = closest_word(argv[1], names);
		if (near) {
			struct strbuf hint = STRBUF_INIT;

			strbuf_addf(&hint, "did you mean 'magus help %s'?",
			    near);
			diag(1001, hint.buf, "unknown verb '%s'", argv[1]);
			strbuf_release(&hint);
		} else {
			diag(1001, "run 'magus help' for the list of verbs",
			    "unknown verb '%s'", argv[1]);
		}
		return 2;
	}
	printf("usage: magus [GLOBAL FLAGS] %s\n\n  %s\n\nSee magus(1).\n",
	    v->synopsis, v->summary);
	return 0;
}
