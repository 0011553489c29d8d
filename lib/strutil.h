/*
 * strutil.h: small string and path helpers with no policy.
 */
#ifndef MAGUS_STRUTIL_H
#define MAGUS_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>

bool starts_with(const char *s, const char *prefix);
bool ends_with(const char *s, const char *suffix);

/* Edit distance between a and b (insertions, deletions, substitutions,
 * and transpositions of neighbours), capped at 100. */
unsigned edit_distance(const char *a, const char *b);
/* The candidate closest to `word` when it is close enough to be a likely
 * typo, else NULL.  `candidates` ends with NULL. */
const char *closest_word(const char *word, const char *const *candidates);

/*
 * Match the option `name` at argv[*i]: `--name VALUE`, `--name=VALUE`,
 * or `-xVALUE` when name is a short `-x`.  1 with *value set and *i moved
 * past what it used; 0 with *value NULL when argv[*i] is something else;
 * -1 when it is the option but the value is missing (it was last).
 */
int option_value(int argc, char **argv, int *i, const char *name,
    const char **value);

/* A newly allocated "dir/name" (no doubled slash). */
char *path_join(const char *dir, const char *name);
/*
 * NAME as execvp would find it on `path` (a PATH value; NULL or empty:
 * /usr/local/bin:/usr/bin:/bin), as a new string: the first regular,
 * executable file; an empty entry is the current directory.  A NAME with
 * a slash is returned as it is.  NULL with errno ENOENT, or EACCES when
 * only files that cannot be executed were found.
 */
char *path_find_program(const char *path, const char *name);
/* Expand a leading "~/" (or a lone "~") with $HOME; a copy otherwise. */
char *expand_home(const char *path);
/* Make `path` absolute against the current directory, without resolving
 * symlinks; "." and ".." components are folded lexically. */
char *path_absolute(const char *path);
/* True when `path` equals `dir` or lies beneath it (lexically). */
bool path_is_under(const char *path, const char *dir);

/*
 * Copy the `n` bytes at `s` into `dst` of `size` (> 0) bytes as a string,
 * cut to fit: for fixed fields filled from wire data that is not
 * NUL-terminated and whose excess is of no use.
 */
void copy_truncated(char *dst, size_t size, const void *s, size_t n);

/* Parse a whole decimal integer in [min, max]; false when s is not one. */
bool parse_long(const char *s, long min, long max, long *out);
/* Parse a whole decimal number (no exponent, no hex) > 0. */
bool parse_positive_double(const char *s, double *out);

/*
 * Append `text` to `out` wrapped at `width` columns, each line indented by
 * `indent` spaces.  "\n\n" in text starts a new paragraph (a blank line);
 * a paragraph starting with "- " is a list item, its continuation lines
 * indented two more.
 */
struct strbuf;
void wrap_text(struct strbuf *out, const char *text, unsigned indent,
    unsigned width);

#endif /* MAGUS_STRUTIL_H */
