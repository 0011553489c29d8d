/*
 * config-words.c: the sandbox words config.h defines that programs use
 * without reading a configuration file.  They live apart from config.c so
 * that magus-sandbox-exec, which takes its policy through argv and never
 * parses YAML, links none of libyaml.
 */
#include "compat.h"

#include <ctype.h>

#include "config.h"

enum sandbox_mode
sandbox_mode_parse(const char *s)
{
	if (!strcmp(s, "off"))
		return SANDBOX_OFF;
	if (!strcmp(s, "best-effort"))
		return SANDBOX_BEST_EFFORT;
	if (!strcmp(s, "required"))
		return SANDBOX_REQUIRED;
	return SANDBOX_UNSET;
}

const char *
sandbox_mode_name(enum sandbox_mode m)
{
	switch (m) {
	case SANDBOX_OFF:
		return "off";
	case SANDBOX_BEST_EFFORT:
		return "best-effort";
	case SANDBOX_REQUIRED:
		return "required";
	default:
		return "unset";
	}
}

const char *
passthrough_pattern_error(const char *p)
{
	size_t n = strlen(p), i;

	if (!n)
		return "an empty pattern";
	if (p[n - 1] == '*') {
		if (n - 1 < 3)
			return "a prefix must be at least three characters";
		if (p[n - 2] != '_')
			return "a prefix must end in '_' before the '*'";
		n--;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (!(isalnum(c) || c == '_') || (i == 0 && isdigit(c)))
			return "a variable name has only letters, digits and '_'";
	}
	return NULL;
}

bool
allow_mode_valid(const char *m)
{
	return !strcmp(m, "ro") || !strcmp(m, "rw") || !strcmp(m, "rx") ||
	    !strcmp(m, "rwx");
}

