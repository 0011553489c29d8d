/*
 * esc-env: the names in the environment, one a line, never a value.
 *
 * What a compromised build step would look through first.  Names only,
 * so a test's log never holds a secret even when the sandbox leaks one.
 */
#include "compat.h"

#include <stdio.h>

extern char **environ;

int
main(void)
{
	char **e;
	size_t n;

	for (e = environ; *e; e++) {
		n = strcspn(*e, "=");
		printf("%.*s\n", (int)n, *e);
	}
	return 0;
}
