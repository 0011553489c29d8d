# MAGUS_CHECK_CFLAG(FLAG, ACTION-IF-OK)
# ------------------------------------
# Try compiling an empty program with FLAG added to CFLAGS, warnings fatal.
AC_DEFUN([MAGUS_CHECK_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  magus_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); $2], [AC_MSG_RESULT([no])])
  CFLAGS=$magus_save_CFLAGS
])

# MAGUS_CHECK_LDFLAG(FLAG, ACTION-IF-OK)
# -------------------------------------
AC_DEFUN([MAGUS_CHECK_LDFLAG], [
  AC_MSG_CHECKING([whether the linker accepts $1])
  magus_save_LDFLAGS=$LDFLAGS
  LDFLAGS="$LDFLAGS $1"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); $2], [AC_MSG_RESULT([no])])
  LDFLAGS=$magus_save_LDFLAGS
])
