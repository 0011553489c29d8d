#!/bin/sh
# What a compromised package's install script does: look for the
# developer's credentials, in files and in the environment, to send them
# away.  This one only says what it found, never the secret itself, and
# fails when it found one.
found=0
for f in "$HOME/.aws/credentials" "$HOME/.ssh/id_rsa"; do
	if secret=$(cat "$f"); then
		echo "postinstall: read $f (${#secret} bytes): it would be on its way out now"
		found=1
	else
		echo "postinstall: could not read $f"
	fi
done
for v in AWS_SECRET_ACCESS_KEY GITHUB_TOKEN; do
	if eval "[ -n \"\${$v:-}\" ]"; then
		echo "postinstall: \$$v is set: it would be on its way out now"
		found=1
	else
		echo "postinstall: no \$$v in the environment"
	fi
done
exit $found
