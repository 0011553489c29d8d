/*
 * magus config list / magus env: each resolved value and its origin,
 * like git config --show-origin.
 */
#include "compat.h"

#include "config.h"
#include "diag.h"
#include "front.h"
#include "json.h"
#include "strbuf.h"

static void
emit(const char *key, const char *value, const struct origin *from,
    void *arg UNUSED)
{
	struct strbuf o = STRBUF_INIT, out = STRBUF_INIT;

	origin_format(from, &o);
	if (diag_json()) {
		struct json j;

		json_init(&j, &out);
		json_object_begin(&j);
		json_kv_str(&j, "key", key);
		json_kv_str(&j, "value", value);
		json_kv_str(&j, "origin", o.buf);
		json_object_end(&j);
		puts(out.buf);
	} else {
		printf("%s\t%s=%s\n", o.buf, key, value);
	}
	strbuf_release(&o);
	strbuf_release(&out);
}

int
cmd_config(struct front *f, int argc, char **argv)
{
	const char *verb = !strcmp(argv[0], "env") ? "env" : "config";
	int i = 1;

	if (!strcmp(verb, "config")) {
		if (argc < 2)
			verb_usage_error("config", "needs a subcommand: list");
		if (!strcmp(argv[1], "--help")) {
			puts("usage: magus config list");
			return 0;
		}
		if (argv[1][0] == '-')
			verb_bad_option("config", argv[1]);
		if (strcmp(argv[1], "list"))
			verb_usage_error("config", "unknown subcommand '%s' "
			    "(list)", argv[1]);
		i = 2;
	}
	if (i < argc) {
		if (!strcmp(argv[i], "--help")) {
			printf("usage: magus %s\n", !strcmp(verb, "env") ?
			    "env" : "config list");
			return 0;
		}
		if (argv[i][0] == '-')
			verb_bad_option(verb, argv[i]);
		verb_usage_error(verb, "takes no arguments");
	}
	config_each(&f->cfg, emit, NULL);
	return 0;
}
