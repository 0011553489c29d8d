#!/usr/bin/env bats
# magus-clean and the platform stores: removed without following a link,
# without crossing into another mount and without leaving the cache dir;
# a store path that leads out is refused before anything is removed.
# Also: no engine configured, and an engine that cannot be reached.

load lib/common
load lib/clean

setup() {
	common_setup
	clean_ws
	OUT=$T/outside
	mkdir -p "$OUT/dir"
	echo keep >"$OUT/file"
	echo keep >"$OUT/dir/inner"
}

teardown() { common_teardown; }

# The files outside the workspace are all still there, unchanged.
outside_intact() {
	[ "$(cat "$OUT/file")" = keep ] && [ "$(cat "$OUT/dir/inner")" = keep ] ||
		fail "something outside the cache dir changed: $(ls -lR "$OUT")"
}

@test "no engine configured: the stores go, one line says containers were not checked, exit 0" {
	mkstore linux-arm64
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm64
	assert_success
	assert_line "removed store $WS/.magus/platform/linux-arm64: platform store"
	assert_line "removed 0 containers, 0 volumes, 1 store; kept 0; failed 0 (containers and volumes not checked)"
	[ "$(wc -l <<<"$stderr")" -eq 1 ] || fail "stderr: $stderr"
	assert_code MGS6006
	[[ $stderr == *"containers and volumes were not checked"* ]]
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
	[ -d "$WS/.magus/platform" ]
}

@test "the engine unreachable: the stores go, then exit 71 naming the socket (MGS3002)" {
	mkstore linux-arm64
	run --separate-stderr "$CLEAN" --root "$WS" --all \
		--container-api "unix://$T/no-engine.sock"
	[ "$status" -eq 71 ]
	assert_code MGS3002
	[[ $stderr == *"$T/no-engine.sock"* ]]
	assert_line "removed store $WS/.magus/platform/linux-arm64: platform store"
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
	# The same from MAGUS_CONTAINER_API, and under -o json.
	mkstore linux-amd64
	MAGUS_CONTAINER_API=unix://$T/no-engine.sock run --separate-stderr \
		"$CLEAN" --root "$WS" --all -o json
	[ "$status" -eq 71 ]
	jq -e 'select(.code) | .code == "MGS3002"' <<<"$stderr"
	jq -se 'last | .kind == "summary" and .engine == "unreachable" and .stores == 1' <<<"$output"
	[ ! -e "$WS/.magus/platform/linux-amd64" ]
}

@test "container.api from the user configuration is the engine, through the front and alone" {
	mkdir -p "$XDG_CONFIG_HOME/magus"
	printf 'container:\n  api: unix://%s/user.sock\n' "$T" >"$XDG_CONFIG_HOME/magus/config.yaml"
	mkstore linux-arm64
	run --separate-stderr magus -C "$WS" clean --platform linux/arm64
	[ "$status" -eq 71 ]
	assert_code MGS3002
	[[ $stderr == *"$T/user.sock"* ]]
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
	mkstore linux-arm64
	run --separate-stderr "$CLEAN" --root "$WS" --all -v
	[ "$status" -eq 71 ]
	assert_code MGS3002
	[[ $stderr == *"workspace '$WS', cache dir '$WS/.magus'"* ]]
	[[ $stderr == *"engine '$T/user.sock', objects labeled magus.workspace=$WS"* ]]
	[ ! -e "$WS/.magus/platform/linux-arm64" ]
}

@test "a URL that is not unix:// is refused before anything is removed (exit 2, MGS3001)" {
	mkstore linux-arm64
	run --separate-stderr "$CLEAN" --root "$WS" --all --container-api tcp://127.0.0.1:2375
	[ "$status" -eq 2 ]
	assert_code MGS3001
	[ -f "$WS/.magus/platform/linux-arm64/home/.profile" ]
}

@test "a symbolic link in a store is removed as a link; its target is untouched" {
	mkstore linux-arm64
	local s=$WS/.magus/platform/linux-arm64
	ln -s "$OUT/file" "$s/home/to-file"
	ln -s "$OUT/dir" "$s/home/to-dir"
	ln -s "$OUT" "$s/.cache/to-outside"
	ln -s /nonexistent "$s/dangling"
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm64
	assert_success
	[ ! -e "$s" ] && [ ! -L "$s" ]
	outside_intact
	[ -d "$OUT/dir" ]
}

@test "a symlinked platform directory is refused: exit 2, MGS6003, nothing removed" {
	mkdir -p "$OUT/platform/linux-arm64"
	echo keep >"$OUT/platform/linux-arm64/f"
	rmdir "$WS/.magus/platform"
	ln -s "$OUT/platform" "$WS/.magus/platform"
	run --separate-stderr "$CLEAN" --root "$WS" --all
	[ "$status" -eq 2 ]
	assert_code MGS6003
	[[ $stderr == *"'$WS/.magus/platform' is a symbolic link"* ]]
	[ -z "$output" ]
	[ -L "$WS/.magus/platform" ]
	[ "$(cat "$OUT/platform/linux-arm64/f")" = keep ]
}

@test "a symlinked store is refused, and no other store goes either" {
	mkstore linux-amd64
	ln -s "$OUT/dir" "$WS/.magus/platform/linux-arm64"
	for args in "--platform linux/arm64" "--all"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$CLEAN" --root "$WS" $args
		[ "$status" -eq 2 ]
		assert_code MGS6003
		[[ $stderr == *"linux-arm64' is a symbolic link"* ]]
	done
	[ -L "$WS/.magus/platform/linux-arm64" ]
	[ -f "$WS/.magus/platform/linux-amd64/home/.profile" ]
	outside_intact
}

@test "a cache dir inside the workspace that resolves outside it is refused (MGS6002)" {
	rm -rf "$WS/.magus"
	mkdir -p "$OUT/cache/platform/linux-arm64"
	echo keep >"$OUT/cache/platform/linux-arm64/f"
	ln -s "$OUT/cache" "$WS/.magus"
	run --separate-stderr "$CLEAN" --root "$WS" --all
	[ "$status" -eq 2 ]
	assert_code MGS6002
	[[ $stderr == *"resolves to '$OUT/cache', outside the workspace"* ]]
	[ "$(cat "$OUT/cache/platform/linux-arm64/f")" = keep ]
	# The same through the front, which names the cache dir.
	run --separate-stderr magus -C "$WS" clean --all
	[ "$status" -eq 2 ]
	assert_code MGS6002
	[ "$(cat "$OUT/cache/platform/linux-arm64/f")" = keep ]
}

@test "cache.dir from magus.yaml, or MAGUS_CACHE_DIR from the front, is where the stores are" {
	printf 'cache:\n  dir: build/cache\n' >"$WS/magus.yaml"
	mkdir -p "$WS/build/cache/platform/linux-arm64/x" "$WS/.magus/platform/linux-arm64"
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "removed store $WS/build/cache/platform/linux-arm64"
	[ -d "$WS/.magus/platform/linux-arm64" ]
	mkdir -p "$T/elsewhere/platform/linux-amd64"
	MAGUS_CACHE_DIR=$T/elsewhere run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line --partial "removed store $T/elsewhere/platform/linux-amd64"
	[ -d "$WS/.magus/platform/linux-arm64" ]
	# A cache dir configured outside the workspace is taken as named.
	printf 'cache:\n  dir: ../shared-cache\n' >"$WS/magus.yaml"
	mkdir -p "$T/shared-cache/platform/linux-arm64/y"
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm64
	assert_success
	assert_line --partial "removed store $T/shared-cache/platform/linux-arm64"
	[ -d "$WS/.magus/platform/linux-arm64" ]
}

@test "--all removes every store directory and leaves other entries; --platform only its own" {
	mkstore linux-arm64
	mkstore linux-amd64
	mkstore linux-arm-v7
	echo note >"$WS/.magus/platform/README"
	echo keep >"$WS/.magus/other"
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm/v7
	assert_success
	assert_line "removed store $WS/.magus/platform/linux-arm-v7: platform store"
	[ -d "$WS/.magus/platform/linux-arm64" ]
	run --separate-stderr "$CLEAN" --root "$WS" --all
	assert_success
	assert_line "removed 0 containers, 0 volumes, 2 stores; kept 0; failed 0 (containers and volumes not checked)"
	[ -z "$(find "$WS/.magus/platform" -mindepth 1 -type d)" ]
	[ -f "$WS/.magus/platform/README" ]
	[ -f "$WS/.magus/other" ]
	# Nothing left: nothing to do, and that is success.
	run --separate-stderr "$CLEAN" --root "$WS" --platform linux/arm64
	assert_success
	assert_line "removed 0 containers, 0 volumes, 0 stores; kept 0; failed 0 (containers and volumes not checked)"
}

@test "--dry-run lists the stores and removes nothing" {
	mkstore linux-arm64
	run --separate-stderr "$CLEAN" --root "$WS" --all --dry-run
	assert_success
	assert_line "would remove store $WS/.magus/platform/linux-arm64: platform store"
	assert_line "would remove 0 containers, 0 volumes, 1 store; would keep 0 (containers and volumes not checked)"
	[ -f "$WS/.magus/platform/linux-arm64/.cache/go/mod/a.txt" ]
}

@test "a mount inside a store is not crossed: its files stay, the rest goes, exit 1 (MGS6004)" {
	skip_unless "needs root and unshare(1) for a private mount" \
		unshare -m --propagation private true
	mkstore linux-arm64
	local s=$WS/.magus/platform/linux-arm64
	mkdir -p "$s/mnt"
	# A bind mount keeps the filesystem: only the mount id tells.
	run --separate-stderr unshare -m --propagation private sh -c '
		mount --bind "$1" "$2/mnt" && exec "$3" --root "$4" --all' \
		sh "$OUT" "$s" "$CLEAN" "$WS"
	[ "$status" -eq 1 ]
	assert_code MGS6004
	[[ $stderr == *"'$s/mnt': a mount point: not crossed"* ]]
	assert_line --partial "failed to remove store $s: platform store: '$s/mnt': a mount point"
	outside_intact
	[ ! -e "$s/home" ] && [ ! -e "$s/.cache" ]
	# A store that is itself a mount point is refused outright.
	run --separate-stderr unshare -m --propagation private sh -c '
		mount -t tmpfs none "$1" && echo x >"$1/f" && "$2" --root "$3" --all
		st=$?; test -f "$1/f" || st=99; exit $st' sh "$s" "$CLEAN" "$WS"
	[ "$status" -eq 2 ]
	assert_code MGS6003
}

@test "read-only directories the user owns are opened up and removed (a Go module cache)" {
	skip_unless "needs root and setpriv(1) to run as another user" \
		setpriv --reuid=65534 --regid=65534 --clear-groups true
	mkstore linux-arm64
	local s=$WS/.magus/platform/linux-arm64
	mkdir -p "$s/gomod/pkg@v1/sub" "$s/locked"
	echo x >"$s/gomod/pkg@v1/sub/f"
	echo y >"$s/locked/f"
	chown -R 65534:65534 "$s"
	chmod 0755 "$T" "$T/ws" "$WS/.magus"
	chown 65534:65534 "$WS/.magus/platform"
	chmod -R a-w "$s/gomod"
	chmod 0000 "$s/locked"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CLEAN" --root "$WS" --all
	assert_success
	assert_line "removed store $s: platform store"
	[ ! -e "$s" ]
}

@test "the store walk keeps going past a failure and names the first one" {
	skip_unless "needs root and setpriv(1) to run as another user" \
		setpriv --reuid=65534 --regid=65534 --clear-groups true
	mkstore linux-arm64
	local s=$WS/.magus/platform/linux-arm64
	mkdir -p "$s/a" "$s/z"
	echo x >"$s/z/f"
	chown -R 65534:65534 "$s"
	chmod 0755 "$T" "$T/ws" "$WS/.magus"
	chown 65534:65534 "$WS/.magus/platform"
	echo r >"$s/a/roots"
	chown 0:0 "$s/a"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CLEAN" --root "$WS" --all
	[ "$status" -eq 1 ]
	assert_code MGS6004
	[[ $stderr == *"'$s/a/roots': Permission denied"* ]]
	[ ! -e "$s/z" ] && [ ! -e "$s/home" ]
	[ -f "$s/a/roots" ]
}
