/*
 * t-numfmt.c - what numfmt.h promises: a change with one decimal, but
 * never one that is not zero written as 0.0; a value with six
 * significant digits, whole where that would need an exponent.
 */
#include <math.h>
#include <string.h>

#include "numfmt.h"
#include "tap.h"

static void pct(double v, const char *want)
{
	char buf[NUMFMT_BUF];

	numfmt_pct(v, buf, sizeof(buf));
	is_str(buf, want, "change %g%% is %s", v, want);
}

static void value(double v, const char *want)
{
	char buf[NUMFMT_BUF];

	numfmt_value(v, buf, sizeof(buf));
	is_str(buf, want, "value %g is %s", v, want);
}

static void ci(double lo, double hi, const char *want)
{
	char buf[NUMFMT_CI_BUF];

	numfmt_ci(lo, hi, buf, sizeof(buf));
	is_str(buf, want, "interval %g%%..%g%% is %s", lo, hi, want);
}

int main(void)
{
	char buf[NUMFMT_BUF], cibuf[NUMFMT_CI_BUF];

	pct(20.04, "+20.0%");
	pct(-3.26, "-3.3%");
	pct(1536.74, "+1536.7%");
	pct(0, "+0.0%");
	pct(-0.0, "+0.0%");
	pct(0.05, "+0.1%");
	pct(-0.0117, "-0.012%");
	pct(0.0499, "+0.05%");
	pct(-0.00004, "-4e-05%");
	pct(2.5e16, "+2.500e+16%");
	pct(NAN, "-");
	pct(INFINITY, "-");
	pct(-INFINITY, "-");

	value(4821266, "4821266");
	value(1000004.5, "1000004");
	value(267600.4, "267600");
	value(8876.16, "8876.16");
	value(1198.8, "1198.8");
	value(349.5, "349.5");
	value(131, "131");
	value(0.012345, "0.012345");
	value(0, "0");
	value(-1536.7, "-1536.7");
	value(3e15, "3e+15");
	value(NAN, "-");
	value(-INFINITY, "-");

	ci(1528.66, 1528.74, "[+1528.7%, +1528.7%]");
	ci(-0.0213, -0.0081, "[-0.021%, -0.0081%]");
	ci(-3.26, 0, "[-3.3%, +0.0%]");
	ci(NAN, 2, "-");
	ci(-2, INFINITY, "-");

	/* Each fits its buffer whatever the double. */
	numfmt_pct(-9.99e14, buf, sizeof(buf));
	ok(strlen(buf) < sizeof(buf) - 1, "largest fixed change fits: %s",
	   buf);
	numfmt_value(-9.99e14, buf, sizeof(buf));
	ok(strlen(buf) < sizeof(buf) - 1, "largest whole value fits: %s", buf);
	numfmt_value(-1e-300, buf, sizeof(buf));
	ok(strlen(buf) < sizeof(buf) - 1, "tiniest value fits: %s", buf);
	numfmt_ci(-2.5e300, -9.99e14, cibuf, sizeof(cibuf));
	ok(strlen(cibuf) < sizeof(cibuf) - 1, "widest interval fits: %s",
	   cibuf);
	return done_testing();
}
