/*
 * pct.c - a change in percent as text (see pct.h).  Pure: no I/O.
 */
#include <math.h>
#include <stdio.h>

#include "pct.h"

void pct_format(double pct, char *buf, size_t size)
{
	if (!isfinite(pct))
		snprintf(buf, size, "-");
	else if (pct == 0)	/* -0.0 too */
		snprintf(buf, size, "+0.0%%");
	else if (fabs(pct) < 0.05)
		snprintf(buf, size, "%+.2g%%", pct);
	else
		snprintf(buf, size, "%+.1f%%", pct);
}
