/*
 * t-layout.c - the layout control's rules (layout.c): what an aligned
 * verdict says of an as-built one, which verdicts get a control, which
 * runs, and the flags the aligned kernels are built with.
 */
#include <stddef.h>
#include <string.h>

#include "layout.h"
#include "tap.h"

static void test_decide(void)
{
	static const struct {
		const char *as_built, *control;
		enum layout_outcome want;
	} cases[] = {
		{ "regression", "regression", LAYOUT_CONFIRMED },
		{ "regression", "likely-regression", LAYOUT_CONFIRMED },
		{ "likely-regression", "regression", LAYOUT_CONFIRMED },
		{ "improvement", "likely-improvement", LAYOUT_CONFIRMED },
		{ "regression", "no-change", LAYOUT_SENSITIVE },
		{ "regression", "minor", LAYOUT_SENSITIVE },
		{ "regression", "improvement", LAYOUT_SENSITIVE },
		{ "likely-improvement", "likely-regression", LAYOUT_SENSITIVE },
		{ "improvement", "no-change", LAYOUT_SENSITIVE },
		{ "regression", "inconclusive", LAYOUT_UNCONFIRMED },
		{ "regression", "insufficient-data", LAYOUT_UNCONFIRMED },
		{ "improvement", NULL, LAYOUT_UNCONFIRMED },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(layout_outcome_str(layout_decide(cases[i].as_built,
							cases[i].control)),
		       layout_outcome_str(cases[i].want), "%s, aligned %s",
		       cases[i].as_built,
		       cases[i].control ? cases[i].control : "none");
}

static void test_wanted(void)
{
	static const char *const yes[] = { "regression", "improvement",
		"likely-regression", "likely-improvement" };
	static const char *const no[] = { "minor", "no-change",
		"inconclusive", "insufficient-data", "layout-sensitive" };
	size_t i;

	for (i = 0; i < 4; i++)
		ok(layout_wanted(yes[i]), "%s gets a control", yes[i]);
	for (i = 0; i < 5; i++)
		ok(!layout_wanted(no[i]), "%s does not", no[i]);
}

static void test_when(void)
{
	const char *why;

	ok(layout_when_applies(LAYOUT_WHEN_REAL_TIME, "real", &why) &&
	   why == NULL, "real-time: a real-time run gets one");
	ok(!layout_when_applies(LAYOUT_WHEN_REAL_TIME, "instructions", &why) &&
	   why && strstr(why, "instruction time"), "real-time: an "
	   "instruction-time run does not, and why (%s)", why);
	ok(layout_when_applies(LAYOUT_WHEN_ALWAYS, "instructions", &why),
	   "always: instruction time too");
	ok(!layout_when_applies(LAYOUT_WHEN_NEVER, "real", &why) && why &&
	   strstr(why, "never"), "never: none, and why (%s)", why);
}

int main(void)
{
	test_decide();
	test_wanted();
	test_when();
	is_str(layout_kcflags(LAYOUT_ALIGNED),
	       "-O2 -falign-functions=64 -falign-loops=64",
	       "aligned: functions and loops on 64 bytes, at -O2 (where "
	       "GCC applies the alignment)");
	ok(layout_kcflags(LAYOUT_AS_BUILT) == NULL,
	   "as built: the configured flags");
	is_str(layout_str(LAYOUT_AS_BUILT), "as-built", "as-built");
	is_str(layout_str(LAYOUT_ALIGNED), "aligned", "aligned");
	return done_testing();
}
