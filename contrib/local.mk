EXTRA_DIST += contrib/lint.sh contrib/completion/magus.bash
EXTRA_DIST += contrib/setup.sh contrib/debian-packages.txt \
	contrib/debian-packages-arm64.txt
