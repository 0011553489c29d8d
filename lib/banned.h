/*
 * banned.h: functions that are too easy to misuse.  Including this header
 * turns each use into a compile error; use strbuf, xsnprintf-style bounded
 * calls, or the xalloc helpers instead.
 */
#ifndef MAGUS_BANNED_H
#define MAGUS_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_magus

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)
#undef asctime
#define asctime(x) BANNED(asctime)
#undef ctime
#define ctime(x) BANNED(ctime)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)

#endif /* MAGUS_BANNED_H */
