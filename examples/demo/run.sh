#!/bin/sh
# The quick-start demo: examples/demo's `demo` target through magus's
# sandbox.  A scratch copy of the workspace and a scratch HOME holding a
# fake ~/.aws/credentials and ~/.ssh/id_rsa; a fake AWS_SECRET_ACCESS_KEY
# and GITHUB_TOKEN in the environment; then `magus run demo`.  The build
# step must work, and the "postinstall" step must find nothing.
#
#   ./examples/demo/run.sh
#
# Uses the magus built in this tree (./contrib/setup.sh builds it), else
# the one in $MAGUS_BUILD_DIR, else the first on PATH.  Leaves nothing
# behind.  Exits 0 when the demo showed what it should, 1 otherwise.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

if [ -n "${MAGUS_BUILD_DIR:-}" ] && [ -x "$MAGUS_BUILD_DIR/bin-wrappers/magus" ]; then
	magus=$MAGUS_BUILD_DIR/bin-wrappers/magus
elif [ -x "$top/bin-wrappers/magus" ]; then
	magus=$top/bin-wrappers/magus
elif magus=$(command -v magus); then
	:
else
	echo "demo: no magus: build it first with ./contrib/setup.sh" >&2
	exit 1
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/magus-demo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ws=$scratch/workspace
home=$scratch/home
mkdir -p "$ws/src" "$home/.aws" "$home/.ssh"
cp "$here/magus.yaml" "$here/postinstall.sh" "$ws/"
cp "$here/src/hello.c" "$ws/src/"

# Fake secrets, unique to this run, so a leak is found by its value.
secret=demo-$$-$(date +%s)-not-a-real-secret
printf '[default]\naws_access_key_id = AKIADEMO0000000000\naws_secret_access_key = %s\n' \
	"$secret" >"$home/.aws/credentials"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n' \
	"$secret" >"$home/.ssh/id_rsa"
chmod 0600 "$home/.aws/credentials" "$home/.ssh/id_rsa"

echo "demo: $("$magus" doctor | grep -E '^landlock:' | tr -s ' ')"
echo "demo: workspace $ws"
echo "demo: HOME $home, with a fake ~/.aws/credentials and ~/.ssh/id_rsa;"
echo "demo: a fake AWS_SECRET_ACCESS_KEY and GITHUB_TOKEN in the environment"
echo "demo: \$ magus -v run demo"

# A plain environment and the system's PATH plus the fake secrets, and
# -v, so the sandbox's MGS2003 line names what it stripped (names, never
# values).
status=0
env -i HOME="$home" LANG="${LANG:-C.UTF-8}" \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	${USER:+USER="$USER"} ${TERM:+TERM="$TERM"} \
	${MAGUS_EXEC_PATH:+MAGUS_EXEC_PATH="$MAGUS_EXEC_PATH"} \
	AWS_SECRET_ACCESS_KEY="$secret" GITHUB_TOKEN="$secret" \
	"$magus" -v -C "$ws" run demo >"$scratch/log" 2>&1 || status=$?
sed 's/^/  | /' "$scratch/log"

ok=1
if grep -qF "$secret" "$scratch/log"; then
	echo "demo: FAILED: a secret reached the output"
	ok=0
fi
if [ "$status" -ne 0 ]; then
	echo "demo: FAILED: magus run demo exited with status $status"
	ok=0
fi
if [ "$(cat "$ws/out/hello.txt" 2>/dev/null)" != "hello from a sandboxed build" ]; then
	echo "demo: FAILED: the build step did not write out/hello.txt"
	ok=0
fi
if [ "$ok" -eq 1 ]; then
	echo "demo: the build compiled, ran and wrote out/hello.txt; the"
	echo "demo: credential reads were denied (EACCES, Permission denied) and"
	echo "demo: the secret variables were stripped from the environment"
	exit 0
fi
echo "demo: see 'magus doctor' for what this host's kernel can enforce"
exit 1
