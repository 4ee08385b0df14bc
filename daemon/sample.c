/*
 * sample.c - parsing one sample record (see sample.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "log.h"
#include "sample.h"
#include "strbuf.h"

int sample_parse(const char *json, struct sample *s)
{
	json_t *rec = json_loads(json, 0, NULL), *v, *it, *params;
	const char *type, *w, *m, *u, *d;
	char *p;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (!rec)
		return 0;
	type = json_string_value(json_object_get(rec, "type"));
	w = json_string_value(json_object_get(rec, "workload"));
	m = json_string_value(json_object_get(rec, "metric"));
	v = json_object_get(rec, "value");
	if (!type || strcmp(type, "sample") || !w || !*w || !m || !*m ||
	    !json_is_number(v) || !isfinite(json_number_value(v)))
		goto out;
	params = json_object_get(rec, "params");
	p = params ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS |
					JSON_ENCODE_ANY) : NULL;
	u = json_string_value(json_object_get(rec, "unit"));
	d = json_string_value(json_object_get(rec, "direction"));
	it = json_object_get(rec, "iteration");
	s->workload = xstrdup(w);
	s->metric = xstrdup(m);
	s->params = p ? p : xstrdup("{}");
	s->unit = xstrdup(u ? u : "");
	s->direction = STATS_LOWER_IS_BETTER;
	if (d)
		stats_direction_parse(d, &s->direction);
	s->primary = json_is_true(json_object_get(rec, "primary"));
	s->iteration = json_is_integer(it) ? json_integer_value(it) : -1;
	s->value = json_number_value(v);
	ret = 1;
out:
	json_decref(rec);
	return ret;
}

void sample_release(struct sample *s)
{
	free(s->workload);
	free(s->metric);
	free(s->params);
	free(s->unit);
	memset(s, 0, sizeof(*s));
}

char *sample_key(const struct sample *s)
{
	struct strbuf key = STRBUF_INIT;

	strbuf_addf(&key, "%s %s %s", s->workload, s->metric, s->params);
	return strbuf_detach(&key, NULL);
}
