# shellcheck shell=sh
# tests/engine/rootfs.sh: the root file system of a test image, sourced by
# start-engine.sh (the host's busybox) and foreign-image.sh (another
# architecture's).  The caller adds the applet links between the two steps.

# rootfs_begin DIR BUSYBOX: the directories, and BUSYBOX as /usr/bin/busybox
# with /bin/busybox linking to it.
rootfs_begin() {
	mkdir -p "$1/bin" "$1/usr/bin" "$1/etc" "$1/tmp" "$1/proc" "$1/sys" \
		"$1/dev" "$1/work" "$1/root" "$1/home/user"
	cp "$2" "$1/usr/bin/busybox"
	ln -s /usr/bin/busybox "$1/bin/busybox"
}

# rootfs_finish DIR TARBALL: root, a uid-1000 user with a home and nobody;
# a sticky /tmp; then DIR as a tarball with fixed names, times and owners,
# so the same busybox gives the same image.
rootfs_finish() {
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
		'user:x:1000:1000:user:/home/user:/bin/sh' \
		'nobody:x:65534:65534:nobody:/:/bin/sh' >"$1/etc/passwd"
	printf '%s\n' 'root:x:0:' 'user:x:1000:' 'nogroup:x:65534:' \
		>"$1/etc/group"
	chmod 1777 "$1/tmp"
	chown 1000:1000 "$1/home/user"
	tar --sort=name --mtime=@0 --numeric-owner -C "$1" -cf "$2" .
}
