/*
 * numfmt.c - the numbers the text outputs print (see numfmt.h).  Pure:
 * no I/O.
 */
#include <math.h>
#include <stdio.h>

#include "numfmt.h"

void numfmt_pct(double pct, char *buf, size_t size)
{
	if (!isfinite(pct))
		snprintf(buf, size, "-");
	else if (fabs(pct) >= 1e15)
		snprintf(buf, size, "%+.3e%%", pct);
	else if (pct == 0)	/* -0.0 too */
		snprintf(buf, size, "+0.0%%");
	else if (fabs(pct) < 0.05)
		snprintf(buf, size, "%+.2g%%", pct);
	else
		snprintf(buf, size, "%+.1f%%", pct);
}

void numfmt_value(double v, char *buf, size_t size)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (a >= 1e6 && a < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.6g", v);
}

void numfmt_ci(double lo_pct, double hi_pct, char *buf, size_t size)
{
	char lo[NUMFMT_BUF], hi[NUMFMT_BUF];

	if (!isfinite(lo_pct) || !isfinite(hi_pct)) {
		snprintf(buf, size, "-");
		return;
	}
	numfmt_pct(lo_pct, lo, sizeof(lo));
	numfmt_pct(hi_pct, hi, sizeof(hi));
	snprintf(buf, size, "[%s, %s]", lo, hi);
}
