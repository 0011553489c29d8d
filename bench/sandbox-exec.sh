#!/bin/sh
# What magus-sandbox-exec costs: /bin/true alone, /bin/true under
# `magus-sandbox-exec --mode required` (with --tmp, the exec path, and
# without, the forking path) and /bin/true under bubblewrap doing the
# comparable confinement, all in one hyperfine run; then the peak RSS of
# each with /usr/bin/time -v.
#
#   bench/sandbox-exec.sh [RUNS [ROUNDS]]
#
# Run it from a build tree (in-tree, or `../bench/sandbox-exec.sh` from an
# out-of-tree build directory), or point MAGUS_SANDBOX_EXEC at the
# program.  Installs hyperfine, bubblewrap and time when missing (Debian).
# hyperfine times one command after the other, so a machine whose load
# changes meanwhile favours whichever ran in the quiet part.  So the
# commands are timed in ROUNDS rounds (default 5) of RUNS runs each
# (default 300), in reverse order every other round, and each figure is
# the median over the rounds of that round's median; a ratio is the
# median of the rounds' ratios.  Prints the medians, the differences and
# the ratios against the targets (sandbox <= 1.6x bare /bin/true, <= 40%
# of bubblewrap); it never fails on a missed target, a benchmark only
# reports.
set -eu

runs=${1:-300}
rounds=${2:-5}
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
say "  $rounds rounds of $runs runs per command, after 50 warm-up runs"
say "  (hyperfine -N: no shell), every other round in reverse order"
say ""
say "  true:          $true"
say "  sandbox:       $sandbox"
say "  sandbox-fork:  $sandbox_fork"
say "  bwrap:         $bw"
say ""

# One round: every command, in the given order; the medians appended to
# $scratch/medians as "ROUND NAME SECONDS".
round() {
	r=$1
	shift
	hyperfine -N --style none --warmup 50 --runs "$runs" \
		--export-json "$scratch/h$r.json" "$@" >/dev/null
	# hyperfine's JSON: "command" and "median" each on a line of its own.
	awk -v r="$r" '
		/"command":/ { name = $0; sub(/.*"command": *"/, "", name);
			sub(/".*/, "", name) }
		/"median":/ { v = $0; sub(/.*"median": */, "", v);
			sub(/,.*/, "", v); print r, name, v }' \
		"$scratch/h$r.json" >>"$scratch/medians"
}
: >"$scratch/medians"
r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		round "$r" -n true "$true" -n sandbox "$sandbox" \
			-n sandbox-fork "$sandbox_fork" -n bwrap "$bw"
	else
		round "$r" -n bwrap "$bw" -n sandbox-fork "$sandbox_fork" \
			-n sandbox "$sandbox" -n true "$true"
	fi
	r=$((r + 1))
done

rss() {
	# shellcheck disable=SC2086 # the command is words
	/usr/bin/time -v $1 2>&1 >/dev/null |
		sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p'
}

# The per-round table, then the medians over the rounds.
awk -v rt="$(rss "$true")" -v rs="$(rss "$sandbox")" \
    -v rf="$(rss "$sandbox_fork")" -v rb="$(rss "$bw")" '
function ms(x) { return sprintf("%7.3f ms", x * 1000) }
function verdict(ok) { return ok ? "met" : "MISSED" }
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ m[$1, $2] = $3; if ($1 > n) n = $1 }
END {
	print "  round medians     true   sandbox  sandbox-fork     bwrap"
	for (r = 1; r <= n; r++) {
		printf "  %5d        %s %s %s %s\n", r, ms(m[r, "true"]),
		    ms(m[r, "sandbox"]), ms(m[r, "sandbox-fork"]), ms(m[r, "bwrap"])
		t[r] = m[r, "true"]; s[r] = m[r, "sandbox"]
		f[r] = m[r, "sandbox-fork"]; b[r] = m[r, "bwrap"]
		st[r] = s[r] / t[r]; sb[r] = s[r] / b[r]
		ft[r] = f[r] / t[r]; fb[r] = f[r] / b[r]
		sd[r] = s[r] - t[r]; fd[r] = f[r] - t[r]; bd[r] = b[r] - t[r]
	}
	T = median(t, n); S = median(s, n); F = median(f, n); B = median(b, n)
	print ""
	printf "  %-14s %s  %8s  %11s  %9s\n", "command", "median    ", "x true", "- true", "peak RSS"
	printf "  %-14s %s  %7.2fx  %11s  %6d KiB\n", "true", ms(T), 1, "", rt
	printf "  %-14s %s  %7.2fx  %+8.3f ms  %6d KiB\n", "sandbox", ms(S), median(st, n), median(sd, n) * 1000, rs
	printf "  %-14s %s  %7.2fx  %+8.3f ms  %6d KiB\n", "sandbox-fork", ms(F), median(ft, n), median(fd, n) * 1000, rf
	printf "  %-14s %s  %7.2fx  %+8.3f ms  %6d KiB\n", "bwrap", ms(B), B / T, median(bd, n) * 1000, rb
	print ""
	x = median(st, n); y = median(sb, n)
	printf "  sandbox / true:       %5.2fx  (target <= 1.60x: %s)\n", x, verdict(x <= 1.6)
	printf "  sandbox / bwrap:      %5.1f%%  (target <= 40%%: %s)\n", 100 * y, verdict(y <= 0.4)
	printf "  sandbox-fork / true:  %5.2fx\n", median(ft, n)
	printf "  sandbox-fork / bwrap: %5.1f%%\n", 100 * median(fb, n)
	print "  (medians over the rounds of each round'"'"'s median or ratio)"
}' "$scratch/medians"
say "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
