#include "compat.h"

#include "execpath.h"
#include "xalloc.h"

#ifndef MAGUS_PKGLIBEXECDIR
#error "MAGUS_PKGLIBEXECDIR must be defined by the build"
#endif

static const char *flag_dir;

void
exec_path_set(const char *dir)
{
	flag_dir = dir;
}

const char *
exec_path(void)
{
	const char *env;

	if (flag_dir && *flag_dir)
		return flag_dir;
	env = getenv("MAGUS_EXEC_PATH");
	if (env && *env)
		return env;
	return MAGUS_PKGLIBEXECDIR;
}

char *
helper_path(const char *name)
{
	return xasprintf("%s/magus-%s", exec_path(), name);
}
