/*
 * watch_rules.c - the list watcher's pure decisions (see watch_rules.h).
 *
 * A subject filter passes when it matches the whole subject or the title
 * without "[PATCH v2 1/3]": "^\\[PATCH" and "^mm:" both match "[PATCH v2
 * 1/3] mm: foo", the way a maintainer reads it.  The seen-set is a ring
 * searched linearly: it holds a few thousand ids and is looked at once
 * per feed entry per poll.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "log.h"
#include "series.h"
#include "strbuf.h"
#include "watch_rules.h"

int watch_filter_init(struct watch_filter *f, char *const *subject_res,
		      size_t n_subject, char *const *path_globs, size_t n_path,
		      struct strbuf *err)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	if (n_subject) {
		f->subject_res = xcalloc(n_subject, sizeof(regex_t));
	}
	for (i = 0; i < n_subject; i++) {
		int rc = regcomp(&f->subject_res[i], subject_res[i],
				 REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[256];

			regerror(rc, &f->subject_res[i], msg, sizeof(msg));
			strbuf_addf(err, "subject filter '%s': %s",
				    subject_res[i], msg);
			watch_filter_release(f);
			return -1;
		}
		f->n_subject_res++;
	}
	if (n_path) {
		f->path_globs = xcalloc(n_path, sizeof(char *));
	}
	for (i = 0; i < n_path; i++) {
		f->path_globs[i] = xstrdup(path_globs[i]);
		f->n_path_globs++;
	}
	return 0;
}

void watch_filter_release(struct watch_filter *f)
{
	size_t i;

	for (i = 0; i < f->n_subject_res; i++)
		regfree(&f->subject_res[i]);
	free(f->subject_res);
	for (i = 0; i < f->n_path_globs; i++)
		free(f->path_globs[i]);
	free(f->path_globs);
	memset(f, 0, sizeof(*f));
}

static int subject_passes(const struct watch_filter *f, const char *subject,
			  const char *title)
{
	size_t i;

	if (!f->n_subject_res)
		return 1;
	for (i = 0; i < f->n_subject_res; i++)
		if (!regexec(&f->subject_res[i], subject, 0, NULL, 0) ||
		    !regexec(&f->subject_res[i], title, 0, NULL, 0))
			return 1;
	return 0;
}

int watch_entry_wanted(const struct watch_filter *f, const char *subject,
		       const char **why)
{
	struct series_subject s;
	int ret = 0;

	series_subject_parse(subject, &s);
	if (s.is_reply)
		*why = "a reply";
	else if (!s.has_prefix)
		*why = "no [PATCH] or [RFC] prefix";
	else if (!subject_passes(f, subject, s.title))
		*why = "subject filter does not match";
	else
		ret = 1;
	series_subject_release(&s);
	return ret;
}

const char *watch_action_str(enum watch_action a)
{
	switch (a) {
	case WATCH_SKIP:
		return "skip";
	case WATCH_WAIT:
		return "wait";
	case WATCH_QUEUE:
		return "queue";
	case WATCH_GIVE_UP:
		return "give-up";
	}
	return "unknown";
}

static int patch_subject_passes(const struct watch_filter *f,
				const struct series_patch *p)
{
	return p && subject_passes(f, p->subject, p->title);
}

static int paths_pass(const struct watch_filter *f, const struct series *s)
{
	size_t i, j, k;

	if (!f->n_path_globs)
		return 1;
	for (i = 0; i < s->nr_patches; i++)
		for (j = 0; j < s->patches[i]->nr_files; j++)
			for (k = 0; k < f->n_path_globs; k++)
				if (!fnmatch(f->path_globs[k],
					     s->patches[i]->files[j], 0))
					return 1;
	return 0;
}

enum watch_action watch_decide(const struct watch_filter *f,
			       const struct series *s, long long first_seen,
			       long long now, int wait_s, const char **why)
{
	size_t i;
	int subject_ok;

	*why = NULL;
	if (!s->nr_patches && !s->cover) {
		*why = "no patch in the thread";
		return WATCH_SKIP;
	}
	subject_ok = patch_subject_passes(f, s->cover);
	for (i = 0; !subject_ok && i < s->nr_patches; i++)
		subject_ok = patch_subject_passes(f, s->patches[i]);
	if (!subject_ok) {
		*why = "subject filter does not match";
		return WATCH_SKIP;
	}
	if (s->nr_patches && !paths_pass(f, s)) {
		*why = "no touched file matches the path filter";
		return WATCH_SKIP;
	}
	if (s->status == SERIES_COMPLETE)
		return WATCH_QUEUE;
	if (now < first_seen + wait_s) {
		*why = "incomplete: waiting for the missing patches";
		return WATCH_WAIT;
	}
	*why = "incomplete after the wait";
	return WATCH_GIVE_UP;
}

char *watch_series_key(const struct series *s)
{
	const struct series_patch *p = s->cover;
	struct strbuf sb = STRBUF_INIT;

	if (!p && s->nr_patches)
		p = s->patches[0];
	if (!p || !*p->message_id)
		return NULL;
	strbuf_addf(&sb, "<%s> v%d", p->message_id, s->version);
	return strbuf_detach(&sb, NULL);
}

void watch_seen_init(struct watch_seen *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max ? max : 1;
	s->ring = xcalloc(s->max, sizeof(char *));
}

void watch_seen_release(struct watch_seen *s)
{
	size_t i;

	for (i = 0; s->ring && i < s->max; i++)
		free(s->ring[i]);
	free(s->ring);
	memset(s, 0, sizeof(*s));
}

int watch_seen_has(const struct watch_seen *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->ring[i], key))
			return 1;
	return 0;
}

int watch_seen_add(struct watch_seen *s, const char *key)
{
	if (watch_seen_has(s, key))
		return 1;
	free(s->ring[s->next]);
	s->ring[s->next] = xstrdup(key);
	s->next = (s->next + 1) % s->max;
	if (s->nr < s->max)
		s->nr++;
	return 0;
}
