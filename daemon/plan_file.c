/*
 * plan_file.c - a plan file rendered for the kernel command line (see
 * plan_file.h).  plan_file_text() is the pure part, so that the
 * configuration can check a plan at load time without logging.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "plan.h"
#include "plan_file.h"

int plan_file_text(const char *text, size_t len, struct strbuf *out,
		   unsigned int *memory_mib, unsigned int *vcpus,
		   struct strbuf *err)
{
	struct strbuf copy = STRBUF_INIT, val = STRBUF_INIT;
	struct plan *plan = malloc(sizeof(*plan));	/* ~70 KiB */
	char msg[256], *line, *save = NULL;
	int ret = -1;

	if (!plan)
		die("plan", "out of memory");
	if (plan_parse(plan, text, len, msg, sizeof(msg)) < 0) {
		strbuf_addstr(err, msg);
		goto out;
	}
	if (memory_mib)
		*memory_mib = plan->memory_mib;
	if (vcpus)
		*vcpus = plan->vcpus;
	strbuf_add(&copy, text, len);
	for (line = strtok_r(copy.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (strchr(line, '"') || strchr(line, ';')) {
			strbuf_addstr(err, "'\"' or ';' cannot go on the "
				      "kernel command line");
			goto out;
		}
		if (val.len)
			strbuf_addch(&val, ';');
		strbuf_addstr(&val, line);
	}
	strbuf_addf(out, "kregress.plan=\"%s\"", val.buf);
	if (out->len > PLAN_FILE_CMDLINE_MAX) {
		strbuf_addf(err, "%zu bytes on the kernel command line, more "
			    "than %d", out->len, PLAN_FILE_CMDLINE_MAX);
		goto out;
	}
	ret = 0;
out:
	free(plan);
	strbuf_release(&copy);
	strbuf_release(&val);
	return ret;
}

int plan_file_cmdline(const char *path, struct strbuf *out,
		      unsigned int *memory_mib, unsigned int *vcpus)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	int ret = -1;

	if (strbuf_read_file(&text, path, PLAN_TEXT_MAX) < 0)
		goto out;
	ret = plan_file_text(text.buf, text.len, out, memory_mib, vcpus,
			     &err);
	if (ret)
		error("plan", "%s: %s", path, err.buf);
out:
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}
