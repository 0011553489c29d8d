/*
 * escape.h: the one protocol every attack program in tests/escape speaks.
 *
 * An attack does one thing and prints one line on stdout: "ok" when the
 * kernel let it through, else the name of the errno it got ("EACCES").
 * The exit status matches: 0 for "ok", 1 for a refusal.  A usage or setup
 * error (not the attack's own verdict) prints to stderr and exits 2, so a
 * test never mistakes a broken harness for a denial.
 *
 * The programs take no libmagus code on purpose: they play a hostile
 * dependency, and should look like one.
 */
#ifndef MAGUS_ESCAPE_H
#define MAGUS_ESCAPE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print the verdict of an attack whose result is `rc` (< 0 failed with
 * errno) and return the exit status to use. */
static inline int
verdict(long rc)
{
	const char *name;

	if (rc >= 0) {
		puts("ok");
		return 0;
	}
	name = strerrorname_np(errno);
	printf("%s\n", name ? name : "E?");
	return 1;
}

__attribute__((noreturn)) static inline void
esc_usage(const char *prog, const char *text)
{
	fprintf(stderr, "usage: %s %s\n", prog, text);
	exit(2);
}

__attribute__((noreturn)) static inline void
esc_setup_error(const char *prog, const char *what)
{
	fprintf(stderr, "%s: setup: %s: %s\n", prog, what, strerror(errno));
	exit(2);
}

/* A decimal argument, or exit 2. */
static inline long
esc_number(const char *prog, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "%s: not a number: '%s'\n", prog, s);
		exit(2);
	}
	return v;
}

#endif /* MAGUS_ESCAPE_H */
