/*
 * cli_initramfs.c - "kregress initramfs [--gzip] (--out FILE | --cache DIR)
 * [--workloads DIR] [--plan FILE] [SRC:DST[:MODE]...]".
 *
 * --workloads DIR takes the workloads module's per-arch output directory:
 * DIR/init becomes /init, every other regular file in DIR becomes /bin/NAME
 * (mode 0755).  --plan FILE becomes /plan.  Explicit SRC:DST[:MODE] entries
 * (octal mode, default 0644) add anything else.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cli.h"
#include "cli_initramfs.h"
#include "initramfs.h"
#include "log.h"
#include "strbuf.h"

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
	struct initramfs_list *l = xmalloc(sizeof(*l));
	const char *out = NULL, *cache = NULL;
	char *path = NULL;
	int c, gzip = 0, ret = CLI_FAILED;

	initramfs_list_init(l);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'c': cache = optarg; break;
		case 'z': gzip = 1; break;
		case 'w':
			if (initramfs_list_add_workloads(l, optarg))
				goto out;
			break;
		case 'p':
			if (initramfs_list_add(l, optarg, "/plan", 0644))
				goto out;
			break;
		default:
			goto usage;
		}
	}
	if (!out == !cache)
		goto usage;
	for (; optind < argc; optind++) {
		char *spec = xstrdup(argv[optind]), *dst, *mode;
		unsigned long m = 0644;

		dst = strchr(spec, ':');
		if (!dst) {
			free(spec);
			goto usage;
		}
		*dst++ = '\0';
		mode = strchr(dst, ':');
		if (mode) {
			char *end;

			*mode++ = '\0';
			m = strtoul(mode, &end, 8);
			if (*end || !*mode || m > 07777) {
				error("initramfs", "%s: bad octal mode", mode);
				free(spec);
				goto out;
			}
		}
		c = initramfs_list_add(l, spec, dst, (unsigned int)m);
		free(spec);
		if (c)
			goto out;
	}
	if (out) {
		if (initramfs_write(l->e, l->n, gzip, out))
			goto out;
		printf("%s\n", out);
	} else {
		if (initramfs_cached(l->e, l->n, gzip, cache, &path, NULL))
			goto out;
		printf("%s\n", path);
	}
	ret = CLI_OK;
	goto out;
usage:
	ret = cli_usage("initramfs");
out:
	initramfs_list_release(l);
	free(l);
	free(path);
	return ret;
}
