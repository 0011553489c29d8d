#include "compat.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "scip.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

/* ---- the protobuf wire format ------------------------------------------ */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* A reader over the whole buffer; positions are offsets into it, so a
 * refusal names the byte where it happened. */
struct rd {
	const uint8_t *p;
	size_t len;
	struct strbuf *why;
};

struct field {
	uint32_t num;
	unsigned wt;
	size_t at;		/* offset of the tag */
	uint64_t v;		/* WT_VARINT */
	size_t data;		/* WT_LEN: offset of the payload */
	size_t size;		/*         and its length */
};

static int PRINTF_LIKE(3, 4)
refuse(struct rd *r, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (!r->why)
		return -1;
	strbuf_addf(r->why, "at byte %zu: ", at);
	va_start(ap, fmt);
	strbuf_vaddf(r->why, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * A varint at *pos, ending before `end`.  Ten bytes at most, the tenth
 * holding only the top bit of a 64-bit value.
 */
static int
varint(struct rd *r, size_t *pos, size_t end, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < 10; i++) {
		uint8_t b;

		if (*pos + i >= end)
			return refuse(r, *pos, "a varint is cut off");
		b = r->p[*pos + i];
		if (i == 9 && b > 1)
			return refuse(r, *pos, "a varint overflows 64 bits");
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*pos += i + 1;
			*out = v;
			return 0;
		}
	}
	return refuse(r, *pos, "a varint overflows 64 bits");
}

/* The next field in [*pos, end): 1 with *f filled, 0 at the end, -1. */
static int
next_field(struct rd *r, size_t *pos, size_t end, struct field *f)
{
	uint64_t tag, n;

	if (*pos >= end)
		return 0;
	memset(f, 0, sizeof(*f));
	f->at = *pos;
	if (varint(r, pos, end, &tag) < 0)
		return -1;
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
		return refuse(r, f->at, "field number %llu is out of range",
		    (unsigned long long)(tag >> 3));
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	switch (f->wt) {
	case WT_VARINT:
		return varint(r, pos, end, &f->v) < 0 ? -1 : 1;
	case WT_I64:
	case WT_I32:
		n = f->wt == WT_I64 ? 8 : 4;
		if (end - *pos < n)
			return refuse(r, f->at, "field %u is cut off", f->num);
		*pos += n;
		return 1;
	case WT_LEN:
		if (varint(r, pos, end, &n) < 0)
			return -1;
		if (n > end - *pos)
			return refuse(r, f->at, "field %u claims %llu bytes, "
			    "%zu remain", f->num, (unsigned long long)n,
			    end - *pos);
		f->data = *pos;
		f->size = (size_t)n;
		*pos += (size_t)n;
		return 1;
	default:
		return refuse(r, f->at, "field %u has wire type %u, which "
		    "SCIP never uses", f->num, f->wt);
	}
}

static int
expect_wt(struct rd *r, const struct field *f, unsigned wt, const char *name)
{
	if (f->wt == wt)
		return 0;
	return refuse(r, f->at, "%s (field %u) has wire type %u, not %u",
	    name, f->num, f->wt, wt);
}

/* Every field of a message we do not interpret is still well framed. */
static int
check_frames(struct rd *r, size_t pos, size_t end)
{
	struct field f;
	int k;

	while ((k = next_field(r, &pos, end, &f)) > 0)
		;
	return k;
}

static bool
utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t k, need;
		uint32_t cp;

		if (c < 0x80) {
			if (c == 0)
				return false;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, cp = c & 0x07;
		else
			return false;
		if (n - i <= need)
			return false;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 &&
		    cp <= 0xdfff))) || (need == 3 && (cp < 0x10000 ||
		    cp > 0x10ffff)))
			return false;
		i += need + 1;
	}
	return true;
}

/* scip.proto's rules for Document.relative_path. */
static const char *
relative_path_error(const uint8_t *s, size_t n)
{
	size_t i, start = 0;

	if (n == 0)
		return "is empty";
	if (!utf8_valid(s, n))
		return "is not UTF-8 (or holds a NUL)";
	if (s[0] == '/')
		return "is absolute";
	for (i = 0; i <= n; i++) {
		size_t len;

		if (i < n && s[i] != '/')
			continue;
		len = i - start;
		if (len == 0)
			return "has an empty component";
		if (len == 1 && s[start] == '.')
			return "has a '.' component";
		if (len == 2 && s[start] == '.' && s[start + 1] == '.')
			return "has a '..' component";
		start = i + 1;
	}
	return NULL;
}

static int
check_tool_info(struct rd *r, size_t pos, size_t end, struct scip_facts *fx)
{
	struct field f;
	int k;

	while ((k = next_field(r, &pos, end, &f)) > 0) {
		if (f.num > 3)
			continue;
		if (expect_wt(r, &f, WT_LEN, "a ToolInfo string") < 0)
			return -1;
		if (!utf8_valid(r->p + f.data, f.size))
			return refuse(r, f.at, "ToolInfo field %u is not "
			    "UTF-8", f.num);
		if (f.num == 1)
			copy_truncated(fx->tool, sizeof(fx->tool),
			    r->p + f.data, f.size);
		else if (f.num == 2)
			copy_truncated(fx->tool_version,
			    sizeof(fx->tool_version), r->p + f.data, f.size);
	}
	return k;
}

static int
check_metadata(struct rd *r, size_t pos, size_t end, struct scip_facts *fx)
{
	struct field f;
	int k;

	while ((k = next_field(r, &pos, end, &f)) > 0) {
		switch (f.num) {
		case 1: /* version */
		case 4: /* text_document_encoding */
			if (expect_wt(r, &f, WT_VARINT, "an enum") < 0)
				return -1;
			break;
		case 2:
			if (expect_wt(r, &f, WT_LEN, "tool_info") < 0 ||
			    check_tool_info(r, f.data, f.data + f.size,
			    fx) < 0)
				return -1;
			break;
		case 3:
			if (expect_wt(r, &f, WT_LEN, "project_root") < 0)
				return -1;
			if (!utf8_valid(r->p + f.data, f.size))
				return refuse(r, f.at, "project_root is not "
				    "UTF-8");
			break;
		default:
			break;
		}
	}
	return k;
}

static int
check_document(struct rd *r, size_t pos, size_t end)
{
	struct field f;
	const char *bad;
	bool have_path = false;
	size_t start = pos;
	int k;

	while ((k = next_field(r, &pos, end, &f)) > 0) {
		if (f.num != 1) {
			if (f.wt == WT_LEN && f.num <= 3 &&
			    check_frames(r, f.data, f.data + f.size) < 0)
				return -1;
			continue;
		}
		if (expect_wt(r, &f, WT_LEN, "relative_path") < 0)
			return -1;
		bad = relative_path_error(r->p + f.data, f.size);
		if (bad)
			return refuse(r, f.at, "a document's relative_path "
			    "'%.*s' %s", (int)(f.size > 200 ? 200 : f.size),
			    (const char *)r->p + f.data, bad);
		have_path = true;
	}
	if (k < 0)
		return -1;
	if (!have_path)
		return refuse(r, start, "a document has no relative_path");
	return 0;
}

int
scip_check(const uint8_t *p, size_t len, struct scip_facts *facts,
    struct strbuf *why)
{
	struct rd r = { p, len, why };
	struct scip_facts fx;
	struct field f;
	size_t pos = 0;
	bool first = true;
	int k;

	memset(&fx, 0, sizeof(fx));
	if (len == 0)
		return refuse(&r, 0, "the index is empty");
	while ((k = next_field(&r, &pos, len, &f)) > 0) {
		if (first && f.num != 1)
			return refuse(&r, f.at, "the index does not start "
			    "with its metadata (field 1) but with field %u",
			    f.num);
		switch (f.num) {
		case 1:
			if (!first)
				return refuse(&r, f.at, "the metadata appears "
				    "a second time");
			if (expect_wt(&r, &f, WT_LEN, "metadata") < 0 ||
			    check_metadata(&r, f.data, f.data + f.size,
			    &fx) < 0)
				return -1;
			break;
		case 2:
			if (expect_wt(&r, &f, WT_LEN, "a document") < 0 ||
			    check_document(&r, f.data, f.data + f.size) < 0)
				return -1;
			fx.documents++;
			break;
		case 3:
			if (expect_wt(&r, &f, WT_LEN, "an external symbol") <
			    0 || check_frames(&r, f.data, f.data + f.size) <
			    0)
				return -1;
			fx.external_symbols++;
			break;
		default:
			break;
		}
		first = false;
	}
	if (k < 0)
		return -1;
	if (facts)
		*facts = fx;
	return 0;
}

int
scip_check_fd(int fd, struct scip_facts *facts, struct strbuf *why)
{
	struct stat st;
	void *m;
	int r;

	if (fstat(fd, &st) < 0) {
		if (why)
			strbuf_addf(why, "cannot stat the index: %s",
			    strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (why)
			strbuf_addstr(why, "the index is not a regular file");
		return -1;
	}
	if (st.st_size == 0)
		return scip_check(NULL, 0, facts, why);
	if ((unsigned long long)st.st_size > SIZE_MAX) {
		if (why)
			strbuf_addstr(why, "the index is too large to read");
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		if (why)
			strbuf_addf(why, "cannot map the index: %s",
			    strerror(errno));
		return -1;
	}
	r = scip_check(m, (size_t)st.st_size, facts, why);
	munmap(m, (size_t)st.st_size);
	return r;
}

/* ---- built-in indexers ------------------------------------------------- */

/*
 * Each runs read-only and offline in its container (the workspace is
 * mounted read-only, there is no network, HOME and the caches are under
 * {work}):
 *
 * - scip-go: the module, its version and the repository root are given,
 *   so nothing is inferred from git; GOPROXY=off and GOTOOLCHAIN=local
 *   (set by magus-scip) keep the go command from fetching a module or a
 *   toolchain.  GOFLAGS stays unset: -mod=mod would let go rewrite
 *   go.mod (refused on a read-only checkout) and fetch; go's own default
 *   (-mod=readonly, or -mod=vendor when a vendor directory is consistent)
 *   is the read-only one.
 * - scip-typescript: never --infer-tsconfig, which writes a tsconfig.json
 *   into the project.
 * - scip-python: --project-version instead of the git revision, and an
 *   --environment file listing no packages instead of running pip.
 */
static const char *const cmd_scip_go[] = {
	"scip-go", "--output={output}", "--repository-root={root}",
	"--module-version=local", NULL,
};
static const char *const cmd_scip_typescript[] = {
	"scip-typescript", "index", "--cwd", "{project}", "--output",
	"{output}", NULL,
};
static const char *const cmd_scip_python[] = {
	"scip-python", "index", "--cwd", "{project}", "--output", "{output}",
	"--project-version", "local", "--environment",
	"{work}/empty-environment.json", NULL,
};

static const struct {
	const char *tool;
	const char *const *argv;
} builtin_tools[] = {
	{ "scip-go", cmd_scip_go },
	{ "scip-typescript", cmd_scip_typescript },
	{ "scip-python", cmd_scip_python },
};

const char *const *
scip_tool_command(const char *tool)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(builtin_tools); i++)
		if (!strcmp(tool, builtin_tools[i].tool))
			return builtin_tools[i].argv;
	return NULL;
}

/* ---- projects and their directories ---------------------------------- */

const char *
scip_project_error(const char *project)
{
	const char *c = project, *slash;

	if (!strcmp(project, "."))
		return NULL;
	if (!*project)
		return "it is empty";
	if (project[0] == '/')
		return "it is absolute";
	if (strstr(project, "::"))
		return "it holds '::'";
	for (;;) {
		size_t n;

		slash = strchr(c, '/');
		n = slash ? (size_t)(slash - c) : strlen(c);
		if (n == 0)
			return "it has an empty component (or ends with '/')";
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' &&
		    c[1] == '.'))
			return "it has a '.' or '..' component";
		if ((n == strlen(SCIP_INDEX_FILE) &&
		    !strncmp(c, SCIP_INDEX_FILE, n)) ||
		    (n == strlen(SCIP_STATUS_FILE) &&
		    !strncmp(c, SCIP_STATUS_FILE, n)) ||
		    (n >= 6 && !strncmp(c, ".magus", 6)))
			return "a component is a name the index directory "
			    "keeps for itself";
		if (!slash)
			return NULL;
		c = slash + 1;
	}
}

const char *
scip_image_digest(const char *ref)
{
	const char *at = strrchr(ref, '@'), *hex;
	size_t i;

	if (!at || at == ref || !starts_with(at + 1, "sha256:"))
		return NULL;
	hex = at + 1 + strlen("sha256:");
	for (i = 0; hex[i]; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') ||
		    (hex[i] >= 'a' && hex[i] <= 'f')))
			return NULL;
	return i == 64 ? at + 1 : NULL;
}

char *
scip_index_dir(const char *cache_dir, const char *project)
{
	if (!strcmp(project, "."))
		return xasprintf("%s/index", cache_dir);
	return xasprintf("%s/index/%s", cache_dir, project);
}
