/*
 * layout.h - the layout control's rules: how the control kernels are
 * built, when a series gets one, and what its result says.
 *
 * A patch that only moves code (a function added to a file, a line
 * moved) can change the time of code it never touches: the functions
 * and loops after it start at other offsets within cache lines and
 * fetch windows.  The control rebuilds base and patched with every
 * function and loop aligned to 64 bytes (LAYOUT_KCFLAGS, appended to
 * the kernel's own flags, so it overrides x86's -falign-loops=1), so
 * that code the patch did not change keeps its alignment, and measures
 * the significant metrics again.  A change that stays is the patch's; a
 * change that vanishes came from where code ended up.
 *
 * The flags include -O2: GCC (up to 13) ignores -falign-functions and
 * -falign-loops under -Os, which tinyconfig-based configurations such as
 * the shipped builders' select (measured: the System.map of an -Os
 * kernel built with them is the plain one's, byte for byte), and the
 * last -O of the command line wins.  A configuration built with -O2 is
 * unchanged by it but for the alignment.
 */
#ifndef KREGRESS_LAYOUT_H
#define KREGRESS_LAYOUT_H

/* The kernels a build, run or comparison is of. */
enum layout {
	LAYOUT_AS_BUILT,	/* the series' own: the configured flags */
	LAYOUT_ALIGNED,		/* the control's: LAYOUT_KCFLAGS added */
};

#define LAYOUT_KCFLAGS	"-O2 -falign-functions=64 -falign-loops=64"

/* "as-built" or "aligned", as the database stores it. */
const char *layout_str(enum layout layout);
/* KCFLAGS for the build of that layout; NULL for the configured flags. */
const char *layout_kcflags(enum layout layout);

/* Which runs get a control (stats.layout_control). */
enum layout_when {
	LAYOUT_WHEN_REAL_TIME,	/* runs measured in real time (default) */
	LAYOUT_WHEN_ALWAYS,	/* instruction time too */
	LAYOUT_WHEN_NEVER,
};

/*
 * Whether a run measured by clock ("real" or "instructions") gets a
 * control under when; if not, *why says why (static text).
 */
int layout_when_applies(enum layout_when when, const char *clock,
			const char **why);

/* Whether an as-built verdict is one the control checks: regression,
 * improvement, likely-regression, likely-improvement. */
int layout_wanted(const char *verdict);

enum layout_outcome {
	LAYOUT_CONFIRMED,	/* the control shows the same change */
	LAYOUT_SENSITIVE,	/* it shows none, a minor one or the
				 * opposite: the change came from layout */
	LAYOUT_UNCONFIRMED,	/* it could not tell (too few boots, no
				 * samples) */
};

/* "confirmed", "layout-sensitive", "unconfirmed". */
const char *layout_outcome_str(enum layout_outcome o);

/*
 * What the control's verdict (control; NULL when it has none for the
 * metric) says of an as-built verdict layout_wanted() accepts: confirmed
 * when it is significant in the same direction (likely-* included),
 * layout-sensitive when it decides otherwise (no-change, minor, or
 * significant the other way), unconfirmed when it decides nothing.
 */
enum layout_outcome layout_decide(const char *as_built, const char *control);

#endif
