/*
 * numfmt.h - the numbers the text outputs print (the CLI's tables, the
 * report mails): a change in percent and a measured value, each written
 * in one place so that they agree.
 */
#ifndef KREGRESS_NUMFMT_H
#define KREGRESS_NUMFMT_H

#include <stddef.h>

#define NUMFMT_BUF 24	/* enough for anything either function prints */

/*
 * Writes pct (already in percent) signed with one decimal ("+20.0%"),
 * or with two significant digits where one decimal would round a value
 * that is not zero to 0.0 ("-0.012%"): a significant change of a few
 * hundredths of a percent must not read as "-0.0%" beside an interval
 * that excludes 0; beyond 1e15 "%+.3e%".  "-" for NaN or an infinity.
 * Pure.
 */
void numfmt_pct(double pct, char *buf, size_t size);

/*
 * Writes a measured value (a median, a mean) with six significant
 * digits, as %.6g does (8876.16, 349.5, 0.012345), but whole from 1e6
 * to 1e15 instead of with an exponent ("4821266", never "4.82127e+06"):
 * two values side by side then give the change between them to the
 * printed 0.1%.  "-" for NaN or an infinity.  Pure.
 */
void numfmt_value(double v, char *buf, size_t size);

#define NUMFMT_CI_BUF (2 * NUMFMT_BUF + 4)

/*
 * Writes an interval of changes in percent as "[lo, hi]", each end as
 * numfmt_pct() writes it; "-" when either end is NaN or an infinity (no
 * interval).  Pure.
 */
void numfmt_ci(double lo_pct, double hi_pct, char *buf, size_t size);

#endif
