/*
 * plan_file.c - a plan file rendered for the kernel command line (see
 * plan_file.h).
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "plan.h"
#include "plan_file.h"

int plan_file_cmdline(const char *path, struct strbuf *out,
		      unsigned int *memory_mib, unsigned int *vcpus)
{
	struct strbuf text = STRBUF_INIT, val = STRBUF_INIT;
	struct plan *plan = malloc(sizeof(*plan));	/* ~70 KiB */
	char err[256], *line, *save = NULL;
	int ret = -1;

	if (!plan)
		die("plan", "out of memory");
	if (strbuf_read_file(&text, path, PLAN_TEXT_MAX) < 0)
		goto out;
	if (plan_parse(plan, text.buf, text.len, err, sizeof(err)) < 0) {
		error("plan", "%s: %s", path, err);
		goto out;
	}
	if (memory_mib)
		*memory_mib = plan->memory_mib;
	if (vcpus)
		*vcpus = plan->vcpus;
	for (line = strtok_r(text.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (strchr(line, '"') || strchr(line, ';')) {
			error("plan", "%s: '\"' or ';' cannot go on the kernel "
			      "command line", path);
			goto out;
		}
		if (val.len)
			strbuf_addch(&val, ';');
		strbuf_addstr(&val, line);
	}
	strbuf_addf(out, "kregress.plan=\"%s\"", val.buf);
	if (out->len > PLAN_FILE_CMDLINE_MAX) {
		error("plan", "%s: %zu bytes on the kernel command line, more "
		      "than %d", path, out->len, PLAN_FILE_CMDLINE_MAX);
		goto out;
	}
	ret = 0;
out:
	free(plan);
	strbuf_release(&text);
	strbuf_release(&val);
	return ret;
}
