/*
 * plan_file.h - a plan file, checked and made ready for the kernel
 * command line.
 *
 * The plan travels to the guest /init as kregress.plan="a;b;c" (plan.h):
 * comments and blank lines dropped, lines joined by ';'.  The kernel's
 * command line holds 2048 bytes on x86_64 and arm64, so a plan longer
 * than PLAN_FILE_CMDLINE_MAX is refused here instead of being cut by the
 * kernel.  The parsed plan is kept beside its command line, so that the
 * caller can size the guest from its machine line and check a kernel's
 * configuration against it (plan_kconfig.h).
 */
#ifndef KREGRESS_PLAN_FILE_H
#define KREGRESS_PLAN_FILE_H

#include "arch.h"
#include "strbuf.h"

#define PLAN_FILE_CMDLINE_MAX	1536	/* of the kernel's 2048 bytes */

struct plan;

struct plan_file {
	char *path;		/* as given */
	struct plan *plan;	/* parsed; on the heap (about 70 KiB) */
	struct strbuf cmdline;	/* kregress.plan="..." */
};

/*
 * Reads and checks the plan at path into *pf.  Returns 0, or -1 with the
 * reason, naming the file, in err (nothing logged): unreadable, invalid,
 * a '"' or ';' in it, or too long for the command line.  Release *pf
 * with plan_file_release() in either case.
 */
int plan_file_load(struct plan_file *pf, const char *path,
		   struct strbuf *err);
void plan_file_release(struct plan_file *pf);

struct config;

/*
 * Loads the plan the configuration gives arch under accel (ARCH_KVM or
 * ARCH_TCG), else the shipped default-kvm.plan or default-tcg.plan of
 * KREGRESS_DATADIR/plans.  0, or -1 with "<arch>: the plan cannot be
 * used: <why>" appended to reason.  Release *pf in either case.
 */
int plan_file_load_configured(struct plan_file *pf, const struct config *cfg,
			      const struct arch *arch, enum arch_accel accel,
			      struct strbuf *reason);

#endif
