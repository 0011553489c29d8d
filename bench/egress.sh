#!/bin/sh
# bench/egress.sh: magus-egress against a direct connection, in one run.
#
#   bench/egress.sh [BUILD_DIR]
#
# Starts tests/egress/egress-origin on loopback and magus-egress in
# front of it, then measures, alternating direct and proxied runs so
# both see the same machine:
#
#   throughput   curl downloading SIZE bytes (default 1 GiB, served from
#                memory) direct, through the proxy as plain HTTP, and
#                through a CONNECT tunnel (curl --proxytunnel); the median
#                of ROUNDS runs each (default 5); the proxy's CPU per
#                GiB, the whole machine's CPU per GiB for each kind, and
#                from those the ratio a download bound by CPU could reach
#   setup        egress-client making CONNS connections one after another
#                (default 2000), each a complete small request; the median
#                time per connection direct, through a CONNECT tunnel and
#                forwarded, and what the proxy adds
#
#   paced        the same three downloads with curl --limit-rate at each
#                rate of PACE (default 125M 1250M: 1 and 10 Gbit/s) and
#                PACED_SIZE bytes (default 256 MiB): a download as fast as
#                a real link, where the question is whether the proxy
#                keeps up rather than how much CPU it takes
#
# Targets (issue 8): throughput at least 90% of direct, setup under 1 ms
# added.  SIZE, ROUNDS, CONNS, PACE and PACED_SIZE may be set in the
# environment.
set -eu

build=${1:-.}
[ -x "$build/libexec/egress/magus-egress" ] ||
	build=$(cd "$(dirname "$0")/.." && pwd)/_build
egress="$build/libexec/egress/magus-egress"
origin="$build/tests/egress/egress-origin"
client="$build/tests/egress/egress-client"
for p in "$egress" "$origin" "$client"; do
	[ -x "$p" ] || { echo "bench: $p not built (make check builds it)" >&2; exit 2; }
done
command -v curl >/dev/null || { echo "bench: curl is needed" >&2; exit 2; }

SIZE=${SIZE:-1073741824}
ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-2000}
PACE=${PACE:-125M 1250M}
PACED_SIZE=${PACED_SIZE:-268435456}

tmp=$(mktemp -d)
opid='' epid=''
cleanup() {
	[ -n "$epid" ] && kill "$epid" 2>/dev/null
	[ -n "$opid" ] && kill "$opid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

mkfifo "$tmp/origin" "$tmp/egress"
"$origin" 127.0.0.1:0 4 >"$tmp/origin" &
opid=$!
read -r port <"$tmp/origin"
"$egress" --listen 127.0.0.1:0 --allow "127.0.0.1:$port" --log "$tmp/log" \
	--ready-fd 3 3>"$tmp/egress" &
epid=$!
read -r addr <"$tmp/egress"
proxy="http://$addr"
url="http://127.0.0.1:$port/zero/$SIZE"

echo "magus-egress benchmark: $(nproc) CPUs, $(uname -r)"
echo "origin 127.0.0.1:$port, proxy $addr"
echo

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "== throughput: $SIZE bytes, $ROUNDS rounds, bytes/s (curl's speed_download)"
echo "   direct:  curl -o /dev/null $url"
echo "   forward: curl -x $proxy -o /dev/null $url"
echo "   tunnel:  curl -p -x $proxy -o /dev/null $url"
# The proxy's own CPU time (user + system), to say where the time goes.
ticks() { awk '{ print $14 + $15 }' "/proc/$epid/stat"; }
# The whole machine's busy time (everything but idle and iowait), to say
# how much CPU each kind of download needs and so what the ratio can be.
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
centis() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
: >"$tmp/direct"; : >"$tmp/forward"; : >"$tmp/tunnel"
cpu=0 bd=0 bf=0 bt=0 wd=0
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	w0=$(centis) b0=$(busy)
	curl -sS -o /dev/null -w '%{speed_download}\n' "$url" >>"$tmp/direct"
	b1=$(busy) w1=$(centis)
	t0=$(ticks)
	curl -sS -x "$proxy" -o /dev/null -w '%{speed_download}\n' "$url" >>"$tmp/forward"
	b2=$(busy)
	curl -sS -p -x "$proxy" -o /dev/null -w '%{speed_download}\n' "$url" >>"$tmp/tunnel"
	b3=$(busy)
	cpu=$((cpu + $(ticks) - t0))
	bd=$((bd + b1 - b0)) bf=$((bf + b2 - b1)) bt=$((bt + b3 - b2))
	wd=$((wd + w1 - w0))
	i=$((i + 1))
done
d=$(median <"$tmp/direct")
f=$(median <"$tmp/forward")
t=$(median <"$tmp/tunnel")
printf '   raw direct:  %s\n' "$(tr '\n' ' ' <"$tmp/direct")"
printf '   raw forward: %s\n' "$(tr '\n' ' ' <"$tmp/forward")"
printf '   raw tunnel:  %s\n' "$(tr '\n' ' ' <"$tmp/tunnel")"
awk -v d="$d" -v f="$f" -v t="$t" 'BEGIN {
	printf "   median direct  %8.1f MB/s\n", d / 1e6
	printf "   median forward %8.1f MB/s  ratio %.2f\n", f / 1e6, f / d
	printf "   median tunnel  %8.1f MB/s  ratio %.2f   (target >= 0.90)\n", t / 1e6, t / d
}'
awk -v c="$cpu" -v hz="$(getconf CLK_TCK)" -v n="$ROUNDS" -v s="$SIZE" 'BEGIN {
	printf "   proxy CPU (user+system): %.2f s per GiB relayed\n", c / hz / (2 * n * s / 1073741824)
}'
# A download that keeps every CPU busy cannot go faster than the CPUs
# allow: the ceiling is the speed at which the proxied download's CPU
# per GiB would fill all of them, over the direct speed.
awk -v d="$d" -v bd="$bd" -v bf="$bf" -v bt="$bt" -v wd="$wd" -v hz="$(getconf CLK_TCK)" \
    -v n="$ROUNDS" -v s="$SIZE" -v ncpu="$(nproc)" 'BEGIN {
	gib = n * s / 1073741824
	cd = bd / hz / gib; cf = bf / hz / gib; ct = bt / hz / gib
	if (!bd || !bf || !bt || !wd || !d) {
		print "   machine CPU: too little to measure; raise SIZE or ROUNDS"
		exit
	}
	printf "   machine CPU per GiB: direct %.2f s, forward %.2f s, tunnel %.2f s\n", cd, cf, ct
	printf "   CPUs busy while the direct downloads ran: %.2f of %d\n", bd / hz / (wd / 100), ncpu
	printf "   ratio ceiling if all %d CPUs ran the proxied download: forward %.2f, tunnel %.2f\n",
	    ncpu, ncpu / cf / (d / 1073741824), ncpu / ct / (d / 1073741824)
}'
echo

# Link-paced: curl reads no faster than RATE, direct and proxied alike.
for rate in $PACE; do
	purl="http://127.0.0.1:$port/zero/$PACED_SIZE"
	echo "== paced at $rate/s: $PACED_SIZE bytes, $ROUNDS rounds (curl --limit-rate $rate)"
	: >"$tmp/pd"; : >"$tmp/pf"; : >"$tmp/pt"
	i=0
	while [ "$i" -lt "$ROUNDS" ]; do
		curl -sS --limit-rate "$rate" -o /dev/null -w '%{speed_download}\n' "$purl" >>"$tmp/pd"
		curl -sS --limit-rate "$rate" -x "$proxy" -o /dev/null -w '%{speed_download}\n' "$purl" >>"$tmp/pf"
		curl -sS --limit-rate "$rate" -p -x "$proxy" -o /dev/null -w '%{speed_download}\n' "$purl" >>"$tmp/pt"
		i=$((i + 1))
	done
	awk -v d="$(median <"$tmp/pd")" -v f="$(median <"$tmp/pf")" \
	    -v t="$(median <"$tmp/pt")" 'BEGIN {
		printf "   median direct  %8.1f MB/s\n", d / 1e6
		printf "   median forward %8.1f MB/s  ratio %.2f\n", f / 1e6, f / d
		printf "   median tunnel  %8.1f MB/s  ratio %.2f   (target >= 0.90)\n", t / 1e6, t / d
	}'
	echo
done

echo "== connection setup: $CONNS connections each, one request of 6 bytes"
echo "   $client -n $CONNS 127.0.0.1:$port direct 127.0.0.1:$port /hello"
echo "   $client -n $CONNS $addr connect|forward 127.0.0.1:$port /hello"
for mode in direct connect forward direct; do
	if [ "$mode" = direct ]; then
		server="127.0.0.1:$port"
	else
		server=$addr
	fi
	out=$("$client" -n "$CONNS" "$server" "$mode" "127.0.0.1:$port" /hello)
	echo "   $mode: $out"
	echo "$mode ${out#median_us=}" | cut -d' ' -f1,2 >>"$tmp/setup"
done
awk '
	$1 == "direct" { if (!d || $2 < d) d = $2 }
	$1 == "connect" { c = $2 }
	$1 == "forward" { f = $2 }
	END {
		printf "   added by the proxy (median): CONNECT %d us, forward %d us   (target < 1000 us)\n", c - d, f - d
	}' "$tmp/setup"
