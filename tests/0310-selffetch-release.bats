#!/usr/bin/env bats
# The static inner build (make platform-store, made once per make check
# into tests/selffetch/ws) and make release: layout, static linking,
# BUILD-INFO, reproducible tarballs, the signed index.

load lib/common
load lib/selffetch

setup() { common_setup; }
teardown() { common_teardown; }

inner_helpers() {
	sed -n 's/^INNER_HELPERS = //p' "$MAGUS_BUILD_DIR/Makefile"
}

@test "make platform-store put the inner build where the relay looks" {
	[ -f "$SF_INNER/BUILD-INFO" ]
	run "$SF_TOOL" find "$SF_WS/.magus" "$SF_PLATFORM"
	assert_success
	assert_line "state ok"
	assert_line "from store"
	assert_line "dir $SF_INNER"
	# No temporary directory was left beside it.
	run find "$SF_WS/.magus/platform/linux-$SF_ARCH" -mindepth 1 -maxdepth 1
	assert_output "$SF_INNER"
}

@test "the inner build holds bin/magus, the inner helpers it has, BUILD-INFO and nothing else" {
	local f h want
	want=$(printf '%s\n' BUILD-INFO bin bin/magus libexec libexec/magus)
	for h in $(inner_helpers); do
		if [ -e "$MAGUS_EXEC_PATH/magus-$h" ]; then
			want=$(printf '%s\nlibexec/magus/magus-%s' "$want" "$h")
		fi
	done
	run bash -c "cd '$SF_INNER' && find . -mindepth 1 | sed 's,^\./,,' | LC_ALL=C sort"
	assert_output "$(printf '%s\n' "$want" | LC_ALL=C sort)"
	# Never a helper that links libcurl.
	for f in "$SF_INNER"/libexec/magus/*; do
		[ -e "$f" ] || continue
		case " $(inner_helpers) " in
		*" ${f##*/magus-} "*) ;;
		*) fail "$f is not one of INNER_HELPERS" ;;
		esac
	done
	[ ! -e "$SF_INNER/libexec/magus/magus-self-fetch" ]
}

@test "every inner binary is static, stripped and for this platform" {
	local f
	for f in "$SF_INNER"/bin/magus "$SF_INNER"/libexec/magus/*; do
		[ -f "$f" ] || continue
		run readelf -lW "$f"
		refute_output --partial INTERP
		run readelf -dW "$f"
		refute_output --partial NEEDED
		run readelf -SW "$f"
		refute_output --partial .symtab
		[ -x "$f" ]
	done
	run "$SF_INNER/bin/magus" --version
	assert_success
	assert_output "magus $SF_VERSION"
	# It runs with nothing from the host: no environment, no libraries.
	run env -i "$SF_INNER/bin/magus" help
	assert_success
}

@test "BUILD-INFO names the version, the platform, the sources and each file" {
	run sed -n 1,4p "$SF_INNER/BUILD-INFO"
	assert_output "$(printf 'magus-build-info 1\nversion %s\nplatform %s\nsource %s' \
		"$SF_VERSION" "$SF_PLATFORM" "$SF_HASH")"
	local h n
	h=$(sha256sum <"$SF_INNER/bin/magus" | cut -c1-64)
	n=$(stat -c %s "$SF_INNER/bin/magus")
	run grep -Fx "file $h $n bin/magus" "$SF_INNER/BUILD-INFO"
	assert_success
	run "$SF_TOOL" check -s "$SF_HASH" "$SF_INNER" "$SF_PLATFORM" "$SF_VERSION"
	assert_success
}

@test "the relay's lookup tells a stale or foreign build from a good one" {
	cp -R "$SF_WS" "$T/ws"
	local inner=$T/ws/.magus/platform/linux-$SF_ARCH/magus
	# Built from other sources than the running magus: stale.
	sed -i "s/^source .*/source $(printf '%064d' 0)/" "$inner/BUILD-INFO"
	run "$SF_TOOL" find "$T/ws/.magus" "$SF_PLATFORM"
	assert_failure
	assert_line "state stale"
	assert_line "fix make platform-store"
	# Another architecture's directory holding this one's build.
	rm -rf "$T/ws/.magus/platform"
	mkdir -p "$T/ws/.magus/platform/$(echo "$SF_OTHER" | tr / -)"
	cp -R "$SF_INNER" "$T/ws/.magus/platform/$(echo "$SF_OTHER" | tr / -)/magus"
	run "$SF_TOOL" find "$T/ws/.magus" "$SF_OTHER"
	assert_failure
	assert_line "state wrong-platform"
}

@test "make release: reproducible tarballs, a signed index minisign verifies" {
	skip_unless "minisign(1) is not installed" command -v minisign
	local plats=$SF_PLATFORM arm=""
	# The arm64 cross build runs where Debian's cross toolchain is (README).
	if [ "$SF_ARCH" = amd64 ] && command -v aarch64-linux-gnu-gcc >/dev/null &&
		[ -f /usr/lib/aarch64-linux-gnu/libyaml.a ]; then
		plats="$plats linux/arm64"
		arm=1
	fi
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	run env -u MAKEFLAGS -u MAKELEVEL make -s -C "$MAGUS_BUILD_DIR" release \
		RELEASE_KEY="$T/k.key" RELEASE_PUBKEY="$T/k.pub" RELEASE_OUT="$T/out" \
		RELEASE_PLATFORMS="$plats"
	assert_success
	local name=magus-$SF_VERSION-linux-$SF_ARCH.tar.gz
	[ -f "$T/out/$name" ]

	# Reproducible: the same tree built again elsewhere (platform-store's
	# build in another private directory) packs to the same bytes.
	"$SF_RELEASE/pack.sh" "$SF_INNER" "$T/again.tar.gz"
	cmp "$T/out/$name" "$T/again.tar.gz"

	# No build path made it into a binary.
	mkdir "$T/x"
	tar -xzf "$T/out/$name" -C "$T/x"
	run grep -rlaE "magus-inner\.|$MAGUS_BUILD_DIR|$MAGUS_SRC_DIR" "$T/x"
	assert_failure

	# The tar: sorted, owner 0, the epoch's time; gzip without name or time.
	run tar --numeric-owner -tvzf "$T/out/$name"
	assert_success
	refute_output --regexp '^[^ ]+ [1-9][0-9]*/|^[^ ]+ 0/[1-9]'
	[ "$(tar -tzf "$T/out/$name")" = "$(tar -tzf "$T/out/$name" | LC_ALL=C sort)" ]
	run bash -c "TZ=UTC tar --full-time -tvzf '$T/out/$name' | awk '{ print \$4 }' | sort -u"
	assert_output "2023-11-14"
	[ "$(od -An -tx1 -j4 -N4 "$T/out/$name" | tr -d ' ')" = 00000000 ]

	# The index lists the artifact as it is, and minisign verifies it.
	run minisign -V -p "$T/k.pub" -m "$T/out/index.json"
	assert_success
	local tc="magus-release-index $SF_VERSION=linux/amd64"
	[ -z "$arm" ] || tc="$tc,linux/arm64"
	[ "$SF_ARCH" = amd64 ] || tc="magus-release-index $SF_VERSION=$SF_PLATFORM"
	assert_output --partial "Trusted comment: $tc"
	local sha size
	sha=$(sha256sum <"$T/out/$name" | cut -c1-64)
	size=$(stat -c %s "$T/out/$name")
	run cat "$T/out/index.json"
	assert_output --partial "\"$SF_PLATFORM\":{\"sha256\":\"$sha\",\"size\":$size,\"url\":\"$name\"}"

	if [ -n "$arm" ]; then
		local a=magus-$SF_VERSION-linux-arm64.tar.gz
		mkdir "$T/arm"
		tar -xzf "$T/out/$a" -C "$T/arm"
		run readelf -hW "$T/arm/bin/magus"
		assert_output --partial AArch64
		run readelf -lW "$T/arm/bin/magus"
		refute_output --partial INTERP
		run "$SF_TOOL" check -s "$SF_HASH" "$T/arm" linux/arm64 "$SF_VERSION"
		assert_success
	fi
}

@test "a new release keeps the versions of the previous index" {
	"$SF_TOOL" keygen -p "$T/k.pub" -s "$T/k.key" >/dev/null
	printf 'a' >"$T/a.tar.gz"
	"$SF_TOOL" index -o "$T/old.json" 0.0.1 linux/amd64 old.tar.gz "$T/a.tar.gz"
	"$SF_TOOL" index -i "$T/old.json" -o "$T/new.json" 0.0.2 linux/amd64 new.tar.gz "$T/a.tar.gz"
	run "$SF_TOOL" sign-index -s "$T/k.key" "$T/new.json"
	assert_output "trusted comment: magus-release-index 0.0.1=linux/amd64 0.0.2=linux/amd64"
}

@test "make platform-store and make release say what they need" {
	run env -u MAKEFLAGS -u MAKELEVEL -u MAGUS_ROOT \
		"$SF_RELEASE/platform-store.sh" --build-dir "$MAGUS_BUILD_DIR"
	assert_failure
	assert_output --partial "MAGUS_ROOT"
	run env -u MAKEFLAGS -u MAKELEVEL make -s -C "$MAGUS_BUILD_DIR" release
	[ "$status" -eq 2 ]
	assert_output --partial "RELEASE_KEY"
	run "$SF_RELEASE/inner-build.sh" --build-dir "$MAGUS_BUILD_DIR" \
		--platform linux/s390x --out "$T/x"
	assert_failure
	assert_output --partial "linux/s390x"
	[ ! -e "$T/x" ]
}
