/*
 * kconfig.c - fragment parsing and the "dropped option" check.
 *
 * Kconfig silently drops an assignment whose dependencies are not met
 * (olddefconfig prints nothing), so the only reliable check is to compare
 * the fragment with the .config it produced, symbol by symbol.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kconfig.h"
#include "log.h"

#define KCONFIG_NAME_MAX	128

static int name_char(int c)
{
	return isalnum(c) || c == '_';
}

/* Parses one line; returns 1 assignment, 2 "is not set", 0 other, -1 bad. */
static int parse_line(const char *line, size_t len, char *name,
		      const char **val, size_t *vlen)
{
	static const char unset[] = " is not set";
	size_t i = 0, n;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len)
		return 0;
	if (line[i] == '#') {
		if (len - i < 9 || strncmp(line + i, "# CONFIG_", 9))
			return 0;
		i += 9;
		for (n = 0; i + n < len && name_char(line[i + n]); n++)
			;
		if (!n || n >= KCONFIG_NAME_MAX)
			return 0;
		if (len - i - n != sizeof(unset) - 1 ||
		    strncmp(line + i + n, unset, sizeof(unset) - 1))
			return 0;
		memcpy(name, line + i, n);
		name[n] = '\0';
		return 2;
	}
	if (len - i < 7 || strncmp(line + i, "CONFIG_", 7))
		return -1;
	i += 7;
	for (n = 0; i + n < len && name_char(line[i + n]); n++)
		;
	if (!n || n >= KCONFIG_NAME_MAX || i + n >= len || line[i + n] != '=')
		return -1;
	memcpy(name, line + i, n);
	name[n] = '\0';
	*val = line + i + n + 1;
	*vlen = len - i - n - 1;
	while (*vlen && isspace((unsigned char)(*val)[*vlen - 1]))
		(*vlen)--;
	return 1;
}

int kconfig_get(const char *config, const char *name, char **value)
{
	const char *p = config, *nl, *val = NULL;
	char found_name[KCONFIG_NAME_MAX];
	size_t vlen = 0;
	int found = 0;

	*value = NULL;
	while (*p) {
		int kind;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		kind = parse_line(p, (size_t)(nl - p), found_name, &val, &vlen);
		if (kind > 0 && !strcmp(found_name, name)) {
			/* the last assignment wins, as in kconfig */
			free(*value);
			*value = kind == 1 ? xstrndup(val, vlen) : NULL;
			found = kind == 1;
		}
		p = *nl ? nl + 1 : nl;
	}
	return found;
}

int kconfig_dropped(const char *fragment, const char *config,
		    struct strbuf *dropped)
{
	const char *p = fragment, *nl, *val = NULL;
	char name[KCONFIG_NAME_MAX];
	size_t vlen = 0;
	int lineno = 0, count = 0;

	while (*p) {
		char *now = NULL;
		int kind, set;

		lineno++;
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		kind = parse_line(p, (size_t)(nl - p), name, &val, &vlen);
		if (kind < 0)
			return error("kconfig", "fragment line %d: not a "
				     "CONFIG_ assignment: %.*s", lineno,
				     (int)(nl - p > 80 ? 80 : nl - p), p);
		if (kind == 0)
			goto next;
		set = kconfig_get(config, name, &now);
		if (kind == 2 && set) {
			strbuf_addf(dropped, "# CONFIG_%s is not set "
				    "(now: %s)\n", name, now);
			count++;
		} else if (kind == 1 && vlen == 1 && *val == 'n' && !set) {
			/* "=n" means "not set" */
		} else if (kind == 1 && (!set || strlen(now) != vlen ||
					 strncmp(now, val, vlen))) {
			strbuf_addf(dropped, "CONFIG_%s=%.*s (now: %s)\n",
				    name, (int)vlen, val,
				    set ? now : "not set");
			count++;
		}
		free(now);
next:
		p = *nl ? nl + 1 : nl;
	}
	return count;
}
