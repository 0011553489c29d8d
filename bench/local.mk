EXTRA_DIST += bench/README.md
EXTRA_DIST += bench/engine-client.sh
EXTRA_DIST += bench/selffetch.sh
