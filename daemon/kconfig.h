/*
 * kconfig.h - pure checks of kernel configuration text.
 *
 * A fragment is the usual merge_config.sh input: "CONFIG_FOO=y",
 * "CONFIG_BAR=\"text\"" and "# CONFIG_BAZ is not set" lines.  After
 * olddefconfig resolved dependencies, kconfig_dropped() lists every fragment
 * line the effective .config does not honour, so that a build can say "the
 * fragment asked for ZSWAP but the tree cannot give it".  No I/O here.
 */
#ifndef KREGRESS_KCONFIG_H
#define KREGRESS_KCONFIG_H

#include "strbuf.h"

/*
 * Looks symbol name (without "CONFIG_") up in config text.  Returns 1 and
 * a malloc'd value in *value ("y", "m", "\"x\"", "32") if set, 0 if it is
 * absent or "is not set" (then *value is NULL).
 */
int kconfig_get(const char *config, const char *name, char **value);

/*
 * Appends to dropped one line per fragment entry that config does not
 * honour, as "CONFIG_FOO=y (now: not set)" or "CONFIG_FOO=y (now: m)".
 * Returns the number of such entries, or -1 (logged) if the fragment has a
 * line that is neither an assignment, "is not set", a comment nor blank.
 */
int kconfig_dropped(const char *fragment, const char *config,
		    struct strbuf *dropped);

#endif
