/*
 * t-pct.c - what pct.h promises: one decimal, but never a change that
 * is not zero written as 0.0.
 */
#include <math.h>

#include "pct.h"
#include "tap.h"

static void check(double v, const char *want)
{
	char buf[PCT_BUF];

	pct_format(v, buf, sizeof(buf));
	is_str(buf, want, "%g%% is %s", v, want);
}

int main(void)
{
	check(20.04, "+20.0%");
	check(-3.26, "-3.3%");
	check(1536.74, "+1536.7%");
	check(0, "+0.0%");
	check(-0.0, "+0.0%");
	check(0.05, "+0.1%");
	check(-0.0117, "-0.012%");
	check(0.0499, "+0.05%");
	check(-0.00004, "-4e-05%");
	check(NAN, "-");
	check(INFINITY, "-");
	check(-INFINITY, "-");
	return done_testing();
}
