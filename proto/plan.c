/*
 * plan.c - parser of the workload plan format (see plan.h).
 *
 * Shared verbatim by libkregress and the static guest /init: no
 * allocation, no logging, nothing beyond the C library.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

const char *plan_thp_str(enum plan_thp thp)
{
	switch (thp) {
	case PLAN_THP_KEEP:
		return "keep";
	case PLAN_THP_ALWAYS:
		return "always";
	case PLAN_THP_MADVISE:
		return "madvise";
	case PLAN_THP_NEVER:
		return "never";
	}
	return "?";
}

const char *plan_swap_str(enum plan_swap swap)
{
	switch (swap) {
	case PLAN_SWAP_NONE:
		return "none";
	case PLAN_SWAP_ZRAM:
		return "zram";
	case PLAN_SWAP_FILE:
		return "file";
	}
	return "?";
}

const char *plan_clock_str(enum plan_clock clock)
{
	return clock == PLAN_CLOCK_INSTRUCTIONS ? "instructions" : "real";
}

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errsz, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errsz, "line %d: ", line);
	if (n < 0 || (size_t)n >= errsz)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errsz - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Splits s in place into at most max blank-separated words. */
static int split(char *s, char **words, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			*s++ = 0;
		if (!*s)
			return n;
		if (n == max)
			return -1;
		words[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int name_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > PLAN_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

struct parse_state {
	struct plan *plan;
	int seen_header;
	enum plan_thp thp;
	unsigned timeout_s;
};

static int parse_run(struct parse_state *st, char *rest, int ln,
		     char *err, size_t errsz)
{
	struct plan_run *r;
	char *words[PLAN_ARGS_MAX + 2];
	int n, i;

	if (st->plan->nruns == PLAN_RUNS_MAX)
		return fail(err, errsz, ln, "more than %d runs",
			    PLAN_RUNS_MAX);
	r = &st->plan->runs[st->plan->nruns];
	memset(r, 0, sizeof(*r));
	/* rest is shorter than the line, which fits in buf. */
	strcpy(r->buf, rest);
	n = split(r->buf, words, PLAN_ARGS_MAX + 1);
	if (n < 0)
		return fail(err, errsz, ln, "more than %d arguments",
			    PLAN_ARGS_MAX);
	if (n == 0)
		return fail(err, errsz, ln, "run: workload name missing");
	if (!name_valid(words[0]))
		return fail(err, errsz, ln, "run: bad workload name '%.40s'",
			    words[0]);
	for (i = 1; i < n; i++) {
		const char *c;

		for (c = words[i]; *c; c++)
			if ((unsigned char)*c < 0x21 ||
			    (unsigned char)*c > 0x7e)
				return fail(err, errsz, ln,
					    "run: argument %d not printable",
					    i);
	}
	strcpy(r->name, words[0]);
	for (i = 0; i < n; i++)
		r->argv[i] = words[i];
	r->argv[n] = NULL;
	r->argc = n;
	r->thp = st->thp;
	r->timeout_s = st->timeout_s;
	st->plan->nruns++;
	return 0;
}

static int parse_line(struct parse_state *st, char *line, int ln,
		      char *err, size_t errsz)
{
	char copy[PLAN_LINE_MAX];
	char *w[5];
	int n;

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#')
		return 0;
	if (st->seen_header && !strncmp(line, "run", 3) &&
	    (line[3] == ' ' || line[3] == '\t' || !line[3]))
		return parse_run(st, line + 3, ln, err, errsz);
	strcpy(copy, line);
	n = split(copy, w, 4);
	if (!st->seen_header) {
		if (n != 2 || strcmp(w[0], "kregress-plan"))
			return fail(err, errsz, ln,
				    "expected 'kregress-plan 1' first");
		if (strcmp(w[1], "1"))
			return fail(err, errsz, ln,
				    "unsupported plan version '%.20s'", w[1]);
		st->seen_header = 1;
		return 0;
	}
	if (n < 0)
		return fail(err, errsz, ln, "too many words");
	if (!strcmp(w[0], "thp")) {
		static const char *const modes[] = {
			"keep", "always", "madvise", "never",
		};
		int i;

		for (i = 0; n == 2 && i < 4; i++)
			if (!strcmp(w[1], modes[i])) {
				st->thp = (enum plan_thp)i;
				return 0;
			}
		return fail(err, errsz, ln,
			    "thp: expected always, madvise, never or keep");
	}
	if (!strcmp(w[0], "timeout")) {
		if (n != 2 || parse_uint(w[1], 86400, &st->timeout_s) ||
		    !st->timeout_s)
			return fail(err, errsz, ln,
				    "timeout: expected 1..86400 seconds");
		return 0;
	}
	if (!strcmp(w[0], "clock")) {
		if (n == 2 && !strcmp(w[1], "real"))
			st->plan->clock = PLAN_CLOCK_REAL;
		else if (n == 2 && !strcmp(w[1], "instructions"))
			st->plan->clock = PLAN_CLOCK_INSTRUCTIONS;
		else
			return fail(err, errsz, ln, "clock: expected real or "
				    "instructions");
		return 0;
	}
	if (!strcmp(w[0], "machine")) {
		struct plan *p = st->plan;

		if (n != 3 || parse_uint(w[1], 1 << 20, &p->memory_mib) ||
		    p->memory_mib < 64 || parse_uint(w[2], 64, &p->vcpus) ||
		    !p->vcpus)
			return fail(err, errsz, ln, "machine: expected memory "
				    "in MiB (64 or more) and vCPUs (1..64)");
		return 0;
	}
	if (!strcmp(w[0], "swap")) {
		struct plan *p = st->plan;

		if (n == 2 && !strcmp(w[1], "none")) {
			p->swap = PLAN_SWAP_NONE;
			return 0;
		}
		if (n == 3 && !strcmp(w[1], "zram") &&
		    !parse_uint(w[2], 1 << 20, &p->swap_mb) && p->swap_mb) {
			p->swap = PLAN_SWAP_ZRAM;
			return 0;
		}
		if (n == 4 && !strcmp(w[1], "file") && w[2][0] == '/' &&
		    strlen(w[2]) <= PLAN_PATH_MAX &&
		    !parse_uint(w[3], 1 << 20, &p->swap_mb) && p->swap_mb) {
			p->swap = PLAN_SWAP_FILE;
			strcpy(p->swap_path, w[2]);
			return 0;
		}
		return fail(err, errsz, ln, "swap: expected 'none', "
			    "'zram MIB' or 'file /PATH MIB'");
	}
	return fail(err, errsz, ln, "unknown directive '%.40s'", w[0]);
}

static int plan_parse_sep(struct plan *plan, const char *text, size_t len,
			  char sep, char *err, size_t errsz)
{
	struct parse_state st = {
		.plan = plan, .thp = PLAN_THP_KEEP, .timeout_s = 300,
	};
	char line[PLAN_LINE_MAX];
	size_t pos = 0;
	int ln = 0;

	memset(plan, 0, sizeof(*plan));
	if (len > PLAN_TEXT_MAX)
		return fail(err, errsz, 0, "plan larger than %d bytes",
			    PLAN_TEXT_MAX);
	while (pos < len) {
		size_t n = 0;

		ln++;
		while (pos < len && text[pos] != '\n' && text[pos] != sep) {
			if (!text[pos])
				return fail(err, errsz, ln, "NUL byte");
			if (n == sizeof(line) - 1)
				return fail(err, errsz, ln,
					    "longer than %d bytes",
					    PLAN_LINE_MAX - 1);
			line[n++] = text[pos++] == '\r' ? ' ' : text[pos - 1];
		}
		line[n] = 0;
		pos++;
		if (parse_line(&st, line, ln, err, errsz))
			return -1;
	}
	if (!st.seen_header)
		return fail(err, errsz, ln, "empty plan (no 'kregress-plan 1')");
	if (!plan->nruns)
		return fail(err, errsz, ln, "the plan runs nothing");
	return 0;
}

int plan_parse(struct plan *plan, const char *text, size_t len,
	       char *err, size_t errsz)
{
	return plan_parse_sep(plan, text, len, '\n', err, errsz);
}

int plan_parse_cmdline(struct plan *plan, const char *value,
		       char *err, size_t errsz)
{
	return plan_parse_sep(plan, value, strlen(value), ';', err, errsz);
}

int plan_cmdline_get(const char *cmdline, const char *key,
		     char *out, size_t outsz)
{
	size_t klen = strlen(key);
	const char *p = cmdline;

	while (*p) {
		const char *start;
		int quoted = 0;
		size_t n = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		start = p;
		/* A word ends at a blank outside double quotes. */
		while (*p && (quoted || (*p != ' ' && *p != '\t' &&
					 *p != '\n'))) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		if ((size_t)(p - start) <= klen || start[klen] != '=' ||
		    strncmp(start, key, klen))
			continue;
		for (start += klen + 1; start < p; start++) {
			if (*start == '"')
				continue;
			if (n + 1 >= outsz)
				return -1;
			out[n++] = *start;
		}
		out[n] = 0;
		return 1;
	}
	return 0;
}
