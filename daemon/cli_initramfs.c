/*
 * cli_initramfs.c - "kregress initramfs [--gzip] (--out FILE | --cache DIR)
 * [--workloads DIR] [--plan FILE] [SRC:DST[:MODE]...]".
 *
 * --workloads DIR takes the workloads module's per-arch output directory:
 * DIR/init becomes /init, every other regular file in DIR becomes /bin/NAME
 * (mode 0755).  --plan FILE becomes /plan.  Explicit SRC:DST[:MODE] entries
 * (octal mode, default 0644) add anything else.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_initramfs.h"
#include "initramfs.h"
#include "log.h"
#include "strbuf.h"

struct entries {
	struct initramfs_entry e[INITRAMFS_MAX_ENTRIES];
	char *owned[3 * INITRAMFS_MAX_ENTRIES];
	size_t n, nowned;
};

static char *own(struct entries *es, char *s)
{
	if (!s)
		abort();
	if (es->nowned < sizeof(es->owned) / sizeof(es->owned[0]))
		es->owned[es->nowned++] = s;
	return s;
}

static int add(struct entries *es, char *src, char *dst, unsigned int mode)
{
	if (es->n == INITRAMFS_MAX_ENTRIES)
		return error("initramfs", "more than %d files",
			     INITRAMFS_MAX_ENTRIES);
	es->e[es->n].src = src;
	es->e[es->n].dst = dst;
	es->e[es->n].mode = mode;
	es->n++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_workloads(struct entries *es, const char *dir)
{
	struct dirent *de;
	char *names[INITRAMFS_MAX_ENTRIES];
	size_t n = 0, i;
	DIR *d = opendir(dir);
	int ret = -1;

	if (!d)
		return error("initramfs", "%s: cannot open", dir);
	while ((de = readdir(d)) != NULL) {
		struct strbuf p = STRBUF_INIT;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		strbuf_addf(&p, "%s/%s", dir, de->d_name);
		if (!stat(p.buf, &st) && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111)) {
			if (n == INITRAMFS_MAX_ENTRIES) {
				strbuf_release(&p);
				error("initramfs", "%s: too many files", dir);
				goto out;
			}
			names[n++] = own(es, strdup(de->d_name));
		}
		strbuf_release(&p);
	}
	/* readdir order is not stable; the archive must be */
	qsort(names, n, sizeof(names[0]), cmp_name);
	for (i = 0; i < n; i++) {
		struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
		int r;

		strbuf_addf(&src, "%s/%s", dir, names[i]);
		if (!strcmp(names[i], "init"))
			strbuf_addstr(&dst, "/init");
		else
			strbuf_addf(&dst, "/bin/%s", names[i]);
		r = add(es, own(es, strbuf_detach(&src, NULL)),
			own(es, strbuf_detach(&dst, NULL)), 0755);
		if (r)
			goto out;
	}
	ret = 0;
out:
	closedir(d);
	return ret;
}

int cli_initramfs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "cache", required_argument, NULL, 'c' },
		{ "gzip", no_argument, NULL, 'z' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "plan", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct entries *es = calloc(1, sizeof(*es));
	const char *out = NULL, *cache = NULL;
	char *path = NULL;
	int c, gzip = 0, ret = CLI_FAILED;
	size_t i;

	if (!es)
		return CLI_FAILED;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'c': cache = optarg; break;
		case 'z': gzip = 1; break;
		case 'w':
			if (add_workloads(es, optarg))
				goto out;
			break;
		case 'p':
			if (add(es, optarg, "/plan", 0644))
				goto out;
			break;
		default:
			goto usage;
		}
	}
	if (!out == !cache)
		goto usage;
	for (; optind < argc; optind++) {
		char *spec = own(es, strdup(argv[optind]));
		char *dst = strchr(spec, ':'), *mode;
		unsigned long m = 0644;

		if (!dst)
			goto usage;
		*dst++ = '\0';
		mode = strchr(dst, ':');
		if (mode) {
			char *end;

			*mode++ = '\0';
			m = strtoul(mode, &end, 8);
			if (*end || !*mode || m > 07777) {
				error("initramfs", "%s: bad octal mode", mode);
				goto out;
			}
		}
		if (add(es, spec, dst, (unsigned int)m))
			goto out;
	}
	if (out) {
		if (initramfs_write(es->e, es->n, gzip, out))
			goto out;
		printf("%s\n", out);
	} else {
		if (initramfs_cached(es->e, es->n, gzip, cache, &path))
			goto out;
		printf("%s\n", path);
	}
	ret = CLI_OK;
	goto out;
usage:
	ret = cli_usage("initramfs");
out:
	for (i = 0; i < es->nowned; i++)
		free(es->owned[i]);
	free(es);
	free(path);
	return ret;
}
