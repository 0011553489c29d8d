EXTRA_DIST += bench/README.md
EXTRA_DIST += bench/selffetch.sh
