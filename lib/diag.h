/*
 * diag.h: magus's numbered diagnostics.
 *
 * Every MGS code lives once, in mgs.def: its number, the exit status it
 * stands for, a one-line summary, the explanation and the resolution.
 * `magus explain`, magus-diagnostics(7) and the tests all read that table.
 *
 * A diagnostic is one line on stderr,
 *
 *	magus-relay: [MGS3002] cannot connect to '/run/x.sock': Connection refused
 *
 * optionally followed by "hint: ...".  Under `-o json` (or
 * MAGUS_OUTPUT=json) it is one JSON object per line instead:
 *
 *	{"code":"MGS3002","message":"...","hint":"..."}
 *
 * stdout is never written by this module.
 */
#ifndef MAGUS_DIAG_H
#define MAGUS_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct mgs_entry {
	int code;
	int status;		/* the exit status this code means; 0: not fatal */
	const char *summary;	/* one line, lowercase, no full stop */
	const char *explanation;
	const char *resolution;
};

extern const struct mgs_entry mgs_table[];
extern const size_t mgs_table_len;

/* The entry for `code`, or NULL when no such code exists. */
const struct mgs_entry *mgs_lookup(int code);
/* Parse "MGS2012", "mgs2012" or "2012"; -1 when malformed. */
int mgs_parse(const char *s);

/*
 * Set the program name used as the prefix (the basename of argv0) and read
 * MAGUS_OUTPUT for the output mode.  Call once at start.
 */
void diag_init(const char *argv0);
const char *diag_progname(void);
void diag_set_json(bool on);
bool diag_json(void);
/* Verbosity (-v count); diag_verbose() tells whether -v was given. */
void diag_set_verbose(int level);
int diag_verbose(void);

/* Print a diagnostic for `code` with an optional hint (may be NULL). */
void diag(int code, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vdiag(int code, const char *hint, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Print the diagnostic and exit with the code's status from the table. */
void die_mgs(int code, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* An error with no MGS code ("prog: message"), e.g. an internal failure. */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* error_msg and exit with `status`. */
void die_status(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* A warning line ("prog: warning: message"). */
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line only under -v ("prog: message"). */
void verbose_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* MAGUS_DIAG_H */
