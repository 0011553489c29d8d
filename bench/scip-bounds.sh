#!/bin/bash
# bench/scip-bounds.sh [-C WORKSPACE] [BUILD_DIR]: measure each declared
# indexer over its project and propose the memory_mb to declare.
#
# Each declared indexer runs ROUNDS times (default 3) through
# `magus scip PROJECT`, as a user would run it.  magus-scip reads the
# container's own cgroup while the indexer runs (memory.max_usage_in_bytes
# and cpuacct.usage on cgroup v1, memory.peak and cpu.stat on v2), one
# last time when the indexer's output ends, which is before the engine
# removes the cgroup (podman removes it at exit, before the wait even
# answers, so reading after the run finds nothing), and records the
# figures in status.json; this script collects them.  The proposal is
# the largest peak of all rounds times HEADROOM (default 1.5), rounded
# up to a multiple of 16 MiB.
#
# Without -C it builds a workspace of three fake projects of different
# sizes (tiny: 10 files of 1 KiB; medium: 200 of 16 KiB; large: 400 of
# 128 KiB) indexed by tests/scip/fake-indexer, which holds every file in
# memory, so its peak grows with the project.  It stays 200 ms after
# writing its index (--linger): a run of a few milliseconds ends before
# its cgroup can be found, where a real indexer runs for seconds.  The
# same indexer run on
# the host under /usr/bin/time -v is the baseline its peak is compared
# with (a container's peak counts the page cache it touched, a host RSS
# does not).  With -C it runs the workspace's own declarations, which
# replaces their indexes as `magus scip` does; a run killed at its
# declared bound is reported as such, and its figure is only a floor.
#
# The engine: MAGUS_CONTAINER_API (or MAGUS_TEST_ENGINE), else a private
# one from tests/engine/start-engine.sh, stopped at the end.  Run from a
# build tree after `make check` (or make tests/scip/fake-indexer
# tests/engine/engine-cli).
set -eu

ws_arg=
if [ "${1:-}" = -C ]; then
	ws_arg=$2
	shift 2
fi
build=$(cd "${1:-${MAGUS_BUILD_DIR:-$(pwd)}}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
headroom=${HEADROOM:-1.5}
magus=$build/bin-wrappers/magus
for f in "$magus" "$build/tests/scip/fake-indexer" \
	"$build/tests/engine/engine-cli" "$build/exec-path/magus-scip"; do
	[ -x "$f" ] || { echo "scip-bounds: no $f; build the tree and make check first" >&2; exit 2; }
done

export MAGUS_BUILD_DIR=$build MAGUS_SRC_DIR=$src
export MAGUS_EXEC_PATH=$build/exec-path
# shellcheck source=../tests/lib/engine.bash
. "$src/tests/lib/engine.bash"
# shellcheck source=../tests/lib/scip.bash
. "$src/tests/lib/scip.bash"

tmp=$(mktemp -d /tmp/magus-scip-bounds.XXXXXX)
: "${MAGUS_TEST_ENGINE:=${MAGUS_CONTAINER_API:-}}"
export MAGUS_TEST_ENGINE
cleanup() {
	engine_down 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
engine_up
[ -z "${ENGINE_SKIP:-}${ENGINE_BROKEN:-}" ] ||
	{ echo "scip-bounds: no engine: $ENGINE_SKIP$ENGINE_BROKEN" >&2; exit 1; }
export MAGUS_CONTAINER_API=$ENGINE_URL

# ---- the workspace --------------------------------------------------------
if [ -n "$ws_arg" ]; then
	ws=$(cd "$ws_arg" && pwd)
else
	scip_image_up
	[ -n "$SCIP_IMAGE" ] || { echo "scip-bounds: $ENGINE_BROKEN" >&2; exit 1; }
	ws=$tmp/ws
	mkdir -p "$ws"
	make_project() {	# NAME FILES KIB
		local i block
		mkdir -p "$ws/$1"
		printf -v block '%*s' "$(($3 * 1024))" ''
		for ((i = 1; i <= $2; i++)); do
			printf '%s' "$block" >"$ws/$1/f$i.txt"
		done
	}
	make_project tiny 10 1
	make_project medium 200 16
	make_project large 400 128
	{
		echo "indexers:"
		for p in tiny medium large; do
			cat <<-EOF
			  - project: $p
			    tool: fake-indexer
			    image: "$SCIP_IMAGE"
			    memory_mb: 512
			    cpus: 1
			    pids: 64
			    command: ["/fake-indexer", "--output", "{output}", "--linger", "200", "{project}"]
			EOF
		done
	} >"$ws/magus.yaml"
fi

# The declared projects and their tools and bounds, from the front.
"$magus" -C "$ws" config list |
	sed -n 's/^[^	]*	indexers\.\([^=]*\)=tool=\([^ ]*\) .*memory_mb=\([0-9]*\).*/\1 \2 \3/p' \
	>"$tmp/decls"
[ -s "$tmp/decls" ] || { echo "scip-bounds: no indexers declared in $ws/magus.yaml" >&2; exit 2; }
cache_dir=$("$magus" -C "$ws" config list | sed -n 's/^[^	]*	cache\.dir=//p')
case $cache_dir in
/*) ;;
*) cache_dir=$ws/$cache_dir ;;
esac

echo "scip-bounds: workspace $ws, engine $ENGINE_URL, $rounds rounds, headroom x$headroom"
echo "command: magus -C $ws scip PROJECT (each round), peak and CPU from status.json"
echo
printf '%-12s %-14s %5s  %-11s %9s %8s %8s\n' project tool round state \
	'peak MiB' 'cpu s' 'wall s'

# ---- the rounds --------------------------------------------------------------
: >"$tmp/results"
while read -r project tool declared; do
	for ((r = 1; r <= rounds; r++)); do
		t0=$(date +%s.%N)
		"$magus" -C "$ws" scip "$project" >"$tmp/out" 2>"$tmp/err" || true
		t1=$(date +%s.%N)
		status=$cache_dir/index/$project/status.json
		[ "$project" = . ] && status=$cache_dir/index/status.json
		state=$(jq -r .state "$status")
		peak=$(jq -r '.measured.peak_memory_bytes // -1' "$status")
		cpu=$(jq -r '.measured.cpu_usec // -1' "$status")
		wall=$(echo "$t1 - $t0" | bc -l)
		printf '%-12s %-14s %5d  %-11s %9s %8s %8.2f\n' "$project" "$tool" \
			"$r" "$state" \
			"$([ "$peak" -ge 0 ] && echo "scale=1; $peak / 1048576" | bc -l || echo '-')" \
			"$([ "$cpu" -ge 0 ] && echo "scale=2; $cpu / 1000000" | bc -l || echo '-')" \
			"$wall"
		echo "$project $tool $declared $state $peak $cpu $wall" >>"$tmp/results"
		[ "$state" != failed ] || sed 's/^/    /' "$tmp/err" | tail -n 3
	done
done <"$tmp/decls"

# ---- the baseline: the fake indexer on the host --------------------------------
if [ -z "$ws_arg" ]; then
	echo
	echo "baseline: the same indexer on the host, /usr/bin/time -v, max RSS"
	printf '%-12s %12s %12s %8s\n' project 'host MiB' 'cgroup MiB' ratio
	for p in tiny medium large; do
		/usr/bin/time -v "$build/tests/scip/fake-indexer" --output "$tmp/host.scip" \
			"$ws/$p" >/dev/null 2>"$tmp/time"
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
		cg=$(awk -v p="$p" '$1 == p && $5 > m { m = $5 } END { print m + 0 }' "$tmp/results")
		printf '%-12s %12.1f %12.1f %8.2f\n' "$p" "$(echo "$rss / 1024" | bc -l)" \
			"$(echo "$cg / 1048576" | bc -l)" \
			"$(echo "$cg / ($rss * 1024)" | bc -l)"
	done
fi

# ---- the proposal ----------------------------------------------------------------
echo
echo "proposal: memory_mb = largest peak x $headroom, rounded up to 16 MiB"
printf '%-12s %-14s %14s %12s %10s  %s\n' project tool 'largest peak' 'median cpu' declared proposed
overall=0
while read -r project tool declared; do
	peak=$(awk -v p="$project" '$1 == p && $5 > m { m = $5 } END { print m + 0 }' "$tmp/results")
	cpu=$(awk -v p="$project" '$1 == p && $6 >= 0 { print $6 }' "$tmp/results" |
		sort -n | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : -1 }')
	ooms=$(awk -v p="$project" '$1 == p && $4 == "oom"' "$tmp/results" | wc -l)
	if [ "$peak" -le 0 ]; then
		printf '%-12s %-14s %14s %12s %10s  %s\n' "$project" "$tool" - - \
			"$declared" "no measurement (the cgroup was not readable here)"
		continue
	fi
	mb=$(echo "$peak * $headroom / 1048576" | bc -l)
	proposed=$(( ( $(printf '%.0f' "$(echo "$mb + 0.999999" | bc -l)") + 15) / 16 * 16 ))
	[ "$proposed" -ge 16 ] || proposed=16
	[ "$peak" -le "$overall" ] || overall=$peak
	note=
	[ "$ooms" -eq 0 ] || note=" (killed at its bound $ooms time(s): the peak is a floor; raise memory_mb and run again)"
	printf '%-12s %-14s %10.1f MiB %10.2f s %10s  %s%s\n' "$project" "$tool" \
		"$(echo "$peak / 1048576" | bc -l)" "$(echo "$cpu / 1000000" | bc -l)" \
		"$declared" "$proposed" "$note"
done <"$tmp/decls"
if [ "$overall" -gt 0 ]; then
	printf 'largest peak of all: %.1f MiB -> memory_mb: %d for an indexer declared for all of them\n' \
		"$(echo "$overall / 1048576" | bc -l)" \
		"$(( ( $(printf '%.0f' "$(echo "$overall * $headroom / 1048576 + 0.999999" | bc -l)") + 15) / 16 * 16 ))"
fi
