/*
 * magus explain [MGSnnnn]: a diagnostic's page from the one table.
 */
#include "compat.h"

#include "diag.h"
#include "front.h"
#include "json.h"
#include "strbuf.h"
#include "strutil.h"

static void
explain_json(const struct mgs_entry *e)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;
	char code[16];

	snprintf(code, sizeof(code), "MGS%04d", e->code);
	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_str(&j, "code", code);
	json_kv_int(&j, "status", e->status);
	json_kv_str(&j, "summary", e->summary);
	json_kv_str(&j, "explanation", e->explanation);
	json_kv_str(&j, "resolution", e->resolution);
	json_object_end(&j);
	puts(sb.buf);
	strbuf_release(&sb);
}

static void
explain_text(const struct mgs_entry *e)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "MGS%04d: %s\n\n", e->code, e->summary);
	if (e->status)
		strbuf_addf(&sb, "Exit status: %d\n\n", e->status);
	else
		strbuf_addstr(&sb, "Exit status: none (a notice; the run "
		    "goes on)\n\n");
	strbuf_addstr(&sb, "Why\n\n");
	wrap_text(&sb, e->explanation, 2, 76);
	strbuf_addstr(&sb, "\nResolution\n\n");
	wrap_text(&sb, e->resolution, 2, 76);
	fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

int
cmd_explain(struct front *f UNUSED, int argc, char **argv)
{
	const struct mgs_entry *e;
	size_t i;
	int code;

	if (argc > 2)
		verb_usage_error("explain", "takes one code");
	if (argc == 2 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--help")) {
			puts("usage: magus explain [MGSnnnn]");
			return 0;
		}
		verb_bad_option("explain", argv[1]);
	}
	if (argc < 2) {
		for (i = 0; i < mgs_table_len; i++) {
			e = &mgs_table[i];
			if (diag_json())
				explain_json(e);
			else
				printf("MGS%04d  %s\n", e->code, e->summary);
		}
		return 0;
	}
	code = mgs_parse(argv[1]);
	e = code < 0 ? NULL : mgs_lookup(code);
	if (!e) {
		diag(1011, "'magus explain' with no code lists them all",
		    "unknown diagnostic code '%s'", argv[1]);
		return 2;
	}
	if (diag_json())
		explain_json(e);
	else
		explain_text(e);
	return 0;
}
