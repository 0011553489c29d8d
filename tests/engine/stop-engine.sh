#!/bin/bash
# stop-engine.sh [SOCKET]: stop the test engine start-engine.sh started
# and remove everything it made.
#
# ENGINE_STATE names the state directory (default: engine-state beside
# SOCKET; one of the two must be given).  Every container and volume is
# removed first, through the engine's own CLI inside its namespace; then
# the service gets SIGTERM by the pid start-engine.sh saved (after
# checking that this pid still is that service on that socket), KILL
# after 10 s; then the state directory and the socket are deleted.
# Nothing is ever stopped by name.  Stopping an engine that is not
# running is not an error.
set -u

prog=stop-engine
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

[ $# -le 1 ] || { echo "usage: stop-engine.sh [SOCKET]" >&2; exit 2; }
if [ -n "${ENGINE_STATE:-}" ]; then
	state=$ENGINE_STATE
elif [ $# -eq 1 ]; then
	state=$(dirname "$1")/engine-state
else
	echo "usage: stop-engine.sh [SOCKET] (or set ENGINE_STATE)" >&2
	exit 2
fi
[ -d "$state" ] || { say "no engine state at '$state'"; exit 0; }
sock=${1:-$(cat "$state/socket" 2>/dev/null || true)}
pid=$(cat "$state/service.pid" 2>/dev/null || true)

ours=false
if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] &&
	tr '\0' ' ' <"/proc/$pid/cmdline" |
	grep -qF "system service --time=0 unix://$sock"; then
	ours=true
fi

if $ours; then
	# Containers' conmon processes are not the service's children:
	# remove them through the engine, inside its namespace, first.
	(
		# shellcheck disable=SC1091
		. "$state/env"
		timeout 60 nsenter --target "$pid" --mount -- \
			podman rm --all --force --time 0 >/dev/null 2>&1
		timeout 60 nsenter --target "$pid" --mount -- \
			podman volume rm --all --force >/dev/null 2>&1
	) || say "some containers or volumes could not be removed"
	kill -TERM "$pid"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "pid $pid ignored SIGTERM; sending SIGKILL"
		kill -KILL "$pid"
	fi
	say "stopped pid $pid"
elif [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	say "pid $pid is not the engine on '$sock'; not signalling it"
fi

# The storage's mounts lived in the service's namespace and went with it;
# a conmon that outlived the service keeps that namespace a moment.
for _ in $(seq 50); do
	rm -rf "$state" 2>/dev/null && break
	sleep 0.1
done
[ -d "$state" ] && { say "cannot remove '$state'"; exit 1; }
[ -n "$sock" ] && rm -f "$sock"
exit 0
