# magus-relay: one invocation, unchanged, in a container on the platform
# named by --platform, over the Docker Engine API (spec/relay.md).
pkglibexec_PROGRAMS += libexec/relay/magus-relay
libexec_relay_magus_relay_SOURCES = \
	libexec/relay/main.c libexec/relay/relay.h libexec/relay/argv.c \
	libexec/relay/env.c libexec/relay/request.c libexec/relay/run.c
libexec_relay_magus_relay_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(CRYPTO_CFLAGS)
libexec_relay_magus_relay_LDADD = $(ENGINE_LIBS) $(YAML_LIBS) $(CRYPTO_LIBS) -lpthread -lm
