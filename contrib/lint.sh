#!/bin/sh
# make lint: static checks beyond the compiler's warnings.
#   contrib/lint.sh SRCDIR BUILDDIR
# Runs each tool that is installed and says which ones were not.
set -u
src=${1:-.}
build=${2:-.}
rc=0

have() { command -v "$1" >/dev/null 2>&1 || { echo "lint: $1 not installed, skipped"; return 1; }; }

if have shellcheck; then
	# shellcheck disable=SC2046
	shellcheck -S warning "$src"/.ci/run "$src"/contrib/*.sh "$src"/contrib/*/*.sh \
		$(find "$src/tests" "$src/bench" -name '*.sh' 2>/dev/null) || rc=1
fi
if have mandoc; then
	mandoc -T lint -W warning "$src"/man/*.[1-9] "$build"/man/*.[1-9] || rc=1
fi
if have cppcheck; then
	cppcheck -q --error-exitcode=1 --enable=warning,portability \
		--inline-suppr -I"$src/lib" -I"$build" \
		"$src/lib" "$src/bin" "$src/libexec" || rc=1
fi
if have clang-tidy; then
	# The cloexec checks: every fd magus opens is close-on-exec.
	find "$src/lib" "$src/bin" "$src/libexec" -name '*.c' >"$build/.lint-files"
	while read -r f; do
		# shellcheck disable=SC2046 # pkg-config's flags are words
		clang-tidy -quiet --checks='-*,android-cloexec-*,bugprone-*,-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier,-bugprone-assignment-in-if-condition,-bugprone-suspicious-string-compare,-bugprone-narrowing-conversions,-bugprone-implicit-widening-of-multiplication-result' \
			--warnings-as-errors='android-cloexec-*' "$f" -- \
			-I"$src/lib" -I"$src/libexec/egress" -I"$build" -D_GNU_SOURCE \
			-DMAGUS_PKGLIBEXECDIR='"/usr/libexec/magus"' \
			$(pkg-config --cflags libcurl yaml-0.1 2>/dev/null) 2>/dev/null || rc=1
	done <"$build/.lint-files"
	rm -f "$build/.lint-files"
fi
exit $rc
