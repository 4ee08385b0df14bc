/*
 * arch.h - the architectures kregress builds and boots, one table (pure).
 *
 * Everything that differs between two arches is a field of its entry in
 * arch_table[]: the name the configuration, the queue and the database
 * use, what the kernel build needs (ARCH=, the default cross compiler,
 * the image), the uname machine (the directory of the static workloads
 * and libvirt's guest arch) and what vm.c writes into a domain (QEMU
 * machine, console, what TCG needs).  Adding an arch is adding an entry
 * there (and its config fragment, builders/configs/<name>.config, and
 * its workloads' compiler in workloads/workloads.mk).
 *
 * An arch is named by its entry: code compares `const struct arch *`, and
 * per-arch arrays are indexed by arch_index().
 *
 * The accelerators are here too: an arch boots under KVM or under TCG,
 * and a configured host may leave the choice to a probe ("auto").
 */
#ifndef KREGRESS_ARCH_H
#define KREGRESS_ARCH_H

#include <stddef.h>

struct strbuf;

struct arch {
	const char *name;	/* "x86_64", "arm64" */
	const char *alias;	/* another name the CLI takes, or NULL */
	const char *machine;	/* uname -m: "x86_64", "aarch64" */
	/* building (build.c) */
	const char *karch;	/* the kernel's ARCH= */
	const char *cross_compile;	/* default CROSS_COMPILE, "" native */
	const char *make_target;	/* "bzImage", "Image" */
	const char *image;	/* the image's path in O= */
	const char *image_name;	/* its name in the artefact directory */
	/* booting (vm.c) */
	const char *qemu_machine;	/* "pc", "virt" */
	const char *console;	/* console= and what goes with it */
	const char *tcg_cmdline;	/* added under TCG; "" none */
	const char *tcg_cpu;	/* CPU model under TCG; NULL QEMU's own */
	int acpi;		/* the domain asks for <acpi/> */
	int no_usb;		/* the machine's default USB controller off */
};

/* Every arch, in the order their jobs are queued; ends with a NULL name. */
extern const struct arch arch_table[];

/* Room in per-arch arrays; arch.c checks that arch_table fits. */
#define ARCH_MAX	8

/* The entry's position in arch_table. */
size_t arch_index(const struct arch *a);

/* The arch of a name as the configuration and database say it, or NULL. */
const struct arch *arch_find(const char *name);

/* Also by alias or uname machine ("amd64", "aarch64"): the command line's
 * and a host's names.  NULL if unknown. */
const struct arch *arch_parse(const char *s);

/* Appends the names for a message: `"x86_64" or "arm64"` (quote "\"") or
 * `x86_64 or arm64` (quote ""). */
void arch_names(struct strbuf *sb, const char *quote);

enum arch_accel {
	ARCH_AUTO,		/* a host's: probe, KVM if it really boots */
	ARCH_KVM,		/* libvirt domain type "kvm" */
	ARCH_TCG,		/* domain type "qemu": emulation */
	ARCH_ACCEL_COUNT
};

/* "auto", "kvm", "tcg" (the configuration's names, in enum order). */
extern const char *const arch_accel_names[ARCH_ACCEL_COUNT];
const char *arch_accel_str(enum arch_accel accel);
/* "kvm", "tcg" or "qemu" (libvirt's name for TCG); -1 otherwise. */
int arch_accel_parse(const char *s, enum arch_accel *out);

#endif
