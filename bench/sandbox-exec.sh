#!/bin/sh
# What magus-sandbox-exec costs: /bin/true alone, /bin/true under
# `magus-sandbox-exec --mode required` (with --tmp, the exec path, and
# without, the forking path) and /bin/true under bubblewrap doing the
# comparable confinement, all in one hyperfine run; then the peak RSS of
# each with /usr/bin/time -v.
#
#   bench/sandbox-exec.sh [RUNS]
#
# Run it from a build tree (in-tree, or `../bench/sandbox-exec.sh` from an
# out-of-tree build directory), or point MAGUS_SANDBOX_EXEC at the
# program.  Installs hyperfine, bubblewrap and time when missing (Debian).
# Prints the medians, the differences and the ratios against the targets
# (sandbox <= 1.6x bare /bin/true, <= 40% of bubblewrap); it never fails on
# a missed target, a benchmark only reports.
set -eu

runs=${1:-1000}
top=$(cd "$(dirname "$0")/.." && pwd)

# A plain environment, the same for every command: a variable the sandbox
# strips would otherwise cost it a diagnostic on stderr per run (-v is
# off, but MGS2006 is not) and measure the caller's shell setup.
if [ -z "${MAGUS_BENCH_CLEAN_ENV:-}" ]; then
	exec env -i MAGUS_BENCH_CLEAN_ENV=1 HOME="${HOME:-/}" LANG=C.UTF-8 \
	    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    ${MAGUS_SANDBOX_EXEC:+MAGUS_SANDBOX_EXEC="$MAGUS_SANDBOX_EXEC"} \
	    ${MAGUS_BUILD_DIR:+MAGUS_BUILD_DIR="$MAGUS_BUILD_DIR"} \
	    "$0" "$@"
fi

say() { printf '%s\n' "$*"; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# ---- the tools --------------------------------------------------------
need=""
command -v hyperfine >/dev/null 2>&1 || need="$need hyperfine"
command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
[ -x /usr/bin/time ] || need="$need time"
if [ -n "$need" ]; then
	say "bench: installing:$need"
	if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
	# shellcheck disable=SC2086 # word splitting is wanted
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y \
		--no-install-recommends $need >/dev/null ||
		die "cannot install$need"
fi

sbx=${MAGUS_SANDBOX_EXEC:-}
for d in ${MAGUS_BUILD_DIR:+"$MAGUS_BUILD_DIR"} "$PWD" "$top"; do
	[ -n "$sbx" ] && break
	[ -x "$d/exec-path/magus-sandbox-exec" ] &&
		sbx=$(cd "$d/exec-path" && pwd)/magus-sandbox-exec
done
[ -n "$sbx" ] || die "no magus-sandbox-exec: build first (./contrib/setup.sh), or set MAGUS_SANDBOX_EXEC"

# ---- the scene: a workspace, a private temp dir ----------------------
scratch=$(mktemp -d /tmp/magus-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ws=$scratch/ws
tmp=$scratch/tmp
mkdir "$ws"
mkdir -m 0700 "$tmp"
cd "$ws"

true=/bin/true
sandbox="$sbx --mode required --root $ws --tmp $tmp -- $true"
sandbox_fork="$sbx --mode required --root $ws -- $true"

# bubblewrap, as close to the same confinement as it can be said: the
# system trees read-only, the workspace and a temp dir writable, /proc,
# /dev, a fresh environment, every capability dropped, no new privileges
# (bwrap always sets them), a new session, killed with its parent, and
# every namespace new but the network (magus's default allows it, as
# --network none is not asked for here).
bw="bwrap --unshare-all --share-net --die-with-parent --new-session"
bw="$bw --cap-drop ALL --clearenv --setenv PATH $PATH --setenv TMPDIR $tmp"
for d in /usr /etc /bin /sbin /lib /lib32 /lib64 /libx32; do
	if [ -L "$d" ]; then
		bw="$bw --symlink $(readlink "$d") $d"
	elif [ -d "$d" ]; then
		bw="$bw --ro-bind $d $d"
	fi
done
bw="$bw --ro-bind /sys /sys --proc /proc --dev /dev"
bw="$bw --bind $ws $ws --bind $tmp $tmp --chdir $ws -- $true"

# Each must work before it is timed.
for c in "$true" "$sandbox" "$sandbox_fork" "$bw"; do
	# shellcheck disable=SC2086 # the command is words
	$c || die "does not run: $c"
done

abi=$("$sbx" --mode required --root "$ws" --print-policy 2>/dev/null |
	sed -n 's/^landlock  *//p' | head -n 1)
say "bench: magus-sandbox-exec against /bin/true and bubblewrap"
say "  kernel $(uname -r), Landlock: ${abi:-?}, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
say "  $(hyperfine --version), bubblewrap $(bwrap --version | sed 's/^bubblewrap //')"
say "  $runs runs each after 100 warm-up runs (hyperfine -N: no shell)"
say ""
say "  true:          $true"
say "  sandbox:       $sandbox"
say "  sandbox-fork:  $sandbox_fork"
say "  bwrap:         $bw"
say ""

hyperfine -N --style basic --warmup 100 --runs "$runs" \
	--export-json "$scratch/h.json" \
	-n true "$true" -n sandbox "$sandbox" \
	-n sandbox-fork "$sandbox_fork" -n bwrap "$bw" >"$scratch/h.txt"

# hyperfine's JSON holds one result per command, each with "command"
# and "median" on lines of their own, in the order given.
median() {
	awk -v want="$1" '
		/"command":/ { name = $0; sub(/.*"command": *"/, "", name);
			sub(/".*/, "", name) }
		/"median":/ && name == want { v = $0; sub(/.*"median": */, "", v);
			sub(/,.*/, "", v); print v; exit }' "$scratch/h.json"
}
t_true=$(median true)
t_sbx=$(median sandbox)
t_fork=$(median sandbox-fork)
t_bw=$(median bwrap)

rss() {
	# shellcheck disable=SC2086 # the command is words
	/usr/bin/time -v $1 2>&1 >/dev/null |
		sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p'
}

awk -v t="$t_true" -v s="$t_sbx" -v f="$t_fork" -v b="$t_bw" \
    -v rt="$(rss "$true")" -v rs="$(rss "$sandbox")" \
    -v rf="$(rss "$sandbox_fork")" -v rb="$(rss "$bw")" '
function ms(x) { return sprintf("%7.3f ms", x * 1000) }
function verdict(ok) { return ok ? "met" : "MISSED" }
BEGIN {
	printf "  %-14s %s  %8s  %11s  %9s\n", "command", "median    ", "x true", "- true", "peak RSS"
	printf "  %-14s %s  %7.2fx  %11s  %6d KiB\n", "true", ms(t), 1, "", rt
	printf "  %-14s %s  %7.2fx  %+8.3f ms  %6d KiB\n", "sandbox", ms(s), s / t, (s - t) * 1000, rs
	printf "  %-14s %s  %7.2fx  %+8.3f ms  %6d KiB\n", "sandbox-fork", ms(f), f / t, (f - t) * 1000, rf
	printf "  %-14s %s  %7.2fx  %+8.3f ms  %6d KiB\n", "bwrap", ms(b), b / t, (b - t) * 1000, rb
	print ""
	printf "  sandbox / true:       %5.2fx  (target <= 1.60x: %s)\n", s / t, verdict(s / t <= 1.6)
	printf "  sandbox / bwrap:      %5.1f%%  (target <= 40%%: %s)\n", 100 * s / b, verdict(s / b <= 0.4)
	printf "  sandbox-fork / true:  %5.2fx\n", f / t
	printf "  sandbox-fork / bwrap: %5.1f%%\n", 100 * f / b
}'
say ""
say "hyperfine's own summary:"
sed 's/^/  /' "$scratch/h.txt"
