/*
 * plan_file.c - a plan file loaded for the kernel command line (see
 * plan_file.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "arch.h"
#include "config.h"
#include "log.h"
#include "plan.h"
#include "plan_file.h"

static int cmdline_add(struct plan_file *pf, char *text, struct strbuf *err)
{
	struct strbuf val = STRBUF_INIT;
	char *line, *save = NULL;
	int ret = -1;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (strchr(line, '"') || strchr(line, ';')) {
			strbuf_addf(err, "%s: '\"' or ';' cannot go on the "
				    "kernel command line", pf->path);
			goto out;
		}
		if (val.len)
			strbuf_addch(&val, ';');
		strbuf_addstr(&val, line);
	}
	strbuf_addf(&pf->cmdline, "kregress.plan=\"%s\"", val.buf);
	if (pf->cmdline.len > PLAN_FILE_CMDLINE_MAX) {
		strbuf_addf(err, "%s: %zu bytes on the kernel command line, "
			    "more than %d", pf->path, pf->cmdline.len,
			    PLAN_FILE_CMDLINE_MAX);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&val);
	return ret;
}

int plan_file_load(struct plan_file *pf, const char *path,
		   struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char msg[256];
	int ret = -1;

	pf->path = xstrdup(path);
	pf->plan = xmalloc(sizeof(*pf->plan));
	strbuf_init(&pf->cmdline);
	if (strbuf_read_file_why(&text, path, PLAN_TEXT_MAX, err) < 0)
		goto out;
	if (plan_parse(pf->plan, text.buf, text.len, msg, sizeof(msg)) < 0) {
		strbuf_addf(err, "%s: %s", path, msg);
		goto out;
	}
	ret = cmdline_add(pf, text.buf, err);
out:
	strbuf_release(&text);
	return ret;
}

void plan_file_release(struct plan_file *pf)
{
	free(pf->path);
	free(pf->plan);
	strbuf_release(&pf->cmdline);
	pf->path = NULL;
	pf->plan = NULL;
}

int plan_file_load_configured(struct plan_file *pf, const struct config *cfg,
			      const struct arch *arch, enum arch_accel accel,
			      struct strbuf *reason)
{
	const char *path = cfg->plans[arch_index(arch)][accel];
	struct strbuf dflt = STRBUF_INIT, err = STRBUF_INIT;
	int ret = 0;

	if (!path) {
		strbuf_addf(&dflt, "%s/plans/default-%s.plan",
			    KREGRESS_DATADIR, arch_accel_str(accel));
		path = dflt.buf;
	}
	if (plan_file_load(pf, path, &err)) {
		strbuf_addf(reason, "%s: the plan cannot be used: %s",
			    arch->name, err.buf);
		ret = -1;
	}
	strbuf_release(&dflt);
	strbuf_release(&err);
	return ret;
}
