/*
 * relay.h: what the parts of magus-relay share.
 *
 * magus-relay runs one magus invocation, unchanged, in a container on
 * the platform named by --platform, over the Docker Engine API
 * (spec/relay.md).  Its steps, in main.c's order:
 *
 *	argv.c     the relay's flags; the argv to relay, its verb and its
 *	           path flags; the working directory
 *	env.c      the environment inside: the floor, the told values
 *	request.c  the create request, and --print-request's rendering
 *	run.c      the engine: connect, image, volume, create, attach, wait,
 *	           start, the streams, the signals, inspect, delete
 *
 * Every refusal decided before the socket is touched exits 2; from the
 * first connection until the process inside has started, and for an
 * OOM kill or an engine error after, 71; otherwise the inner status
 * passes through.
 */
#ifndef MAGUS_RELAY_H
#define MAGUS_RELAY_H

#include <stdbool.h>

#include "config.h"
#include "innerbuild.h"
#include "labels.h"
#include "platform.h"
#include "strbuf.h"
#include "strvec.h"

/* Where the inner magus is mounted, and its programs there. */
#define RELAY_INNER_DIR "/usr/local/lib/magus"
#define RELAY_INNER_MAGUS RELAY_INNER_DIR "/bin/magus"
#define RELAY_INNER_EXEC_PATH RELAY_INNER_DIR "/libexec/magus"

/* The pids limit of every relay container (containers.md). */
#define RELAY_PIDS_LIMIT 4096

/* clean.md selects one platform's objects by this label (labels.h names
 * it on the branch that adds magus clean). */
#ifndef LABEL_PLATFORM
#define LABEL_PLATFORM "magus.platform"
#endif

struct relay {
	/* ---- the relay's own flags */
	const char *platform_arg;
	struct platform plat;
	bool emulated;		/* another arch than the host's */
	char *root;		/* --root, resolved (realpath) */
	const char *api_flag;	/* --container-api */
	bool print_request;
	bool fetch;
	bool json;		/* -o json, or MAGUS_OUTPUT=json */
	int verbose;

	/* ---- what runs inside */
	struct strvec inner;	/* the argv after the magus binary */
	const char *verb;	/* "run", "queue gate", ... */
	bool reads_stdin;	/* the verb reads its stdin */
	char *cwd;		/* the working directory, resolved */
	char *config_path;	/* a crossing --config, resolved */
	const char *sandbox_flag; /* a crossing --sandbox */

	/* ---- configuration */
	struct magus_config cfg;
	bool cfg_loaded;
	const struct cfg_image *image;
	const char *url;	/* the engine's unix:// URL */
	struct inner_lookup lookup;
	bool lookup_done;
	char *store;		/* <cache.dir>/platform/<os>-<arch> */

	/* ---- the request */
	char user[64];		/* USER inside */
	char *home;		/* HOME inside: the home volume */
	char volume[96];	/* the home volume's name */
	char name[64];		/* the container's name */
	struct strvec env;	/* the request's Env, NAME=VALUE */
	struct strvec env_from;	/* where each entry of env came from */
	struct magus_labels labels;
	bool tty;		/* stdin, stdout and stderr are terminals */
	unsigned rows, cols;	/* the terminal's size, when tty */
	bool with_stdin;	/* the container's stdin is ours */
	struct strbuf body;	/* the create request, sent byte for byte */
	char *head;		/* queue gate: the HEAD under test */
};

/* ---- argv.c ---------------------------------------------------------- */

/* Parse the relay's flags and the argv to relay (exits 2 on refusal). */
void relay_parse_args(struct relay *r, int argc, char **argv);
/* The usage text, as the man page's SYNOPSIS. */
extern const char relay_usage_text[];

/* ---- env.c ----------------------------------------------------------- */

/* Build r->env: the floor, HOME and USER, TERM and NO_COLOR, the told
 * values; exits 2 (MGS3039) when a told value cannot cross. */
void relay_build_env(struct relay *r);
/* Set NAME=VALUE in r->env (replacing), noting where it came from. */
void relay_env_set(struct relay *r, const char *name, const char *value,
    const char *from);

/* ---- request.c ------------------------------------------------------- */

/* Build r->body, the create request. */
void relay_build_request(struct relay *r);
/* --print-request: the request, the environment, a docker run rendering,
 * on stdout.  Returns the exit status. */
int relay_print_request(struct relay *r);

/* ---- run.c ----------------------------------------------------------- */

/* Connect, run the container and return the exit status. */
int relay_run(struct relay *r);

/* ---- main.c ---------------------------------------------------------- */

/* The short form of the image's digest, for line one ("20d6f2bae9c5"). */
const char *relay_short_digest(const struct relay *r);
/* Under -o json: the last line on stderr, naming the layer the exit
 * status comes from ("relay" or "invocation") and the code, if any. */
void relay_json_exit(const struct relay *r, const char *layer, int status,
    int code);

#endif /* MAGUS_RELAY_H */
