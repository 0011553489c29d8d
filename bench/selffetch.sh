#!/bin/sh
# Fetch and verify a large release artifact from a loopback HTTPS server:
# magus-self-fetch (index, signature, download, size and SHA-256, unpack,
# ELF and BUILD-INFO checks, atomic install) against `curl -o` followed by
# `sha256sum` of the same file, in the same run (hyperfine).
# Target (issue 5): magus-self-fetch no slower than that pair.
#
#   bench/selffetch.sh [BUILD-DIR] [SIZE-MIB]
set -eu

build=$(cd "${1:-.}" && pwd)
mib=${2:-128}
src=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile")
tool=$build/contrib/release/magus-release
httpsd=$build/tests/selffetch/httpsd
fetch=$build/libexec/self-fetch/magus-self-fetch
[ -x "$httpsd" ] || make -s -C "$build" tests/selffetch/httpsd
command -v hyperfine >/dev/null || { echo "bench: needs hyperfine" >&2; exit 1; }

arch=$(sed -n 's/^MAGUS_HOST_ARCH = //p' "$build/Makefile")
version=$("$build/bin-wrappers/magus" --version | sed -n 's/^magus //p')
w=$(mktemp -d "${TMPDIR:-/tmp}/magus-bench.XXXXXX")
pid=""
trap '[ -z "$pid" ] || kill "$pid"; rm -rf "$w"' EXIT

# An inner build whose bin/magus is a real ELF header for this host
# followed by incompressible bytes, so the artifact is SIZE MiB.
mkdir -p "$w/inner/bin" "$w/inner/libexec/magus" "$w/www"
{ head -c 64 "$build/bin/magus"; head -c $((mib * 1024 * 1024)) /dev/urandom; } \
	>"$w/inner/bin/magus"
chmod 755 "$w/inner/bin/magus"
"$src/contrib/release/write-buildinfo.sh" "$w/inner" "$version" "linux/$arch" \
	"$(printf '%064d' 0)"
name=magus-$version-linux-$arch.tar.gz
tar --format=ustar -C "$w/inner" -cf - BUILD-INFO bin libexec | gzip -1n >"$w/www/$name"
"$tool" keygen -p "$w/k.pub" -s "$w/k.key" >/dev/null
"$tool" index -o "$w/www/index.json" "$version" "linux/$arch" "$name" "$w/www/$name"
"$tool" sign-index -s "$w/k.key" "$w/www/index.json" >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$w/srv.key" -out "$w/srv.pem" -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1

"$httpsd" --root "$w/www" --port-file "$w/port" --cert "$w/srv.pem" --key "$w/srv.key" &
pid=$!
while [ ! -s "$w/port" ]; do sleep 0.05; done
url=https://127.0.0.1:$(cat "$w/port")

echo "artifact: $(stat -c %s "$w/www/$name") bytes"
export MAGUS_CA_BUNDLE="$w/srv.pem" XDG_CACHE_HOME="$w/cache"
MAGUS_RELEASE_PUBKEY=$(tail -n 1 "$w/k.pub")
export MAGUS_RELEASE_PUBKEY
hyperfine --warmup 1 --runs 10 --export-markdown "$w/result.md" \
	--prepare "rm -rf '$w/cache' '$w/out.tar.gz'" \
	-n "curl -o + sha256sum" \
	"curl -sS --cacert '$w/srv.pem' -o '$w/out.tar.gz' '$url/$name' && sha256sum '$w/out.tar.gz'" \
	-n "magus-self-fetch" \
	"'$fetch' --index '$url/index.json' linux/$arch"
cat "$w/result.md"
