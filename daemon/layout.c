/*
 * layout.c - the layout control's rules (see layout.h).
 */
#include <string.h>

#include "layout.h"

const char *layout_str(enum layout layout)
{
	return layout == LAYOUT_ALIGNED ? "aligned" : "as-built";
}

const char *layout_kcflags(enum layout layout)
{
	return layout == LAYOUT_ALIGNED ? LAYOUT_KCFLAGS : NULL;
}

int layout_when_applies(enum layout_when when, const char *clock,
			const char **why)
{
	if (when == LAYOUT_WHEN_NEVER) {
		*why = "stats.layout_control is \"never\"";
		return 0;
	}
	if (when == LAYOUT_WHEN_REAL_TIME && strcmp(clock, "real")) {
		*why = "instruction time counts instructions, which code "
		       "placement does not change beyond alignment padding "
		       "(stats.layout_control \"always\" controls it too)";
		return 0;
	}
	*why = NULL;
	return 1;
}

/* +1 for a significant regression verdict, -1 for an improvement, else 0. */
static int sign(const char *v)
{
	if (!strcmp(v, "regression") || !strcmp(v, "likely-regression"))
		return 1;
	if (!strcmp(v, "improvement") || !strcmp(v, "likely-improvement"))
		return -1;
	return 0;
}

int layout_wanted(const char *verdict)
{
	return sign(verdict) != 0;
}

const char *layout_outcome_str(enum layout_outcome o)
{
	switch (o) {
	case LAYOUT_CONFIRMED:
		return "confirmed";
	case LAYOUT_SENSITIVE:
		return "layout-sensitive";
	case LAYOUT_UNCONFIRMED:
		break;
	}
	return "unconfirmed";
}

enum layout_outcome layout_decide(const char *as_built, const char *control)
{
	if (!control || !strcmp(control, "inconclusive") ||
	    !strcmp(control, "insufficient-data"))
		return LAYOUT_UNCONFIRMED;
	return sign(control) == sign(as_built) ? LAYOUT_CONFIRMED :
	       LAYOUT_SENSITIVE;
}
