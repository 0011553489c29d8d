#!/bin/bash
# start-registry.sh DIR: serve an image registry (Debian's docker-registry,
# the distribution 2.8 server) over plain HTTP on 127.0.0.1 at a free port,
# storing under DIR, and print its address (127.0.0.1:PORT) once it
# answers.  The pid goes to DIR/registry.pid; tests/lib/registry.bash
# stops it by that pid.
#
# Exit status: 0 when the registry answers; 77 when docker-registry is
# missing and cannot be installed (the tests report a skip); 1 for any
# other failure.
#
# Why this way:
# - A configuration file of its own in DIR: the package's
#   /etc/docker/registry/config.yml listens on every address at :5000 and
#   wants an htpasswd file.  The systemd unit is never used.
# - Port 0: the kernel picks a free port and the registry logs the one it
#   got ("listening on 127.0.0.1:PORT"), so two registries never race for
#   a port.
# - Loopback, no TLS: the test engine's registries.conf marks 127.0.0.1
#   insecure (tests/engine/start-engine.sh); nothing leaves the machine.
# - Deletes enabled, no upload purge, no access log: a test may remove
#   what it pushed, and the log stays short enough to read on failure.
set -eu

prog=start-registry
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
cannot() { say "cannot run a test registry here: $*"; exit 77; }
die() { say "$*"; exit 1; }

[ $# -eq 1 ] || { echo "usage: start-registry.sh DIR" >&2; exit 2; }
dir=$1
registry=/usr/bin/docker-registry

if [ ! -x "$registry" ]; then
	[ "$(id -u)" -eq 0 ] || cannot "no $registry, and installing it needs root"
	say "installing: docker-registry"
	export DEBIAN_FRONTEND=noninteractive
	apt="apt-get -o DPkg::Lock::Timeout=300 -y --no-install-recommends"
	# The package's postinst would start its service where an init
	# system runs; the tests never use that service.
	$apt install docker-registry >&2 ||
		{ apt-get -o DPkg::Lock::Timeout=300 update >&2 &&
			$apt install docker-registry >&2; } ||
		cannot "docker-registry could not be installed"
	[ -x "$registry" ] || cannot "no $registry after installing it"
fi

mkdir -p "$dir/store"
dir=$(cd "$dir" && pwd)
if [ -f "$dir/registry.pid" ] &&
	kill -0 "$(cat "$dir/registry.pid")" 2>/dev/null; then
	die "a registry already runs in '$dir' (pid $(cat "$dir/registry.pid"))"
fi

cat >"$dir/config.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/store
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:0
EOF

: >"$dir/registry.log"
# Like the engine, the registry keeps no descriptor of its starter's.
(
	for fd in /proc/self/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
	done
	exec "$registry" serve "$dir/config.yml" \
		>>"$dir/registry.log" 2>&1 </dev/null
) &
pid=$!
echo "$pid" >"$dir/registry.pid"

tries=0
addr=
while :; do
	addr=$(sed -n 's/.*msg="listening on \(127\.0\.0\.1:[0-9]*\)".*/\1/p' \
		"$dir/registry.log" | head -n 1)
	if [ -n "$addr" ] &&
		[ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' \
			"http://$addr/v2/")" = 200 ]; then
		echo "$addr" >"$dir/address"
		say "pid $pid serves http://$addr ($("$registry" --version 2>&1 | head -n 1))"
		echo "$addr"
		exit 0
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		say "the registry exited:"
		cat "$dir/registry.log" >&2
		exit 1
	fi
	tries=$((tries + 1))
	if [ "$tries" -ge 200 ]; then
		kill -TERM "$pid" 2>/dev/null
		die "no answer from the registry after 20 s: $(tail -n 5 "$dir/registry.log")"
	fi
	sleep 0.1
done
