/*
 * apply_input.c - parsed series -> struct apply_patch (see apply_input.h).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "apply.h"
#include "apply_input.h"
#include "log.h"
#include "series.h"

void apply_input_from_series(const struct series *s, struct apply_input *in)
{
	size_t i;

	memset(in, 0, sizeof(*in));
	if (!s->nr_patches)
		return;
	in->patches = xcalloc(s->nr_patches, sizeof(*in->patches));
	in->msgs = xcalloc(s->nr_patches, sizeof(*in->msgs));
	in->n = s->nr_patches;
	for (i = 0; i < s->nr_patches; i++) {
		const struct series_patch *p = s->patches[i];
		struct apply_patch *ap = &in->patches[i];

		strbuf_init(&in->msgs[i]);
		series_patch_commit_message(p, 1, &in->msgs[i]);
		ap->author_name = p->author_name;
		ap->author_email = p->author_email;
		ap->time = p->has_date ? p->date : 0;
		ap->tz_min = p->tz_offset_min;
		ap->message = in->msgs[i].buf;
		ap->diff = p->diff ? p->diff : "";
		ap->diff_len = p->diff_len;
	}
}

void apply_input_release(struct apply_input *in)
{
	size_t i;

	for (i = 0; in->msgs && i < in->n; i++)
		strbuf_release(&in->msgs[i]);
	free(in->msgs);
	free(in->patches);
	memset(in, 0, sizeof(*in));
}
