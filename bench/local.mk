EXTRA_DIST += bench/README.md
