/*
 * plan_file.h - a plan file made ready for the kernel command line.
 *
 * The plan travels to the guest /init as kregress.plan="a;b;c" (plan.h):
 * comments and blank lines dropped, lines joined by ';'.  The kernel's
 * command line holds 2048 bytes on x86_64 and arm64, so a plan longer
 * than PLAN_FILE_CMDLINE_MAX is refused here instead of being cut by the
 * kernel.
 */
#ifndef KREGRESS_PLAN_FILE_H
#define KREGRESS_PLAN_FILE_H

#include "strbuf.h"

#define PLAN_FILE_CMDLINE_MAX	1536	/* of the kernel's 2048 bytes */

/*
 * Reads and checks the plan at path and appends kregress.plan="..." to
 * out; *memory_mib and *vcpus (may be NULL) get the guest its "machine"
 * line asks for, 0 when it has none.  Returns 0, or -1 (logged, naming
 * the file) on an unreadable or invalid plan, a '"' or ';' in it, or one
 * too long.
 */
int plan_file_cmdline(const char *path, struct strbuf *out,
		      unsigned int *memory_mib, unsigned int *vcpus);

/*
 * The same checks and rendering on len bytes of plan text, without I/O:
 * 0, or -1 with the reason appended to err (not logged).
 */
int plan_file_text(const char *text, size_t len, struct strbuf *out,
		   unsigned int *memory_mib, unsigned int *vcpus,
		   struct strbuf *err);

#endif
