#!/bin/bash
# start-engine.sh SOCKET: serve the Docker Engine API on the unix socket
# SOCKET for magus's tests, with podman's compatible service (Debian 12's
# podman 4.3), and print the engine's URL (unix://SOCKET) when it answers.
#
# Environment:
#   ENGINE_STATE  the engine's state directory (default: engine-state
#                 beside SOCKET); two engines need two of them
#   ENGINE_IMAGE  the local image to build (default localhost/magus-test:1)
#
# Exit status: 0 when the engine answers; 77 when this machine cannot run
# one (not root, no mount namespaces, podman cannot be installed), which
# the tests report as a skip; 1 for any other failure.
#
# What it does, and why:
# - Installs podman, runc, conmon, catatonit, busybox-static and what they
#   need, when missing (contrib/debian-packages.txt lists the same).
# - Keeps everything under ENGINE_STATE: storage, run root, events log,
#   volumes, configuration (through CONTAINERS_CONF and friends); /etc is
#   not touched.
# - registries.conf marks 127.0.0.1 (any port) insecure: the pull tests'
#   registry (start-registry.sh) speaks plain HTTP on loopback.
# - Runs the service in a mount namespace of its own, where /run and
#   /dev/shm are private and /var/lib is read-only, so runc's /run/runc,
#   podman's /dev/shm/libpod_lock and its blob cache under
#   /var/lib/containers never appear on the host.  In that namespace
#   /usr/bin/dpkg is a stub: podman 4.3 asks dpkg which package owns runc
#   and conmon on every /version and /info, which costs seconds.
# - runc, not crun: crun 1.8 refuses a kernel with cgroup v1 controllers
#   and a cgroup2 mount holding hugetlb.  cgroupfs, not systemd; events to
#   a file, not journald: there is no systemd here.
# - Default ulimits at or below the current hard limits: a machine
#   without CAP_SYS_RESOURCE cannot raise them, and podman's default
#   nofile of 1048576 makes every start fail.
# - A conmon wrapper that runs in the bundle directory: conmon 2.1.6
#   writes its OOM marker relative to its cwd, podman 4.3 looks for it in
#   the bundle, and without the wrapper State.OOMKilled is never true.
# - No CNI plugins: a container that would get the default bridge fails
#   to start instead of getting an address.  Tests send NetworkMode none.
# - The image: busybox-static's applets in a rootfs packed reproducibly
#   and imported, so no registry is needed.
#
# stop-engine.sh stops the service by the pid saved here, never by name.
set -eu
# rootfs_begin, rootfs_finish
# shellcheck source=tests/engine/rootfs.sh
. "$(dirname "$0")/rootfs.sh"

prog=start-engine
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
cannot() { say "cannot run a test engine here: $*"; exit 77; }
die() { say "$*"; exit 1; }

[ $# -eq 1 ] || { echo "usage: start-engine.sh SOCKET" >&2; exit 2; }
sock=$1
case $sock in
/*) ;;
*) sock=$(pwd)/$sock ;;
esac
case $sock in
/run/* | /dev/shm/* | /var/lib/*)
	die "'$sock': the engine's namespace hides /run, /dev/shm and /var/lib; put the socket elsewhere" ;;
esac
state=${ENGINE_STATE:-$(dirname "$sock")/engine-state}
image=${ENGINE_IMAGE:-localhost/magus-test:1}

[ "$(id -u)" -eq 0 ] || cannot "podman's service needs root (this is uid $(id -u))"
command -v unshare >/dev/null 2>&1 || cannot "no unshare(1)"
unshare --mount true 2>/dev/null || cannot "no mount namespaces"

if [ -f "$state/service.pid" ] &&
	kill -0 "$(cat "$state/service.pid")" 2>/dev/null; then
	die "an engine already runs with state '$state' (pid $(cat "$state/service.pid"))"
fi

# ---- packages ----------------------------------------------------------
packages="podman runc conmon catatonit busybox-static uidmap
	golang-github-containers-common containernetworking-plugins curl"
missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt="apt-get -o DPkg::Lock::Timeout=300 -y --no-install-recommends"
	# shellcheck disable=SC2086 # one word per package
	$apt install $missing >&2 ||
		{ apt-get -o DPkg::Lock::Timeout=300 update >&2 &&
			$apt install $missing >&2; } ||
		cannot "the packages could not be installed:$missing"
fi

# ---- configuration, all under the state directory ---------------------
mkdir -p "$state/conf" "$state/root" "$state/runroot" "$state/tmp" \
	"$state/cni" "$state/no-cni-plugins"
state=$(cd "$state" && pwd)

hn=$(ulimit -Hn)
[ "$hn" = unlimited ] && hn=1048576
[ "$hn" -gt 1048576 ] && hn=1048576
hu=$(ulimit -Hu)
[ "$hu" = unlimited ] && hu=32768
# podman lowers its own RLIMIT_NPROC to 32768; more would fail setrlimit.
[ "$hu" -gt 32768 ] && hu=32768

cat >"$state/conf/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$state/root"
runroot = "$state/runroot"
EOF

cat >"$state/conf/containers.conf" <<EOF
[containers]
netns = "none"
default_ulimits = ["nofile=$hn:$hn", "nproc=$hu:$hu"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$state/events.log"
tmp_dir = "$state/tmp"
image_copy_tmp_dir = "$state/tmp"
volume_path = "$state/root/volumes"
runtime = "runc"
conmon_path = ["$state/conmon-wrapper"]
[network]
network_config_dir = "$state/cni"
cni_plugin_dirs = ["$state/no-cni-plugins"]
EOF

# A registry on loopback speaks plain HTTP (tests/lib/registry.bash starts
# one on a free port): "127.0.0.1" stands for every port of that address.
cat >"$state/conf/registries.conf" <<'EOF'
unqualified-search-registries = []
short-name-mode = "disabled"

[[registry]]
location = "127.0.0.1"
insecure = true
EOF

cat >"$state/conmon-wrapper" <<'EOF'
#!/bin/sh
# conmon writes its OOM marker to "oom" in its cwd; podman reads it from
# the bundle directory.  Run conmon there.
prev=
for a in "$@"; do
	case $prev in -b | --bundle) cd "$a" 2>/dev/null; break ;; esac
	case $a in --bundle=*) cd "${a#--bundle=}" 2>/dev/null; break ;; esac
	prev=$a
done
exec /usr/bin/conmon "$@"
EOF
chmod 755 "$state/conmon-wrapper"

printf '#!/bin/sh\n# no package lookups: see start-engine.sh\nexit 1\n' \
	>"$state/dpkg-stub"
chmod 755 "$state/dpkg-stub"

cat >"$state/env" <<EOF
CONTAINERS_CONF=$state/conf/containers.conf
CONTAINERS_STORAGE_CONF=$state/conf/storage.conf
CONTAINERS_REGISTRIES_CONF=$state/conf/registries.conf
TMPDIR=$state/tmp
export CONTAINERS_CONF CONTAINERS_STORAGE_CONF CONTAINERS_REGISTRIES_CONF TMPDIR
EOF

# ---- the image's root file system -------------------------------------
if [ ! -f "$state/rootfs.tar" ]; then
	rf=$state/rootfs
	rm -rf "$rf"
	rootfs_begin "$rf" /bin/busybox
	# A link per applet, in one process.  Each points where busybox runs
	# from on the host (/usr/bin/busybox on a merged /usr, /bin/busybox
	# otherwise), and the image has both.
	/bin/busybox --install -s "$rf/bin"
	rootfs_finish "$rf" "$state/rootfs.tar"
	rm -rf "$rf"
fi

# ---- the service, in its own mount namespace ---------------------------
# The script runs as the namespace's first process and ends by exec'ing
# the service, so the pid saved below is the service's own.
cat >"$state/inner.sh" <<EOF
#!/bin/sh
set -e
. "$state/env"
mount -t tmpfs -o mode=0755,size=64m magus-test-run /run
mount -t tmpfs -o mode=1777,size=64m magus-test-shm /dev/shm
mount --bind /var/lib /var/lib
mount -o remount,bind,ro /var/lib
mount --bind "$state/dpkg-stub" /usr/bin/dpkg
cd "$state"
if ! podman image exists "$image"; then
	podman import \\
		--change 'CMD ["/bin/sh"]' \\
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \\
		"$state/rootfs.tar" "$image" >/dev/null
fi
exec podman system service --time=0 "unix://$sock"
EOF

mkdir -p "$(dirname "$sock")"
rm -f "$sock"
echo "$sock" >"$state/socket"
# The service keeps no descriptor of its starter's (a test runner waits
# for its own pipes to close).
(
	for fd in /proc/self/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
	done
	exec nohup unshare --mount --propagation slave -- \
		/bin/sh "$state/inner.sh" >"$state/service.log" 2>&1 </dev/null
) &
pid=$!
echo "$pid" >"$state/service.pid"

tries=0
while :; do
	if [ "$(curl -s -m 2 --unix-socket "$sock" http://d/_ping 2>/dev/null)" = OK ]; then
		say "pid $pid serves unix://$sock ($(podman --version))"
		echo "unix://$sock"
		exit 0
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		say "the service exited:"
		cat "$state/service.log" >&2
		exit 1
	fi
	tries=$((tries + 1))
	[ "$tries" -lt 600 ] || die "no answer on '$sock' after 60 s"
	sleep 0.1
done
