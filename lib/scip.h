/*
 * scip.h: what magus knows about SCIP indexes and the indexers that write
 * them, shared by magus-scip (which runs an indexer) and the front
 * (which declares them and reports on them without connecting anywhere).
 *
 * ---- The index check --------------------------------------------------
 *
 * An indexer's output replaces the good index only when it is a
 * well-formed SCIP protobuf (scip.proto, message Index).  The check reads
 * the wire format itself, field by field:
 *
 *	Index      metadata = 1 (a message, first in the stream, once),
 *	           documents = 2 (repeated message),
 *	           external_symbols = 3 (repeated message)
 *	Metadata   version = 1 (varint), tool_info = 2 (message:
 *	           name = 1, version = 2, arguments = 3, strings),
 *	           project_root = 3 (string), text_document_encoding = 4
 *	Document   relative_path = 1 (string, required), the rest skipped
 *
 * Every varint must end within 10 bytes and within the data, every
 * length must fit what is left of its enclosing message, a field number
 * is never 0, and the wire types are the four protobuf still has (0
 * varint, 1 fixed64, 2 length-delimited, 5 fixed32); groups (3, 4) and
 * 6, 7 are refused.  Unknown fields of Index, Metadata and Document are
 * skipped by their wire type, as protobuf readers do.  A document's
 * relative_path must be non-empty valid UTF-8, relative (no leading
 * '/'), '/'-separated, with no empty, '.' or '..' component: the rules
 * scip.proto states, and the ones that keep a consumer inside the
 * project.  An empty file, or one without metadata, is refused: the spec
 * wants a non-empty index.
 *
 * ---- Built-in indexers ------------------------------------------------
 *
 * scip-go, scip-typescript and scip-python have a default argument
 * vector (see scip.c for each choice); a declaration's `command`
 * replaces it.  Arguments may hold placeholders, replaced by magus-scip
 * before the container is created:
 *
 *	{output}   the file the index is to be written to (temporary)
 *	{project}  the project's directory (absolute, as mounted)
 *	{root}     the workspace root (absolute, as mounted)
 *	{work}     the indexer's writable directory (HOME, caches, tmp)
 *
 * ---- Where things live --------------------------------------------------
 *
 *	<cache.dir>/index/<project>/index.scip     the last good index
 *	<cache.dir>/index/<project>/status.json    the last run's outcome
 *	<cache.dir>/index/<project>/.magus-work/   the indexer's writable
 *	                                           directory (0700)
 *
 * A project "." (the whole workspace) lives in <cache.dir>/index/ itself.
 */
#ifndef MAGUS_SCIP_H
#define MAGUS_SCIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* What the check learned from a well-formed index. */
struct scip_facts {
	size_t documents;
	size_t external_symbols;
	char tool[64];		/* Metadata.tool_info.name, cut to fit */
	char tool_version[64];
};

/*
 * Check `len` bytes at `p` as a SCIP Index.  Returns 0 with *facts
 * filled (facts may be NULL), or -1 with the reason, naming the byte
 * offset, in `why` (may be NULL).
 */
int scip_check(const uint8_t *p, size_t len, struct scip_facts *facts,
    struct strbuf *why);

/*
 * scip_check on the regular file open at `fd` (mapped read-only; the
 * descriptor stays the caller's).  A file that is not regular, or is
 * empty, is refused with the reason in `why`.
 */
int scip_check_fd(int fd, struct scip_facts *facts, struct strbuf *why);

/* ---- indexers ------------------------------------------------------ */

/* The built-in argument vector of `tool` (NULL-terminated), or NULL. */
const char *const *scip_tool_command(const char *tool);

/*
 * NULL when `project` names a project directory magus can index: "." or
 * a canonical relative path ('/'-separated, no empty, '.' or '..'
 * component, no trailing '/', no "::"), none of whose components is a
 * name the index directory keeps for itself (index.scip, status.json,
 * anything starting with ".magus").  Otherwise a static reason.
 */
const char *scip_project_error(const char *project);

/*
 * The digest of an image reference pinned by digest
 * ("name@sha256:<64 lowercase hex>" gives "sha256:..."), or NULL when
 * the reference is not pinned.  (config.h's image_ref_pinned says the
 * same; this one keeps magus-scip free of the YAML reader.)
 */
const char *scip_image_digest(const char *ref);

/* <cache_dir>/index/<project> ("." maps to <cache_dir>/index). */
char *scip_index_dir(const char *cache_dir, const char *project);

#define SCIP_INDEX_FILE "index.scip"
#define SCIP_STATUS_FILE "status.json"
#define SCIP_WORK_DIR ".magus-work"

/* ---- status.json ------------------------------------------------------ */

enum scip_state {
	SCIP_STATE_NONE = 0,	/* never run: no status.json */
	SCIP_STATE_OK,
	SCIP_STATE_UNAVAILABLE,
	SCIP_STATE_OOM,
	SCIP_STATE_FAILED,
};

const char *scip_state_name(enum scip_state s);
enum scip_state scip_state_parse(const char *s);

/*
 * One run's outcome.  Strings may be NULL ("" is written as absent);
 * numbers below 0 are absent.  The front only reads it.
 */
struct scip_status {
	enum scip_state state;
	char *project;
	char *reason;		/* one line: what happened */
	char *fix;		/* the command or setting that fixes it */
	char *code;		/* "MGS5003", when a diagnostic was printed */
	char *time;		/* UTC, RFC 3339: 2026-11-29T21:33:35Z */
	char *image;		/* the reference, pinned by digest */
	char *image_digest;	/* "sha256:..." from the reference */
	long memory_mb;
	double cpus;
	long pids;
	int exit_status;	/* the indexer's, or -1 */
	/* measured from the container's cgroup when it was visible */
	long long peak_memory_bytes;
	long long cpu_usec;
	long long oom_kills;
	/* the index installed by this run (state ok) */
	long long index_bytes;
	long long documents;
};

void scip_status_init(struct scip_status *s);
void scip_status_release(struct scip_status *s);
/* The JSON text of `s` (one object and a newline). */
void scip_status_json(const struct scip_status *s, struct strbuf *out);
/*
 * Write `s` as <dir>/status.json atomically: a temporary file in `dir`,
 * fsync, rename.  Returns 0, or -1 with errno set.
 */
int scip_status_write(const char *dir, const struct scip_status *s);
/*
 * Read <dir>/status.json.  Returns 1 when read, 0 when there is none
 * (never run), -1 when it cannot be read or parsed (reason in `err`).
 */
int scip_status_read(const char *dir, struct scip_status *s,
    struct strbuf *err);

/* The current time as the status writes it. */
void scip_time_now(char buf[32]);

#endif /* MAGUS_SCIP_H */
