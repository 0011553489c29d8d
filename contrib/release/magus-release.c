/*
 * magus-release: the release tooling's small C half.  It makes and reads
 * minisign keys, signs and verifies in minisign's format (lib/minisign.h),
 * checks an inner build (lib/innerbuild.h), writes the release index
 * (lib/relindex.h), and replaces a directory in one step.  The scripts
 * beside it drive it; it is built, never installed.
 */
#include "compat.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "diag.h"
#include "digest.h"
#include "dirutil.h"
#include "innerbuild.h"
#include "minisign.h"
#include "platform.h"
#include "proc.h"
#include "relindex.h"
#include "strbuf.h"
#include "strutil.h"
#include "xalloc.h"

static const char usage_text[] =
    "usage: magus-release keygen [-f] -p PUBFILE -s SECFILE\n"
    "       magus-release sign -s SECFILE [-c COMMENT] [-t TRUSTED] "
    "[-x SIGFILE] FILE\n"
    "       magus-release sign-index -s SECFILE [-x SIGFILE] INDEX\n"
    "       magus-release verify -p PUBKEY [-x SIGFILE] FILE\n"
    "       magus-release check [-f] [-s SOURCE] DIR OS/ARCH VERSION\n"
    "       magus-release find CACHEDIR OS/ARCH\n"
    "       magus-release index [-i OLD] -o OUT VERSION "
    "[PLATFORM URL TARBALL]...\n"
    "       magus-release install SRCDIR DSTDIR\n";

static void NORETURN
usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static void
read_or_die(const char *path, struct strbuf *sb)
{
	if (strbuf_read_file(sb, path) < 0)
		die_status(1, "cannot read '%s': %s", path, strerror(errno));
}

/* Write a whole file, created new (O_EXCL unless `force`), with `mode`. */
static void
write_file(const char *path, const char *data, size_t len, mode_t mode,
    bool force)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    (force ? O_TRUNC : O_EXCL), mode);
	size_t off = 0;

	if (fd < 0)
		die_status(1, "cannot create '%s': %s", path, strerror(errno));
	while (off < len) {
		ssize_t n = RETRY_EINTR(write(fd, data + off, len - off));

		if (n < 0)
			die_status(1, "cannot write '%s': %s", path,
			    strerror(errno));
		off += (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0)
		die_status(1, "cannot write '%s': %s", path, strerror(errno));
}

/* Write next to `path` and rename over it, so a reader never sees half. */
static void
replace_file(const char *path, const struct strbuf *sb, mode_t mode)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());

	unlink(tmp);
	write_file(tmp, sb->buf, sb->len, mode, false);
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		die_status(1, "cannot rename '%s' to '%s': %s", tmp, path,
		    strerror(errno));
	}
	free(tmp);
}

static void
load_seckey(const char *path, struct minisign_seckey *sk)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

	read_or_die(path, &text);
	if (minisign_seckey_parse(text.buf, sk, &err) < 0)
		die_status(1, "'%s': %s", path, err.buf);
	OPENSSL_cleanse(text.buf, text.len);
	strbuf_release(&text);
	strbuf_release(&err);
}

/*
 * getopt(3) over spec: each option's argument, or "" for a flag, lands
 * in opt[letter - 'a'] (OPT(opt, letter) names it), the last one given
 * winning.  Anything else is a usage error.  Returns the first operand's
 * index.
 */
#define OPT(opt, letter) ((opt)[(letter) - 'a'])

static int
options(int argc, char **argv, const char *spec, const char *opt[26])
{
	const char *at;
	int c;

	while ((c = getopt(argc, argv, spec)) != -1) {
		if (c < 'a' || c > 'z' || !(at = strchr(spec, c)))
			usage(2);
		OPT(opt, c) = at[1] == ':' ? optarg : "";
	}
	return optind;
}

static void
parse_platform(const char *s, struct platform *p)
{
	struct strbuf err = STRBUF_INIT;

	if (platform_parse(s, p, &err) < 0)
		die_status(2, "%s", err.buf);
	strbuf_release(&err);
}

static int
cmd_keygen(int argc, char **argv)
{
	const char *opt[26] = { NULL }, *pub, *sec;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct minisign_seckey sk;
	struct minisign_pubkey pk;
	bool force;

	if (options(argc, argv, "fp:s:", opt) != argc)
		usage(2);
	force = OPT(opt, 'f') != NULL;
	pub = OPT(opt, 'p');
	sec = OPT(opt, 's');
	if (!pub || !sec)
		usage(2);
	if (minisign_keygen(&sk, &err) < 0)
		die_status(1, "%s", err.buf);
	minisign_seckey_write(&sk, &out);
	write_file(sec, out.buf, out.len, 0600, force);
	OPENSSL_cleanse(out.buf, out.len);
	strbuf_reset(&out);
	minisign_seckey_pubkey(&sk, &pk);
	minisign_seckey_clear(&sk);
	minisign_pubkey_write(&pk, &out);
	write_file(pub, out.buf, out.len, 0644, force);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&err);
	return 0;
}

static void
sign_file(const char *seckey, const char *file, const char *sigfile,
    const char *comment, const char *trusted)
{
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct minisign_seckey sk;
	char *path = sigfile ? xstrdup(sigfile) : xasprintf("%s.minisig",
	    file);

	read_or_die(file, &msg);
	load_seckey(seckey, &sk);
	if (minisign_sign(&sk, msg.buf, msg.len, comment, trusted, &out,
	    &err) < 0)
		die_status(1, "cannot sign '%s': %s", file, err.buf);
	minisign_seckey_clear(&sk);
	replace_file(path, &out, 0644);
	free(path);
	strbuf_release(&msg);
	strbuf_release(&out);
	strbuf_release(&err);
}

static int
cmd_sign(int argc, char **argv)
{
	const char *opt[26] = { NULL }, *comment, *trusted;
	char *deftrusted = NULL;

	if (options(argc, argv, "c:s:t:x:", opt) != argc - 1 ||
	    !OPT(opt, 's'))
		usage(2);
	comment = OPT(opt, 'c') ? OPT(opt, 'c') :
	    "signature from magus-release secret key";
	trusted = OPT(opt, 't');
	if (!trusted) {
		const char *slash = strrchr(argv[optind], '/');

		deftrusted = xasprintf("file:%s",
		    slash ? slash + 1 : argv[optind]);
		trusted = deftrusted;
	}
	sign_file(OPT(opt, 's'), argv[optind], OPT(opt, 'x'), comment,
	    trusted);
	free(deftrusted);
	return 0;
}

static int
cmd_sign_index(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, tc = STRBUF_INIT;
	const char *opt[26] = { NULL };
	struct relindex ix;

	if (options(argc, argv, "s:x:", opt) != argc - 1 || !OPT(opt, 's'))
		usage(2);
	read_or_die(argv[optind], &text);
	if (relindex_parse(&ix, text.buf, text.len, &err) < 0)
		die_status(1, "'%s': %s", argv[optind], err.buf);
	relindex_trusted_comment(&ix, &tc);
	sign_file(OPT(opt, 's'), argv[optind], OPT(opt, 'x'),
	    "magus release index signature", tc.buf);
	printf("trusted comment: %s\n", tc.buf);
	relindex_release(&ix);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&tc);
	return 0;
}

static int
cmd_verify(int argc, char **argv)
{
	struct strbuf msg = STRBUF_INIT, sigtext = STRBUF_INIT;
	struct strbuf key = STRBUF_INIT, err = STRBUF_INIT;
	const char *opt[26] = { NULL }, *pub, *sigfile;
	struct minisign_pubkey pk;
	struct minisign_sig sig;
	char *path;

	if (options(argc, argv, "p:x:", opt) != argc - 1 || !OPT(opt, 'p'))
		usage(2);
	pub = OPT(opt, 'p');
	sigfile = OPT(opt, 'x');
	/* -p is a minisign.pub file or the key's base64 line itself. */
	if (minisign_pubkey_parse(pub, &pk, &err) < 0) {
		read_or_die(pub, &key);
		strbuf_reset(&err);
		if (minisign_pubkey_parse(key.buf, &pk, &err) < 0)
			die_status(1, "'%s': %s", pub, err.buf);
	}
	path = sigfile ? xstrdup(sigfile) : xasprintf("%s.minisig",
	    argv[optind]);
	read_or_die(argv[optind], &msg);
	read_or_die(path, &sigtext);
	if (minisign_sig_parse(sigtext.buf, sigtext.len, &sig, &err) < 0)
		die_status(1, "'%s': %s", path, err.buf);
	if (minisign_verify(&pk, &sig, msg.buf, msg.len, &err) != MINISIGN_OK)
		die_status(1, "'%s': %s", argv[optind], err.buf);
	printf("signature and trusted comment verified\n"
	    "trusted comment: %s\n", sig.trusted_comment);
	minisign_sig_release(&sig);
	free(path);
	strbuf_release(&msg);
	strbuf_release(&sigtext);
	strbuf_release(&key);
	strbuf_release(&err);
	return 0;
}

static int
cmd_check(int argc, char **argv)
{
	struct strbuf why = STRBUF_INIT;
	const char *opt[26] = { NULL };
	unsigned flags = INNER_VERIFY_HASHES;
	struct platform p;

	if (options(argc, argv, "fs:", opt) != argc - 3)
		usage(2);
	if (OPT(opt, 'f'))
		flags |= INNER_VERIFY_FETCHED; /* a self-fetch entry */
	parse_platform(argv[optind + 1], &p);
	if (innerbuild_verify(argv[optind], &p, argv[optind + 2],
	    OPT(opt, 's'), flags, &why) != INNER_OK)
		die_status(1, "%s", why.buf);
	printf("%s: a good inner build of magus %s for %s\n", argv[optind],
	    argv[optind + 2], platform_str(&p));
	strbuf_release(&why);
	return 0;
}

/* What the relay sees: innerbuild_find() for a workspace's cache.dir. */
static int
cmd_find(int argc, char **argv)
{
	static const char *const states[] = { "ok", "missing", "stale",
		"wrong-platform", "damaged" };
	struct inner_lookup l;
	struct platform p;
	enum inner_state st;

	if (argc != 3)
		usage(2);
	parse_platform(argv[2], &p);
	st = innerbuild_find(argv[1], &p, INNER_VERIFY_HASHES, &l);
	printf("state %s\nfrom %s\ndir %s\n", states[st],
	    l.from == INNER_FROM_STORE ? "store" : "cache",
	    l.dir ? l.dir : "-");
	if (st != INNER_OK)
		printf("why %s\nfix %s\n", l.why.buf, l.fix.buf);
	inner_lookup_release(&l);
	return st == INNER_OK ? 0 : 1;
}

static int
cmd_index(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	const char *opt[26] = { NULL }, *old, *out, *version;
	struct relindex ix = RELINDEX_INIT;
	int i;

	i = options(argc, argv, "i:o:", opt);
	old = OPT(opt, 'i');
	out = OPT(opt, 'o');
	if (!out || i >= argc || (argc - i - 1) % 3)
		usage(2);
	if (old) {
		read_or_die(old, &text);
		if (relindex_parse(&ix, text.buf, text.len, &err) < 0)
			die_status(1, "'%s': %s", old, err.buf);
		strbuf_reset(&text);
	}
	version = argv[optind];
	for (i = optind + 1; i < argc; i += 3) {
		unsigned long long size;
		char hex[65];

		if (sha256_file_hex(argv[i + 2], hex, &size, &err) < 0)
			die_status(1, "%s", err.buf);
		if (relindex_set(&ix, version, argv[i], argv[i + 1], size, hex,
		    &err) < 0)
			die_status(2, "%s", err.buf);
	}
	relindex_write(&ix, &text);
	replace_file(out, &text, 0644);
	relindex_release(&ix);
	strbuf_release(&text);
	strbuf_release(&err);
	return 0;
}

static int
cmd_install(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;

	if (argc != 3)
		usage(2);
	if (dir_replace(argv[1], argv[2], &err) < 0)
		die_status(1, "%s", err.buf);
	if (fsync_path(argv[2], &err) < 0)
		die_status(1, "%s", err.buf);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "keygen", cmd_keygen }, { "sign", cmd_sign },
		{ "sign-index", cmd_sign_index }, { "verify", cmd_verify },
		{ "check", cmd_check }, { "find", cmd_find },
		{ "index", cmd_index }, { "install", cmd_install },
	};
	size_t i;

	sane_start();
	diag_init(argv[0]);
	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		usage(0);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	error_msg("unknown command '%s'", argv[1]);
	usage(2);
}
