/*
 * apply_input.h - a parsed mail series (series.h) as the apply module's
 * input (apply.h): one struct apply_patch per patch, with the commit
 * message git am would make (reply trailers included).
 *
 * Shared by `kregress apply` (cli_apply.c) and the pipeline's apply stage
 * (stage_apply.c), so that both commit exactly the same thing.
 */
#ifndef KREGRESS_APPLY_INPUT_H
#define KREGRESS_APPLY_INPUT_H

#include <stddef.h>

#include "strbuf.h"

struct apply_patch;
struct series;

struct apply_input {
	struct apply_patch *patches;	/* n entries, pointing into s */
	struct strbuf *msgs;		/* the commit messages */
	size_t n;
};

/*
 * Fills in from the patches of s in order; in borrows s's strings, so s
 * must outlive it.  Release with apply_input_release().
 */
void apply_input_from_series(const struct series *s, struct apply_input *in);

/* Frees what apply_input_from_series() allocated; accepts a zeroed in. */
void apply_input_release(struct apply_input *in);

#endif
