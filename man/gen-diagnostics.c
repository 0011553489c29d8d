/*
 * gen-diagnostics: write magus-diagnostics(7) in mdoc from lib/mgs.def,
 * so the man page and `magus explain` can never disagree.
 */
#include "compat.h"

#include "diag.h"
#include "strbuf.h"

/*
 * Write text as roff input lines: words joined by spaces, a new line after
 * each sentence and before column 72, backslashes escaped, and a line that
 * would start with '.' or '\'' protected with \&.
 */
static void
roff_text(struct strbuf *out, const char *s, size_t len)
{
	const char *end = s + len, *w;
	size_t col = 0, wl, i;
	bool sentence_end = false;

	while (s < end) {
		while (s < end && (*s == ' ' || *s == '\n'))
			s++;
		if (s >= end)
			break;
		w = s;
		while (s < end && *s != ' ' && *s != '\n')
			s++;
		wl = (size_t)(s - w);
		if (col && (sentence_end || col + 1 + wl > 72)) {
			strbuf_addch(out, '\n');
			col = 0;
		} else if (col) {
			strbuf_addch(out, ' ');
			col++;
		}
		if (!col && (w[0] == '.' || w[0] == '\''))
			strbuf_addstr(out, "\\&");
		for (i = 0; i < wl; i++) {
			if (w[i] == '\\')
				strbuf_addstr(out, "\\e");
			else
				strbuf_addch(out, w[i]);
		}
		col += wl;
		sentence_end = strchr(".?!", w[wl - 1]) != NULL && wl > 1;
	}
}

/* Paragraphs separated by "\n\n"; "- " paragraphs become a bullet list. */
static void
roff_paragraphs(struct strbuf *out, const char *text)
{
	const char *p = text, *next;
	bool in_list = false;

	while (*p) {
		next = strstr(p, "\n\n");
		if (!next)
			next = p + strlen(p);
		if (p[0] == '-' && p[1] == ' ') {
			if (!in_list)
				strbuf_addstr(out, ".Bl -bullet -compact\n");
			in_list = true;
			strbuf_addstr(out, ".It\n");
			roff_text(out, p + 2, (size_t)(next - p - 2));
		} else {
			if (in_list)
				strbuf_addstr(out, ".El\n");
			in_list = false;
			strbuf_addstr(out, ".Pp\n");
			roff_text(out, p, (size_t)(next - p));
		}
		strbuf_addch(out, '\n');
		p = *next ? next + 2 : next;
	}
	if (in_list)
		strbuf_addstr(out, ".El\n");
}

int
main(void)
{
	struct strbuf out = STRBUF_INIT;
	size_t i;

	strbuf_addstr(&out,
	    ".\\\" Generated from lib/mgs.def by man/gen-diagnostics; do not edit.\n"
	    ".Dd November 29, 2026\n"
	    ".Dt MAGUS-DIAGNOSTICS 7\n"
	    ".Os\n"
	    ".Sh NAME\n"
	    ".Nm magus-diagnostics\n"
	    ".Nd every numbered diagnostic magus prints\n"
	    ".Sh DESCRIPTION\n"
	    "Every refusal and notice from a magus program carries a stable code,\n"
	    "printed on standard error as\n"
	    ".Bd -literal -offset indent\n"
	    "magus: [MGS2012] what happened, naming the thing involved\n"
	    "hint: what to try\n"
	    ".Ed\n"
	    ".Pp\n"
	    "or, under\n"
	    ".Fl o Cm json\n"
	    "or\n"
	    ".Ev MAGUS_OUTPUT Ns = Ns Cm json ,\n"
	    "as one JSON object per line with the keys\n"
	    ".Li code , program , message\n"
	    "and\n"
	    ".Li hint .\n"
	    "Standard output never carries diagnostics.\n"
	    ".Pp\n"
	    "The same table produces this page and\n"
	    ".Nm magus Cm explain Ar MGSnnnn .\n"
	    "A number, once used, is never given to another meaning.\n"
	    ".Sh CODES\n");
	for (i = 0; i < mgs_table_len; i++) {
		const struct mgs_entry *e = &mgs_table[i];

		strbuf_addf(&out, ".Ss MGS%04d: ", e->code);
		roff_text(&out, e->summary, strlen(e->summary));
		strbuf_addch(&out, '\n');
		if (e->status)
			strbuf_addf(&out, "Exit status %d.\n", e->status);
		else
			strbuf_addstr(&out, "A notice; it does not stop the run.\n");
		roff_paragraphs(&out, e->explanation);
		strbuf_addstr(&out, ".Pp\n.Em Resolution :\n");
		roff_paragraphs(&out, e->resolution);
	}
	strbuf_addstr(&out,
	    ".Sh SEE ALSO\n"
	    ".Xr magus 1 ,\n"
	    ".Xr magus.yaml 5\n");
	fputs(out.buf, stdout);
	strbuf_release(&out);
	return ferror(stdout) ? 1 : 0;
}
