/*
 * pct.h - a change in percent as the text outputs print it (the CLI's
 * tables, the report mails), in one place so that they agree.
 */
#ifndef KREGRESS_PCT_H
#define KREGRESS_PCT_H

#include <stddef.h>

#define PCT_BUF 24	/* enough for any double pct_format() prints */

/*
 * Writes pct (already in percent) signed with one decimal ("+20.0%"),
 * or with two significant digits where one decimal would round a value
 * that is not zero to 0.0 ("-0.012%"): a significant change of a few
 * hundredths of a percent must not read as "-0.0%" beside an interval
 * that excludes 0.  "-" for NaN or an infinity.  Pure.
 */
void pct_format(double pct, char *buf, size_t size);

#endif
