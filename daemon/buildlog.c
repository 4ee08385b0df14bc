/*
 * buildlog.c - kbuild output parsing and warning bookkeeping.
 *
 * Kbuild's quiet output is stable ("  CC      mm/memory.o"), gcc's
 * diagnostics are "path:line:col: warning: text [-Wflag]".  Everything is
 * line-oriented so that a log of any size is parsed in a stream.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buildlog.h"

void buildlog_init(struct buildlog *bl, const char *srctree)
{
	memset(bl, 0, sizeof(*bl));
	bl->srctree = srctree;
	strbuf_init(&bl->objects);
	strbuf_init(&bl->warning_lines);
	strbuf_init(&bl->error_lines);
}

void buildlog_release(struct buildlog *bl)
{
	strbuf_release(&bl->objects);
	strbuf_release(&bl->warning_lines);
	strbuf_release(&bl->error_lines);
}

static int has_line(const char *text, const char *line, size_t len)
{
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			return 1;
		p++;
	}
	return 0;
}

static void strip_dir(char *line, const char *dir)
{
	size_t n;

	if (!dir || !*dir)
		return;
	n = strlen(dir);
	if (!strncmp(line, dir, n) && line[n] == '/')
		memmove(line, line + n + 1, strlen(line + n + 1) + 1);
}

void buildlog_normalise(char *line, const char *srctree)
{
	char *colon, *end, *p;

	strip_dir(line, srctree);
	while (!strncmp(line, "../", 3))
		memmove(line, line + 3, strlen(line + 3) + 1);
	/* "path:12:5: warning" -> "path: warning" */
	colon = strchr(line, ':');
	if (!colon)
		return;
	end = colon;
	for (;;) {
		p = end + 1;
		if (!isdigit((unsigned char)*p))
			break;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ':')
			break;
		end = p;
	}
	if (end != colon)
		memmove(colon, end, strlen(end) + 1);
}

/* "  CC      mm/memory.o" or "  CC [M]  x.o": returns the object or NULL. */
static const char *kbuild_object(const char *line, const char *tag)
{
	size_t n = strlen(tag);

	if (strncmp(line, "  ", 2) || strncmp(line + 2, tag, n) ||
	    line[2 + n] != ' ')
		return NULL;
	line += 2 + n;
	while (*line == ' ')
		line++;
	if (!strncmp(line, "[M]", 3))
		line += 3;
	while (*line == ' ')
		line++;
	return *line ? line : NULL;
}

static int is_error_line(const char *line)
{
	return strstr(line, ": error: ") || strstr(line, ": fatal error: ") ||
	       strstr(line, ": undefined reference to ") ||
	       !strncmp(line, "make: *** ", 10) ||
	       (!strncmp(line, "make[", 5) && strstr(line, "]: *** ")) ||
	       !strncmp(line, "kregress: ", 10);
}

void buildlog_feed(struct buildlog *bl, const char *data, size_t len)
{
	char line[BUILDLOG_LINE_MAX];
	const char *obj;

	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, data, len);
	line[len] = '\0';

	if ((obj = kbuild_object(line, "CC")) != NULL) {
		bl->compiled++;
		strbuf_addf(&bl->objects, "%s\n", obj);
		return;
	}
	if ((obj = kbuild_object(line, "AS")) != NULL) {
		strbuf_addf(&bl->objects, "%s\n", obj);
		return;
	}
	if (strstr(line, "Network is unreachable") ||
	    strstr(line, "Temporary failure in name resolution") ||
	    strstr(line, "Could not resolve host") ||
	    strstr(line, "Name or service not known"))
		bl->net_blocked = 1;
	if (strstr(line, "Read-only file system"))
		bl->write_blocked = 1;
	if (strstr(line, ": warning: ")) {
		bl->warnings++;
		strip_dir(line, bl->srctree_rel);
		buildlog_normalise(line, bl->srctree);
		if (!has_line(bl->warning_lines.buf, line, strlen(line)))
			strbuf_addf(&bl->warning_lines, "%s\n", line);
		return;
	}
	if (is_error_line(line)) {
		bl->errors++;
		if (bl->errors <= BUILDLOG_MAX_ERRORS) {
			if (strstr(line, "error: ")) {
				strip_dir(line, bl->srctree_rel);
				buildlog_normalise(line, bl->srctree);
			}
			strbuf_addf(&bl->error_lines, "%s\n", line);
		}
	}
}

int buildlog_count_lines(const char *text)
{
	int n = 0;

	while (*text) {
		const char *nl = strchr(text, '\n');

		if (!nl)
			nl = text + strlen(text);
		if (nl != text)
			n++;
		text = *nl ? nl + 1 : nl;
	}
	return n;
}

/* The source path of a warning line: the text before the first ':'. */
static size_t warning_path_len(const char *line, size_t len)
{
	const char *c = memchr(line, ':', len);

	return c ? (size_t)(c - line) : 0;
}

/* Was the source of this warning rebuilt, according to objects? */
static int source_rebuilt(const char *objects, const char *path, size_t plen)
{
	char obj[BUILDLOG_LINE_MAX];

	/* "mm/memory.c" or "arch/x86/entry/entry_64.S" -> "... .o" */
	if (plen < 3 || plen >= sizeof(obj) || path[plen - 2] != '.')
		return 0;
	memcpy(obj, path, plen - 1);
	obj[plen - 1] = 'o';
	obj[plen] = '\0';
	return has_line(objects, obj, plen);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits text into lines (pointers into a copy), appends them to v. */
static void split_lines(char *copy, char ***v, size_t *n, size_t *alloc)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(copy, "\n", &save); tok;
	     tok = strtok_r(NULL, "\n", &save)) {
		ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[(*n)++] = tok;
	}
}

void buildlog_merge_warnings(const char *prev_state, const char *objects,
			     const char *now, struct strbuf *out)
{
	char *a = xstrdup(prev_state), *b = xstrdup(now);
	char **v = NULL;
	size_t n = 0, alloc = 0, i, kept = 0;

	split_lines(a, &v, &n, &alloc);
	/* drop warnings of rebuilt sources from the previous state */
	for (i = 0; i < n; i++) {
		size_t plen = warning_path_len(v[i], strlen(v[i]));

		if (!source_rebuilt(objects, v[i], plen))
			v[kept++] = v[i];
	}
	n = kept;
	split_lines(b, &v, &n, &alloc);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			strbuf_addf(out, "%s\n", v[i]);
	free(v);
	free(a);
	free(b);
}

int buildlog_new_warnings(const char *base, const char *cur,
			  struct strbuf *out)
{
	const char *p = cur;
	int n = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len;

		if (!nl)
			nl = p + strlen(p);
		len = (size_t)(nl - p);
		if (len) {
			char *line = xstrndup(p, len);

			if (!has_line(base, line, len)) {
				strbuf_addf(out, "%s\n", line);
				n++;
			}
			free(line);
		}
		p = *nl ? nl + 1 : nl;
	}
	return n;
}

/* "1m2.50s" -> 62.5 */
static int parse_min_sec(const char **p, double *v)
{
	char *end;
	long m = strtol(*p, &end, 10);
	double sec;

	if (end == *p || *end != 'm' || m < 0)
		return -1;
	*p = end + 1;
	sec = strtod(*p, &end);
	if (end == *p || *end != 's' || sec < 0)
		return -1;
	*p = end + 1;
	*v = m * 60.0 + sec;
	return 0;
}

int buildlog_parse_times(const char *text, double *cpu_s)
{
	const char *p = strchr(text, '\n');
	double user, sys;

	if (!p)
		return -1;
	p++;
	if (parse_min_sec(&p, &user) || *p++ != ' ' ||
	    parse_min_sec(&p, &sys))
		return -1;
	*cpu_s = user + sys;
	return 0;
}
