/*
 * config.c - load and validate the JSON configuration (jansson).
 *
 * The validator walks the JSON document with a path of where it is
 * ("hosts[1].uri"), so that the first problem is reported as one line
 * naming the key; it stops at the first error.  Each object is checked
 * against the list of keys it may hold, so a misspelt key is an error
 * rather than a silently ignored setting.  Cross references (a list's
 * tree, a tree's lists, a host's arch, mail's opted-in lists) are checked
 * once everything is read, and so are the plan files: each is read and
 * checked as the run stage will render it.
 *
 * jansson's own errors (syntax, duplicate keys, an integer too big for
 * it) come with a line and a column only; path_at() finds the key there
 * by scanning the text up to the error, so that they name their key too.
 *
 * No I/O apart from reading the file itself and the token and plan
 * files it names.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "build.h"
#include "config.h"
#include "log.h"
#include "plan.h"
#include "plan_file.h"
#include "strbuf.h"

#define TOKEN_MIN_LEN	16
#define TOKEN_MAX_BYTES	4096
#define NAME_MAX_LEN	64
#define PATH_DEPTH_MAX	16	/* of path_at(); deeper is not named */

static const char *const policy_names[] = { "outbox", "moderate", "list" };
static const char *const mail_to_names[] = { "outbox", "moderation",
					      "author", "thread" };

const struct config_arch_cfg *config_arch_get(const struct config *cfg,
					      const struct arch *a)
{
	const struct config_arch_cfg *ac = &cfg->arches[arch_index(a)];

	return ac->arch ? ac : NULL;
}

const char *config_mail_policy_str(enum config_mail_policy policy)
{
	return (unsigned)policy <= CONFIG_MAIL_LIST ? policy_names[policy] :
	       "?";
}

const char *config_mail_to_str(enum config_mail_to to)
{
	return (unsigned)to <= CONFIG_MAIL_TO_THREAD ? mail_to_names[to] : "?";
}

/* Where the validator is, and the first error. */
struct cctx {
	const char *file;	/* for messages */
	char *dir;		/* anchors relative paths */
	struct strbuf path;	/* "hosts[1].uri" */
	struct strbuf *err;
	int failed;
};

static __attribute__((format(printf, 2, 3)))
int cerr(struct cctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return -1;
	c->failed = 1;
	strbuf_addf(c->err, "%s: ", c->file);
	if (c->path.len)
		strbuf_addf(c->err, "%s: ", c->path.buf);
	va_start(ap, fmt);
	strbuf_vaddf(c->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Path handling: push returns the old length, pop restores it. */
static size_t push_key(struct cctx *c, const char *key)
{
	size_t len = c->path.len;

	if (len)
		strbuf_addch(&c->path, '.');
	strbuf_addstr(&c->path, key);
	return len;
}

static size_t push_index(struct cctx *c, size_t i)
{
	size_t len = c->path.len;

	strbuf_addf(&c->path, "[%zu]", i);
	return len;
}

static void pop(struct cctx *c, size_t len)
{
	c->path.len = len;
	c->path.buf[len] = '\0';
}

static char *resolve_path(struct cctx *c, const char *p)
{
	struct strbuf sb = STRBUF_INIT;

	if (p[0] == '/')
		return xstrdup(p);
	strbuf_addf(&sb, "%s/%s", c->dir, p);
	return strbuf_detach(&sb, NULL);
}

static const char *json_type_str(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* Checks that v is an object whose keys are all in allowed (NULL-ended). */
static int check_object(struct cctx *c, json_t *v,
			const char *const *allowed)
{
	const char *key;
	json_t *val;

	if (!json_is_object(v))
		return cerr(c, "expected an object, not %s",
			    json_type_str(v));
	json_object_foreach(v, key, val) {
		const char *const *a;
		size_t len;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (*a)
			continue;
		len = push_key(c, key);
		cerr(c, "unknown key");
		pop(c, len);
		return -1;
	}
	return 0;
}

/*
 * Each get_* reads obj.key into *out: a missing key is an error when
 * required, else *out gets the default.  They return 0 or -1 (reported).
 */
static int get_string(struct cctx *c, json_t *obj, const char *key,
		      int required, const char *def, char **out)
{
	json_t *v = json_object_get(obj, key);
	size_t len = push_key(c, key);
	int ret = -1;

	if (!v) {
		if (required) {
			cerr(c, "required key missing");
			goto out;
		}
		*out = def ? xstrdup(def) : NULL;
	} else if (!json_is_string(v)) {
		cerr(c, "expected a string, not %s", json_type_str(v));
		goto out;
	} else if (strlen(json_string_value(v)) != json_string_length(v)) {
		cerr(c, "contains a NUL character");
		goto out;
	} else {
		*out = xstrdup(json_string_value(v));
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* A string naming a file or directory; relative to the config's dir. */
static int get_path(struct cctx *c, json_t *obj, const char *key,
		    int required, const char *def, char **out)
{
	char *s = NULL;
	size_t len;

	if (get_string(c, obj, key, required, def, &s))
		return -1;
	if (s && !*s) {
		len = push_key(c, key);
		cerr(c, "empty path");
		pop(c, len);
		free(s);
		return -1;
	}
	*out = s ? resolve_path(c, s) : NULL;
	free(s);
	return 0;
}

static int get_llong(struct cctx *c, json_t *obj, const char *key,
		     long long min, long long max, long long def,
		     long long *out)
{
	json_t *v = json_object_get(obj, key);
	size_t len = push_key(c, key);
	int ret = -1;

	if (!v) {
		*out = def;
	} else if (!json_is_integer(v)) {
		cerr(c, "expected an integer, not %s", json_type_str(v));
		goto out;
	} else if (json_integer_value(v) < min ||
		   json_integer_value(v) > max) {
		cerr(c, "%lld is out of range (%lld to %lld)",
		     (long long)json_integer_value(v), min, max);
		goto out;
	} else {
		*out = json_integer_value(v);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

static int get_int(struct cctx *c, json_t *obj, const char *key, int min,
		   int max, int def, int *out)
{
	long long v;

	if (get_llong(c, obj, key, min, max, def, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int get_bool(struct cctx *c, json_t *obj, const char *key, int def,
		    int *out)
{
	json_t *v = json_object_get(obj, key);
	size_t len = push_key(c, key);
	int ret = 0;

	if (!v)
		*out = def;
	else if (json_is_boolean(v))
		*out = json_is_true(v);
	else
		ret = cerr(c, "expected a boolean, not %s", json_type_str(v));
	pop(c, len);
	return ret;
}

static int get_size(struct cctx *c, json_t *obj, const char *key,
		    long long max, long long def, size_t *out)
{
	long long v;

	if (get_llong(c, obj, key, 1, max, def, &v))
		return -1;
	*out = (size_t)v;
	return 0;
}

/* A number in (min, max] when min_open, else [min, max]. */
static int get_double(struct cctx *c, json_t *obj, const char *key,
		      double min, int min_open, double max, double def,
		      double *out)
{
	json_t *v = json_object_get(obj, key);
	size_t len = push_key(c, key);
	double d;
	int ret = -1;

	if (!v) {
		*out = def;
		ret = 0;
		goto out;
	}
	if (!json_is_number(v)) {
		cerr(c, "expected a number, not %s", json_type_str(v));
		goto out;
	}
	d = json_number_value(v);
	if ((min_open ? d <= min : d < min) || d > max) {
		cerr(c, "%g is out of range (%s%g to %g)", d,
		     min_open ? "above " : "", min, max);
		goto out;
	}
	*out = d;
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* A string from names[0..n); *out its index. */
static int get_enum(struct cctx *c, json_t *obj, const char *key,
		    const char *const *names, int n, int def, int *out)
{
	struct strbuf list = STRBUF_INIT;
	char *s = NULL;
	size_t len;
	int i, ret = -1;

	if (get_string(c, obj, key, 0, NULL, &s))
		return -1;
	if (!s) {
		*out = def;
		return 0;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			ret = 0;
			goto out;
		}
	for (i = 0; i < n; i++)
		strbuf_addf(&list, "%s\"%s\"", i ? (i == n - 1 ? " or " :
			    ", ") : "", names[i]);
	len = push_key(c, key);
	cerr(c, "\"%s\" is not one of %s", s, list.buf);
	pop(c, len);
out:
	strbuf_release(&list);
	free(s);
	return ret;
}

/* An array of strings (paths resolved when as_path); absent = empty. */
static int get_strings(struct cctx *c, json_t *obj, const char *key,
		       int as_path, char ***out, size_t *n_out)
{
	json_t *v = json_object_get(obj, key), *e;
	size_t len = push_key(c, key), i, ilen;
	char **arr = NULL;
	int ret = -1;

	*out = NULL;
	*n_out = 0;
	if (!v) {
		ret = 0;
		goto out;
	}
	if (!json_is_array(v)) {
		cerr(c, "expected an array, not %s", json_type_str(v));
		goto out;
	}
	arr = xcalloc(json_array_size(v), sizeof(*arr));
	json_array_foreach(v, i, e) {
		ilen = push_index(c, i);
		if (!json_is_string(e) || !json_string_length(e) ||
		    strlen(json_string_value(e)) != json_string_length(e)) {
			if (json_is_string(e))
				cerr(c, "empty string");
			else
				cerr(c, "expected a string, not %s",
				     json_type_str(e));
			pop(c, ilen);
			goto fail;
		}
		pop(c, ilen);
		arr[i] = as_path ? resolve_path(c, json_string_value(e)) :
			 xstrdup(json_string_value(e));
		(*n_out)++;
	}
	*out = arr;
	ret = 0;
	goto out;
fail:
	for (i = 0; i < *n_out; i++)
		free(arr[i]);
	free(arr);
	*n_out = 0;
out:
	pop(c, len);
	return ret;
}

/* An optional array of objects: *arr is json NULL when absent. */
static int get_array(struct cctx *c, json_t *obj, const char *key,
		     json_t **arr)
{
	json_t *v = json_object_get(obj, key);
	size_t len;

	*arr = v;
	if (!v || json_is_array(v))
		return 0;
	len = push_key(c, key);
	cerr(c, "expected an array, not %s", json_type_str(v));
	pop(c, len);
	return -1;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_MAX_LEN)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* Reads obj.name: required, a short identifier. */
static int get_name(struct cctx *c, json_t *obj, char **out)
{
	size_t len;

	if (get_string(c, obj, "name", 1, NULL, out))
		return -1;
	if (valid_name(*out))
		return 0;
	len = push_key(c, "name");
	cerr(c, "\"%s\" is not a valid name (letters, digits, '.', '_', "
	     "'-'; at most %d)", *out, NAME_MAX_LEN);
	pop(c, len);
	return -1;
}

static int is_http_url(const char *s)
{
	const char *host;

	if (!strncmp(s, "https://", 8))
		host = s + 8;
	else if (!strncmp(s, "http://", 7))
		host = s + 7;
	else
		return 0;
	return *host && *host != '/' && !strpbrk(s, " \t\r\n");
}

static int is_mail_address(const char *s)
{
	const char *at = strchr(s, '@');

	return at && at != s && at[1] && !strchr(at + 1, '@') &&
	       !strpbrk(s, " \t\r\n<>,;");
}

static int is_libvirt_uri(const char *s)
{
	static const char *const re = "^(qemu|test)"
		"(\\+(ssh|libssh|libssh2|tls|tcp|unix|ext))?"
		"://[^/[:space:]]*/[a-z]+(\\?[^[:space:]]*)?$";
	regex_t rx;
	int ok;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return 0;
	ok = !regexec(&rx, s, 0, NULL, 0);
	regfree(&rx);
	return ok;
}

/* Whether a string value reported at key is acceptable; else report. */
static int check_value(struct cctx *c, const char *key, int ok,
		       const char *what)
{
	size_t len;

	if (ok)
		return 0;
	len = push_key(c, key);
	cerr(c, "%s", what);
	pop(c, len);
	return -1;
}

/* "HOST:PORT" with an IPv4 address, [IPv6] or localhost. */
static int parse_listen(struct config_api *api)
{
	const char *s = api->listen, *colon;
	char host[64], *end;
	unsigned char addr[16];
	long port;
	size_t hl;

	colon = strrchr(s, ':');
	if (!colon || colon == s)
		return -1;
	hl = colon - s;
	if (s[0] == '[') {
		if (hl < 3 || s[hl - 1] != ']' || hl - 2 >= sizeof(host))
			return -1;
		memcpy(host, s + 1, hl - 2);
		host[hl - 2] = '\0';
		if (inet_pton(AF_INET6, host, addr) != 1)
			return -1;
	} else {
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s, hl);
		host[hl] = '\0';
		if (strcmp(host, "localhost") &&
		    inet_pton(AF_INET, host, addr) != 1)
			return -1;
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port < 0 || port > 65535)
		return -1;
	api->host = xstrdup(host);
	api->port = (int)port;
	return 0;
}

/* First line of a token file, without surrounding blanks. */
static int read_token_file(struct cctx *c, const char *path, char **out)
{
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT, why = STRBUF_INIT;
	const char *s, *e;
	int ret = -1;

	if (strbuf_read_file_why(&text, path, TOKEN_MAX_BYTES, &why)) {
		cerr(c, "%s", why.buf);
		goto out;
	}
	s = text.buf + strspn(text.buf, " \t\r\n");
	e = s + strcspn(s, "\r\n");
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	strbuf_add(&sb, s, e - s);
	*out = strbuf_detach(&sb, NULL);
	ret = 0;
out:
	strbuf_release(&text);
	strbuf_release(&why);
	return ret;
}

static int load_tokens(struct cctx *c, json_t *api, struct config_api *out)
{
	static const char *const keys[] = { "name", "value", "file", NULL };
	json_t *arr, *t;
	size_t i, j, len, ilen;
	int ret = -1;

	if (get_array(c, api, "tokens", &arr) || !arr)
		return c->failed ? -1 : 0;
	len = push_key(c, "tokens");
	out->tokens = xcalloc(json_array_size(arr), sizeof(*out->tokens));
	json_array_foreach(arr, i, t) {
		struct config_token *tok = &out->tokens[i];
		char *file = NULL;
		int from_file;

		ilen = push_index(c, i);
		out->n_tokens = i + 1;
		if (check_object(c, t, keys) || get_name(c, t, &tok->name) ||
		    get_string(c, t, "value", 0, NULL, &tok->value) ||
		    get_path(c, t, "file", 0, NULL, &file))
			goto out;
		if (!tok->value == !file) {
			free(file);
			cerr(c, "needs exactly one of \"value\" and \"file\"");
			goto out;
		}
		from_file = file != NULL;
		if (file) {
			size_t flen = push_key(c, "file");

			if (read_token_file(c, file, &tok->value)) {
				free(file);
				goto out;
			}
			pop(c, flen);
			free(file);
		}
		if (check_value(c, from_file ? "file" : "value",
				strlen(tok->value) >= TOKEN_MIN_LEN &&
				!strpbrk(tok->value, " \t\r\n"),
				"token too short (at least 16 characters, "
				"no blanks)"))
			goto out;
		for (j = 0; j < i; j++)
			if (!strcmp(out->tokens[j].name, tok->name)) {
				check_value(c, "name", 0, "duplicate name");
				goto out;
			}
		pop(c, ilen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

static int load_api(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "listen", "tokens",
					    "max_body_bytes", NULL };
	json_t *api = json_object_get(root, "api");
	json_t *empty = NULL;
	size_t len = push_key(c, "api");
	int ret = -1;

	if (!api)
		api = empty = json_object();
	if (check_object(c, api, keys) ||
	    get_string(c, api, "listen", 0, "127.0.0.1:8080",
		       &cfg->api.listen))
		goto out;
	if (parse_listen(&cfg->api)) {
		check_value(c, "listen", 0, "not HOST:PORT (an IPv4 address, "
			    "[IPv6] or localhost, and a port 0-65535)");
		goto out;
	}
	if (load_tokens(c, api, &cfg->api) ||
	    get_size(c, api, "max_body_bytes", 1LL << 30, 16 << 20,
		     &cfg->api.max_body_bytes))
		goto out;
	ret = 0;
out:
	json_decref(empty);
	pop(c, len);
	return ret;
}

static int load_trees(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "name", "path", "branch",
					    "lists", "refresh", NULL };
	static const char *const rkeys[] = { "remote", "interval_s", NULL };
	json_t *arr, *t, *r;
	size_t i, j, len, ilen, rlen;
	int ret = -1;

	if (get_array(c, root, "trees", &arr) || !arr)
		return c->failed ? -1 : 0;
	len = push_key(c, "trees");
	cfg->trees = xcalloc(json_array_size(arr), sizeof(*cfg->trees));
	json_array_foreach(arr, i, t) {
		struct config_tree *tr = &cfg->trees[i];

		ilen = push_index(c, i);
		cfg->n_trees = i + 1;
		tr->refresh_interval_s = 0;
		if (check_object(c, t, keys) || get_name(c, t, &tr->name) ||
		    get_path(c, t, "path", 1, NULL, &tr->path) ||
		    get_string(c, t, "branch", 0, "master", &tr->branch) ||
		    get_strings(c, t, "lists", 0, &tr->lists, &tr->n_lists))
			goto out;
		for (j = 0; j < i; j++)
			if (!strcmp(cfg->trees[j].name, tr->name)) {
				check_value(c, "name", 0, "duplicate name");
				goto out;
			}
		r = json_object_get(t, "refresh");
		if (r) {
			rlen = push_key(c, "refresh");
			if (check_object(c, r, rkeys) ||
			    get_string(c, r, "remote", 1, NULL,
				       &tr->refresh_remote) ||
			    get_int(c, r, "interval_s", 0, 7 * 86400, 3600,
				    &tr->refresh_interval_s))
				goto out;
			pop(c, rlen);
		}
		pop(c, ilen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* "unknown architecture (\"x86_64\" or \"arm64\")" at the current key. */
static void unknown_arch(struct cctx *c)
{
	struct strbuf names = STRBUF_INIT;

	arch_names(&names, "\"");
	cerr(c, "unknown architecture (%s)", names.buf);
	strbuf_release(&names);
}

static int load_arches(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "base_config", "fragments",
					    "make_jobs", "cross_compile",
					    NULL };
	static const char *const bases[] = { "tinyconfig", "defconfig" };
	json_t *obj = json_object_get(root, "arches"), *a, *empty;
	size_t len = push_key(c, "arches"), alen;
	const struct arch *arch;
	const char *key;
	int base, ret = -1;

	if (obj && !json_is_object(obj)) {
		cerr(c, "expected an object, not %s", json_type_str(obj));
		goto out;
	}
	json_object_foreach(obj, key, a) {
		if (!arch_find(key)) {
			alen = push_key(c, key);
			unknown_arch(c);
			goto out;
		}
	}
	/* Absent: every arch with defaults; present: only those listed. */
	for (arch = arch_table; arch->name; arch++) {
		struct config_arch_cfg *ac = &cfg->arches[arch_index(arch)];

		a = obj ? json_object_get(obj, arch->name) : NULL;
		if (obj && !a)
			continue;
		empty = a ? NULL : json_object();
		ac->arch = arch;
		alen = push_key(c, arch->name);
		if (check_object(c, a ? a : empty, keys) ||
		    get_enum(c, a ? a : empty, "base_config", bases, 2, 0,
			     &base) ||
		    get_strings(c, a ? a : empty, "fragments", 1,
				&ac->fragments, &ac->n_fragments) ||
		    get_int(c, a ? a : empty, "make_jobs", 1, 256, 2,
			    &ac->make_jobs) ||
		    get_string(c, a ? a : empty, "cross_compile", 0,
			       arch->cross_compile, &ac->cross_compile)) {
			json_decref(empty);
			goto out;
		}
		json_decref(empty);
		ac->base_config = xstrdup(bases[base]);
		pop(c, alen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* The first configured arch: the embedded default host's. */
static const struct arch *first_arch(const struct config *cfg)
{
	const struct arch *a;

	for (a = arch_table; a->name; a++)
		if (config_arch_get(cfg, a))
			return a;
	return arch_table;
}

/* A host's "arch" (required): one of the table's names. */
static int get_arch(struct cctx *c, json_t *obj, const struct arch **out)
{
	struct strbuf names = STRBUF_INIT;
	char *s = NULL;
	size_t len;

	if (get_string(c, obj, "arch", 1, NULL, &s))
		return -1;
	*out = arch_find(s);
	if (!*out) {
		arch_names(&names, "\"");
		len = push_key(c, "arch");
		cerr(c, "\"%s\" is not one of %s", s, names.buf);
		pop(c, len);
		strbuf_release(&names);
	}
	free(s);
	return *out ? 0 : -1;
}

static int load_hosts(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "name", "uri", "arch", "accel",
					    "capacity", NULL };
	json_t *arr, *h;
	size_t i, j, len, ilen;
	int accel, ret = -1;

	if (get_array(c, root, "hosts", &arr))
		return -1;
	if (!arr) {
		/* The embedded default: the local libvirt, probed, for
		 * the first configured arch (TCG emulates the other). */
		cfg->hosts = xcalloc(1, sizeof(*cfg->hosts));
		cfg->n_hosts = 1;
		cfg->hosts[0].name = xstrdup("local");
		cfg->hosts[0].uri = xstrdup("qemu:///system");
		cfg->hosts[0].arch = first_arch(cfg);
		cfg->hosts[0].accel = ARCH_AUTO;
		cfg->hosts[0].capacity = 1;
		return 0;
	}
	len = push_key(c, "hosts");
	cfg->hosts = xcalloc(json_array_size(arr), sizeof(*cfg->hosts));
	json_array_foreach(arr, i, h) {
		struct config_host *ho = &cfg->hosts[i];

		ilen = push_index(c, i);
		cfg->n_hosts = i + 1;
		if (check_object(c, h, keys) || get_name(c, h, &ho->name) ||
		    get_string(c, h, "uri", 1, NULL, &ho->uri) ||
		    check_value(c, "uri", is_libvirt_uri(ho->uri),
				"not a libvirt URI (e.g. qemu:///system, "
				"qemu+ssh://host/system)") ||
		    get_arch(c, h, &ho->arch) ||
		    get_enum(c, h, "accel", arch_accel_names,
			     ARCH_ACCEL_COUNT, ARCH_AUTO, &accel) ||
		    get_int(c, h, "capacity", 1, 256, 1, &ho->capacity))
			goto out;
		ho->accel = accel;
		if (check_value(c, "arch", config_arch_get(cfg, ho->arch) != NULL,
				"architecture not configured in \"arches\""))
			goto out;
		for (j = 0; j < i; j++)
			if (!strcmp(cfg->hosts[j].name, ho->name)) {
				check_value(c, "name", 0, "duplicate name");
				goto out;
			}
		pop(c, ilen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

static int load_plans(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "kvm", "tcg", NULL };
	json_t *obj = json_object_get(root, "plans"), *a;
	size_t len = push_key(c, "plans"), alen;
	const struct arch *arch;
	const char *key;
	int ret = -1;

	if (!obj) {
		ret = 0;
		goto out;
	}
	if (!json_is_object(obj)) {
		cerr(c, "expected an object, not %s", json_type_str(obj));
		goto out;
	}
	json_object_foreach(obj, key, a) {
		alen = push_key(c, key);
		arch = arch_find(key);
		if (!arch) {
			unknown_arch(c);
			goto out;
		}
		if (check_object(c, a, keys) ||
		    get_path(c, a, "kvm", 0, NULL,
			     &cfg->plans[arch_index(arch)][ARCH_KVM]) ||
		    get_path(c, a, "tcg", 0, NULL,
			     &cfg->plans[arch_index(arch)][ARCH_TCG]))
			goto out;
		pop(c, alen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

static int load_stats(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "threshold_pct", "alpha",
					    "min_samples",
					    "max_boots_per_side",
					    "fdr_method", "layout_control",
					    NULL };
	static const char *const fdr[] = { "bh", "holm", "none" };
	/* In the order of enum layout_when. */
	static const char *const when[] = { "real-time", "always", "never" };
	struct config_stats *s = &cfg->stats;
	json_t *obj = json_object_get(root, "stats"), *empty = NULL;
	size_t len = push_key(c, "stats");
	int method, layout, ret = -1;

	if (!obj)
		obj = empty = json_object();
	if (check_object(c, obj, keys) ||
	    get_double(c, obj, "threshold_pct", 0, 1, 100, 3,
		       &s->threshold_pct) ||
	    get_double(c, obj, "alpha", 0, 1, 0.5, 0.05, &s->alpha) ||
	    get_int(c, obj, "min_samples", 2, 1000, 5, &s->min_samples) ||
	    get_int(c, obj, "max_boots_per_side", 2, 10000, 20,
		    &s->max_boots_per_side) ||
	    get_enum(c, obj, "fdr_method", fdr, 3, 0, &method) ||
	    get_enum(c, obj, "layout_control", when, 3, 0, &layout))
		goto out;
	s->fdr_method = xstrdup(fdr[method]);
	s->layout_control = (enum layout_when)layout;
	if (check_value(c, "max_boots_per_side",
			s->max_boots_per_side >= s->min_samples,
			"smaller than min_samples"))
		goto out;
	ret = 0;
out:
	json_decref(empty);
	pop(c, len);
	return ret;
}

static int load_calibration(struct cctx *c, json_t *root,
			    struct config *cfg)
{
	static const char *const keys[] = { "enabled", "interval_s",
					    "idle_s", "boots_per_side",
					    "simulations", NULL };
	struct config_calibration *k = &cfg->calibration;
	json_t *obj = json_object_get(root, "calibration"), *empty = NULL;
	size_t len = push_key(c, "calibration");
	int ret = -1;

	if (!obj)
		obj = empty = json_object();
	if (check_object(c, obj, keys) ||
	    get_bool(c, obj, "enabled", 1, &k->enabled) ||
	    get_int(c, obj, "interval_s", 0, 366 * 86400, 7 * 86400,
		    &k->interval_s) ||
	    get_int(c, obj, "idle_s", 0, 86400, 300, &k->idle_s) ||
	    get_int(c, obj, "boots_per_side", 2, 1000, 8,
		    &k->boots_per_side) ||
	    get_int(c, obj, "simulations", 0, 100000, 1000,
		    &k->simulations))
		goto out;
	ret = 0;
out:
	json_decref(empty);
	pop(c, len);
	return ret;
}

static int check_regexes(struct cctx *c, const char *key, char **rx,
			 size_t n)
{
	size_t i, len, ilen;
	regex_t re;
	char msg[128];
	int rc;

	for (i = 0; i < n; i++) {
		rc = regcomp(&re, rx[i], REG_EXTENDED | REG_NOSUB);
		if (!rc) {
			regfree(&re);
			continue;
		}
		regerror(rc, &re, msg, sizeof(msg));
		len = push_key(c, key);
		ilen = push_index(c, i);
		cerr(c, "not a valid regular expression: %s", msg);
		pop(c, ilen);
		pop(c, len);
		return -1;
	}
	return 0;
}

static int load_lists(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "name", "feed_url", "query_url",
					    "subject_filters", "path_filters",
					    "poll_interval_s",
					    "incomplete_wait_s", "tree",
					    NULL };
	json_t *arr, *l;
	size_t i, j, len, ilen;
	int ret = -1;

	if (get_array(c, root, "lists", &arr) || !arr)
		return c->failed ? -1 : 0;
	len = push_key(c, "lists");
	cfg->lists = xcalloc(json_array_size(arr), sizeof(*cfg->lists));
	json_array_foreach(arr, i, l) {
		struct config_list *li = &cfg->lists[i];

		ilen = push_index(c, i);
		cfg->n_lists = i + 1;
		if (check_object(c, l, keys) || get_name(c, l, &li->name) ||
		    get_string(c, l, "feed_url", 0, NULL, &li->feed_url) ||
		    get_string(c, l, "query_url", 0, NULL, &li->query_url))
			goto out;
		if (!li->feed_url == !li->query_url) {
			cerr(c, "needs exactly one of \"feed_url\" and "
			     "\"query_url\"");
			goto out;
		}
		if ((li->feed_url && check_value(c, "feed_url",
				is_http_url(li->feed_url),
				"not an http:// or https:// URL")) ||
		    (li->query_url && check_value(c, "query_url",
				is_http_url(li->query_url),
				"not an http:// or https:// URL")) ||
		    get_strings(c, l, "subject_filters", 0,
				&li->subject_filters,
				&li->n_subject_filters) ||
		    check_regexes(c, "subject_filters", li->subject_filters,
				  li->n_subject_filters) ||
		    get_strings(c, l, "path_filters", 0, &li->path_filters,
				&li->n_path_filters) ||
		    get_int(c, l, "poll_interval_s", 10, 86400, 300,
			    &li->poll_interval_s) ||
		    get_int(c, l, "incomplete_wait_s", 0, 7 * 86400, 3600,
			    &li->incomplete_wait_s) ||
		    get_string(c, l, "tree", 0, NULL, &li->tree))
			goto out;
		for (j = 0; j < i; j++)
			if (!strcmp(cfg->lists[j].name, li->name)) {
				check_value(c, "name", 0, "duplicate name");
				goto out;
			}
		pop(c, ilen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

static int load_allowlist(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const def[] = { "https://lore.kernel.org/",
					   "https://patchwork.kernel.org/" };
	size_t i, len, ilen;
	int ret = -1;

	if (!json_object_get(root, "url_allowlist")) {
		cfg->url_allowlist = xcalloc(2, sizeof(char *));
		for (i = 0; i < 2; i++)
			cfg->url_allowlist[i] = xstrdup(def[i]);
		cfg->n_url_allowlist = 2;
		return 0;
	}
	if (get_strings(c, root, "url_allowlist", 0, &cfg->url_allowlist,
			&cfg->n_url_allowlist))
		return -1;
	len = push_key(c, "url_allowlist");
	for (i = 0; i < cfg->n_url_allowlist; i++) {
		const char *u = cfg->url_allowlist[i];
		const char *host = strstr(u, "://");

		/*
		 * "https://lore.kernel.org" would also allow
		 * "https://lore.kernel.org.evil.example/": insist on the
		 * slash that ends the host.
		 */
		if (!is_http_url(u) || !strchr(host + 3, '/')) {
			ilen = push_index(c, i);
			cerr(c, "not an http(s) URL prefix ending the host "
			     "with '/' (e.g. https://lore.kernel.org/)");
			pop(c, ilen);
			goto out;
		}
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* A secret given as obj.key or as the first line of obj.key_file. */
static int get_secret(struct cctx *c, json_t *obj, const char *key,
		      char **out)
{
	struct strbuf fkey = STRBUF_INIT;
	char *file = NULL;
	size_t len;
	int ret = -1;

	strbuf_addf(&fkey, "%s_file", key);
	if (get_string(c, obj, key, 0, NULL, out) ||
	    get_path(c, obj, fkey.buf, 0, NULL, &file))
		goto out;
	if (*out && file) {
		cerr(c, "needs at most one of \"%s\" and \"%s\"", key,
		     fkey.buf);
		goto out;
	}
	if (file) {
		len = push_key(c, fkey.buf);
		if (read_token_file(c, file, out))
			goto out;
		pop(c, len);
	}
	ret = 0;
out:
	free(file);
	strbuf_release(&fkey);
	return ret;
}

/* mail.recipients: kind -> who; the defaults of config.example.json. */
static int load_recipients(struct cctx *c, json_t *mail,
			   struct config_mail *m)
{
	const char *keys[REPORT_KIND_COUNT + 1] = { NULL };
	json_t *obj = json_object_get(mail, "recipients");
	size_t len;
	int k, to, ret = -1;

	for (k = 0; k < REPORT_KIND_COUNT; k++) {
		keys[k] = report_kind_str((enum report_kind)k);
		m->recipients[k] = report_kind_significant(k) ?
				   CONFIG_MAIL_TO_THREAD : CONFIG_MAIL_TO_AUTHOR;
	}
	if (!obj)
		return 0;
	len = push_key(c, "recipients");
	if (check_object(c, obj, keys))
		goto out;
	for (k = 0; k < REPORT_KIND_COUNT; k++) {
		if (get_enum(c, obj, keys[k], mail_to_names, 4,
			     m->recipients[k], &to))
			goto out;
		m->recipients[k] = to;
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* mail.patchwork: the instances checks are posted to, with tokens. */
static int load_patchwork(struct cctx *c, json_t *mail,
			  struct config_mail *m)
{
	static const char *const keys[] = { "url", "token", "token_file",
					    NULL };
	json_t *arr, *e;
	size_t i, len, ilen;
	int ret = -1;

	if (get_array(c, mail, "patchwork", &arr) || !arr)
		return c->failed ? -1 : 0;
	len = push_key(c, "patchwork");
	m->patchwork = xcalloc(json_array_size(arr), sizeof(*m->patchwork));
	json_array_foreach(arr, i, e) {
		struct config_patchwork *pw = &m->patchwork[i];
		size_t n;

		ilen = push_index(c, i);
		m->n_patchwork = i + 1;
		if (check_object(c, e, keys) ||
		    get_string(c, e, "url", 1, NULL, &pw->url) ||
		    check_value(c, "url", is_http_url(pw->url) &&
				(n = strlen(pw->url)) && pw->url[n - 1] == '/',
				"not an http(s) URL ending in '/' (e.g. "
				"https://patchwork.kernel.org/)") ||
		    get_secret(c, e, "token", &pw->token))
			goto out;
		if (!pw->token) {
			cerr(c, "needs one of \"token\" and \"token_file\"");
			goto out;
		}
		if (check_value(c, "token", *pw->token &&
				!strpbrk(pw->token, " \t\r\n"),
				"an empty token or one with blanks"))
			goto out;
		pop(c, ilen);
	}
	ret = 0;
out:
	pop(c, len);
	return ret;
}

/* "http://HOST:PORT/" of api.listen's host. */
static void dashboard_of(const struct config *cfg, int port,
			 struct strbuf *out)
{
	int v6 = strchr(cfg->api.host, ':') != NULL;

	strbuf_addf(out, "http://%s%s%s:%d/", v6 ? "[" : "", cfg->api.host,
		    v6 ? "]" : "", port);
}

void config_dashboard_port(struct config *cfg, int port)
{
	struct strbuf sb = STRBUF_INIT;

	if (!cfg->mail.dashboard_listen || cfg->api.port || port <= 0)
		return;
	dashboard_of(cfg, port, &sb);
	free(cfg->mail.dashboard_url);
	cfg->mail.dashboard_url = strbuf_detach(&sb, NULL);
}

static int load_mail(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "smtp_url", "smtp_user",
					    "smtp_password",
					    "smtp_password_file",
					    "smtp_require_tls", "from",
					    "policy", "moderation_address",
					    "outbox_dir", "opt_in_lists",
					    "recipients",
					    "moderate_significant",
					    "dashboard_url", "patchwork",
					    NULL };
	struct config_mail *m = &cfg->mail;
	json_t *obj = json_object_get(root, "mail"), *empty = NULL;
	size_t len = push_key(c, "mail");
	struct strbuf dash = STRBUF_INIT;
	char *outbox = NULL;
	int policy, ret = -1;

	if (!obj)
		obj = empty = json_object();
	outbox = xcalloc(strlen(cfg->state_dir) + 8, 1);
	strcpy(outbox, cfg->state_dir);
	strcat(outbox, "/outbox");
	dashboard_of(cfg, cfg->api.port, &dash);
	if (check_object(c, obj, keys) ||
	    get_string(c, obj, "smtp_url", 0, NULL, &m->smtp_url) ||
	    (m->smtp_url && check_value(c, "smtp_url",
			!strncmp(m->smtp_url, "smtp://", 7) ||
			!strncmp(m->smtp_url, "smtps://", 8),
			"not an smtp:// or smtps:// URL")) ||
	    get_string(c, obj, "smtp_user", 0, NULL, &m->smtp_user) ||
	    get_secret(c, obj, "smtp_password", &m->smtp_password) ||
	    (m->smtp_password && check_value(c, "smtp_user",
			m->smtp_user != NULL,
			"required with a password")) ||
	    get_bool(c, obj, "smtp_require_tls", 0, &m->smtp_require_tls) ||
	    get_string(c, obj, "from", 0, "kregress@localhost", &m->from) ||
	    check_value(c, "from", strchr(m->from, '@') &&
			!strpbrk(m->from, "\r\n"),
			"not a mail address") ||
	    get_enum(c, obj, "policy", policy_names, 3, 0, &policy) ||
	    get_string(c, obj, "moderation_address", 0, NULL,
		       &m->moderation_address) ||
	    (m->moderation_address && check_value(c, "moderation_address",
			is_mail_address(m->moderation_address),
			"not a mail address")) ||
	    get_path(c, obj, "outbox_dir", 0, outbox, &m->outbox_dir) ||
	    get_strings(c, obj, "opt_in_lists", 0, &m->opt_in_lists,
			&m->n_opt_in_lists) ||
	    load_recipients(c, obj, m) ||
	    get_bool(c, obj, "moderate_significant", 1,
		     &m->moderate_significant) ||
	    get_string(c, obj, "dashboard_url", 0, NULL,
		       &m->dashboard_url))
		goto out;
	m->dashboard_listen = !m->dashboard_url;
	if (!m->dashboard_url)
		m->dashboard_url = xstrdup(dash.buf);
	if (check_value(c, "dashboard_url", is_http_url(m->dashboard_url) &&
			m->dashboard_url[strlen(m->dashboard_url) - 1] == '/',
			"not an http(s) URL ending in '/'") ||
	    load_patchwork(c, obj, m))
		goto out;
	m->policy = policy;
	if (policy != CONFIG_MAIL_OUTBOX &&
	    (check_value(c, "smtp_url", m->smtp_url != NULL,
			 "required unless policy is \"outbox\"") ||
	     check_value(c, "moderation_address",
			 m->moderation_address != NULL,
			 "required unless policy is \"outbox\"")))
		goto out;
	ret = 0;
out:
	free(outbox);
	strbuf_release(&dash);
	json_decref(empty);
	pop(c, len);
	return ret;
}

static int load_limits(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "max_body_bytes",
					    "max_mbox_bytes", "max_messages",
					    "build_timeout_s",
					    "boot_timeout_s",
					    "build_memory_mb", "build_disk_mb",
					    "log_max_bytes", "workers",
					    "api_connections",
					    "api_connections_per_address",
					    "api_header_timeout_s",
					    "api_idle_timeout_s", NULL };
	struct config_limits *l = &cfg->limits;
	json_t *obj = json_object_get(root, "limits"), *empty = NULL;
	size_t len = push_key(c, "limits");
	int ret = -1;

	if (!obj)
		obj = empty = json_object();
	if (check_object(c, obj, keys) ||
	    get_size(c, obj, "max_body_bytes", 1LL << 32, 32 << 20,
		     &l->max_body_bytes) ||
	    get_size(c, obj, "max_mbox_bytes", 1LL << 32, 64 << 20,
		     &l->max_mbox_bytes) ||
	    get_int(c, obj, "max_messages", 1, 100000, 1000,
		    &l->max_messages) ||
	    get_int(c, obj, "build_timeout_s", 10, 86400, 3600,
		    &l->build_timeout_s) ||
	    get_int(c, obj, "boot_timeout_s", 5, 86400, 300,
		    &l->boot_timeout_s) ||
	    get_int(c, obj, "build_memory_mb", 256, 1 << 20, 4096,
		    &l->build_memory_mb) ||
	    get_int(c, obj, "build_disk_mb", 1, 1 << 30, BUILD_DISK_MB,
		    &l->build_disk_mb) ||
	    get_size(c, obj, "log_max_bytes", 1LL << 32, 16 << 20,
		     &l->log_max_bytes) ||
	    get_int(c, obj, "workers", 1, 64, 2, &l->workers) ||
	    get_int(c, obj, "api_connections", 16, 100000, 1000,
		    &l->api_connections) ||
	    get_int(c, obj, "api_connections_per_address", 1, 100000, 64,
		    &l->api_connections_per_address) ||
	    get_int(c, obj, "api_header_timeout_s", 1, 3600, 10,
		    &l->api_header_timeout_s) ||
	    get_int(c, obj, "api_idle_timeout_s", 1, 86400, 30,
		    &l->api_idle_timeout_s))
		goto out;
	ret = 0;
out:
	json_decref(empty);
	pop(c, len);
	return ret;
}

static int has_list(struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_lists; i++)
		if (!strcmp(cfg->lists[i].name, name))
			return 1;
	return 0;
}

/* Names that refer to other sections must exist there. */
static int check_references(struct cctx *c, struct config *cfg)
{
	size_t i, j, found;

	for (i = 0; i < cfg->n_trees; i++)
		for (j = 0; j < cfg->trees[i].n_lists; j++)
			if (!has_list(cfg, cfg->trees[i].lists[j]))
				return cerr(c, "trees[%zu].lists[%zu]: no list "
					    "named \"%s\"", i, j,
					    cfg->trees[i].lists[j]);
	for (i = 0; i < cfg->n_lists; i++) {
		if (!cfg->lists[i].tree)
			continue;
		for (j = 0, found = 0; j < cfg->n_trees; j++)
			found |= !strcmp(cfg->trees[j].name,
					 cfg->lists[i].tree);
		if (!found)
			return cerr(c, "lists[%zu].tree: no tree named \"%s\"",
				    i, cfg->lists[i].tree);
	}
	for (i = 0; i < cfg->mail.n_opt_in_lists; i++)
		if (!has_list(cfg, cfg->mail.opt_in_lists[i]))
			return cerr(c, "mail.opt_in_lists[%zu]: no list named "
				    "\"%s\"", i, cfg->mail.opt_in_lists[i]);
	return 0;
}

/*
 * A plan the run stage could not use is refused now: unreadable, not a
 * plan, too long for the kernel command line, or asking a KVM host for
 * the instruction time only emulation has.
 */
static int check_plan(struct cctx *c, const char *path, int kvm)
{
	struct plan_file pf = { NULL, NULL, STRBUF_INIT };
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	if (plan_file_load(&pf, path, &why))
		ret = cerr(c, "%s", why.buf);
	else if (kvm && pf.plan->clock == PLAN_CLOCK_INSTRUCTIONS)
		ret = cerr(c, "%s: \"clock instructions\" needs an emulated "
			   "(tcg) host; a kvm plan keeps real time", path);
	plan_file_release(&pf);
	strbuf_release(&why);
	return ret;
}

/*
 * What a configuration needs to run beyond its own text: a tree when
 * "trees" is given, and the plan files it names.  (A missing config
 * fragment is the build's result to report, with the build.)  Called at
 * the top level: the path is empty before and after.
 */
static int check_runnable(struct cctx *c, json_t *root, struct config *cfg)
{
	const struct arch *a;
	int k, ret = -1;

	if (json_object_get(root, "trees") && !cfg->n_trees) {
		push_key(c, "trees");
		cerr(c, "empty: no series could be applied (leave the key "
		     "out to run without a tree)");
		goto out;
	}
	for (a = arch_table; a->name; a++) {
		for (k = ARCH_KVM; k <= ARCH_TCG; k++) {
			const char *plan = cfg->plans[arch_index(a)][k];

			if (!plan)
				continue;
			push_key(c, "plans");
			push_key(c, a->name);
			push_key(c, arch_accel_names[k]);
			if (check_plan(c, plan, k == ARCH_KVM))
				goto out;
			pop(c, 0);
		}
	}
	ret = 0;
out:
	pop(c, 0);
	return ret;
}

static int load_root(struct cctx *c, json_t *root, struct config *cfg)
{
	static const char *const keys[] = { "state_dir", "database",
					    "cache_dir", "api", "trees",
					    "arches", "hosts", "plans",
					    "stats", "calibration", "lists",
					    "url_allowlist", "mail", "limits",
					    NULL };
	char *dbdef;

	if (!json_is_object(root))
		return cerr(c, "the top level must be a JSON object");
	if (check_object(c, root, keys) ||
	    get_path(c, root, "state_dir", 0, "/var/lib/kregress",
		     &cfg->state_dir))
		return -1;
	dbdef = xcalloc(strlen(cfg->state_dir) + 16, 1);
	strcpy(dbdef, cfg->state_dir);
	strcat(dbdef, "/kregress.db");
	if (get_path(c, root, "database", 0, dbdef, &cfg->database)) {
		free(dbdef);
		return -1;
	}
	free(dbdef);
	/* Without the key, $KREGRESS_CACHE or /var/cache/kregress. */
	if (get_path(c, root, "cache_dir", 0, build_cache_dir(),
		     &cfg->cache_dir))
		return -1;
	if (load_api(c, root, cfg) || load_trees(c, root, cfg) ||
	    load_arches(c, root, cfg) || load_hosts(c, root, cfg) ||
	    load_plans(c, root, cfg) || load_stats(c, root, cfg) ||
	    load_calibration(c, root, cfg) || load_lists(c, root, cfg) || load_allowlist(c, root, cfg) ||
	    load_mail(c, root, cfg) || load_limits(c, root, cfg) ||
	    check_references(c, cfg))
		return -1;
	return check_runnable(c, root, cfg);
}

/*
 * The key path ("hosts[1].uri") of what is open at byte end of the JSON
 * text: the innermost key read, or array element, there.  For jansson's
 * errors, which give a line and column but no key.  Only the structure
 * is scanned (strings, brackets, commas); a text broken before end gives
 * the path as far as it can be read.
 */
static void path_at(const char *text, size_t end, struct strbuf *path)
{
	struct {
		int array;
		size_t index;		/* of the array's current element */
		const char *key;	/* the object's current key, or NULL */
		size_t klen;
		int want_key;		/* the next string is a key */
	} st[PATH_DEPTH_MAX];
	const char *str = NULL;		/* inside a string starting there */
	size_t pos;
	int depth = 0, i;

	for (pos = 0; pos < end; pos++) {
		char ch = text[pos];

		if (str) {
			if (ch == '\\') {
				pos++;
			} else if (ch == '"') {
				if (depth && depth <= PATH_DEPTH_MAX &&
				    st[depth - 1].want_key) {
					st[depth - 1].key = str;
					st[depth - 1].klen = text + pos - str;
					st[depth - 1].want_key = 0;
				}
				str = NULL;
			}
			continue;
		}
		switch (ch) {
		case '"':
			str = text + pos + 1;
			break;
		case '{':
		case '[':
			if (depth < PATH_DEPTH_MAX) {
				st[depth].array = ch == '[';
				st[depth].index = 0;
				st[depth].key = NULL;
				st[depth].want_key = ch == '{';
			}
			depth++;
			break;
		case '}':
		case ']':
			if (depth)
				depth--;
			break;
		case ',':
			if (!depth || depth > PATH_DEPTH_MAX)
				break;
			if (st[depth - 1].array) {
				st[depth - 1].index++;
			} else {
				st[depth - 1].key = NULL;
				st[depth - 1].want_key = 1;
			}
			break;
		}
	}
	for (i = 0; i < depth && i < PATH_DEPTH_MAX; i++) {
		if (st[i].array) {
			strbuf_addf(path, "[%zu]", st[i].index);
		} else if (st[i].key) {
			if (path->len)
				strbuf_addch(path, '.');
			strbuf_add(path, st[i].key, st[i].klen);
		}
	}
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[PATH_MAX], *d;
	struct strbuf sb = STRBUF_INIT;

	if (slash && path[0] == '/') {
		d = xcalloc(slash - path + 2, 1);
		memcpy(d, path, slash == path ? 1 : (size_t)(slash - path));
		return d;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "/");
	strbuf_addstr(&sb, cwd);
	if (slash) {
		strbuf_addch(&sb, '/');
		strbuf_add(&sb, path, slash - path);
	}
	return strbuf_detach(&sb, NULL);
}

int config_parse(const char *text, size_t len, const char *path,
		 struct config **out, struct strbuf *err)
{
	struct cctx c = { .file = path, .path = STRBUF_INIT, .err = err };
	struct config *cfg = xcalloc(1, sizeof(*cfg));
	json_error_t jerr;
	json_t *root;

	c.dir = dir_of(path);
	cfg->file = xstrdup(path);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		path_at(text, jerr.position < 0 ? 0 :
			(size_t)jerr.position < len ? (size_t)jerr.position :
			len, &c.path);
		cerr(&c, "line %d column %d: %s", jerr.line, jerr.column,
		     strstr(jerr.text, "JSON_ALLOW_NUL") ?
		     "NUL character (\\u0000) in a string" : jerr.text);
	} else {
		load_root(&c, root, cfg);
	}
	json_decref(root);
	strbuf_release(&c.path);
	free(c.dir);
	if (c.failed) {
		config_free(cfg);
		return -1;
	}
	*out = cfg;
	return 0;
}

int config_load(const char *path, struct config **out, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (!strbuf_read_file_why(&sb, path, CONFIG_MAX_BYTES, err))
		ret = config_parse(sb.buf, sb.len, path, out, err);
	strbuf_release(&sb);
	return ret;
}

static void free_strings(char **s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
}

void config_free(struct config *cfg)
{
	size_t i;
	int a, k;

	if (!cfg)
		return;
	free(cfg->file);
	free(cfg->state_dir);
	free(cfg->database);
	free(cfg->cache_dir);
	free(cfg->api.listen);
	free(cfg->api.host);
	for (i = 0; i < cfg->api.n_tokens; i++) {
		free(cfg->api.tokens[i].name);
		free(cfg->api.tokens[i].value);
	}
	free(cfg->api.tokens);
	for (i = 0; i < cfg->n_trees; i++) {
		free(cfg->trees[i].name);
		free(cfg->trees[i].path);
		free(cfg->trees[i].branch);
		free_strings(cfg->trees[i].lists, cfg->trees[i].n_lists);
		free(cfg->trees[i].refresh_remote);
	}
	free(cfg->trees);
	for (a = 0; a < ARCH_MAX; a++) {
		free(cfg->arches[a].base_config);
		free_strings(cfg->arches[a].fragments,
			     cfg->arches[a].n_fragments);
		free(cfg->arches[a].cross_compile);
		for (k = 0; k < ARCH_ACCEL_COUNT; k++)
			free(cfg->plans[a][k]);
	}
	for (i = 0; i < cfg->n_hosts; i++) {
		free(cfg->hosts[i].name);
		free(cfg->hosts[i].uri);
	}
	free(cfg->hosts);
	free(cfg->stats.fdr_method);
	for (i = 0; i < cfg->n_lists; i++) {
		struct config_list *l = &cfg->lists[i];

		free(l->name);
		free(l->feed_url);
		free(l->query_url);
		free_strings(l->subject_filters, l->n_subject_filters);
		free_strings(l->path_filters, l->n_path_filters);
		free(l->tree);
	}
	free(cfg->lists);
	free_strings(cfg->url_allowlist, cfg->n_url_allowlist);
	free(cfg->mail.smtp_url);
	free(cfg->mail.smtp_user);
	free(cfg->mail.smtp_password);
	free(cfg->mail.dashboard_url);
	for (i = 0; i < cfg->mail.n_patchwork; i++) {
		free(cfg->mail.patchwork[i].url);
		free(cfg->mail.patchwork[i].token);
	}
	free(cfg->mail.patchwork);
	free(cfg->mail.from);
	free(cfg->mail.moderation_address);
	free(cfg->mail.outbox_dir);
	free_strings(cfg->mail.opt_in_lists, cfg->mail.n_opt_in_lists);
	free(cfg);
}
