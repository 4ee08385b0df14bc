/*
 * arch.c - the arch table (see arch.h).  Pure: no I/O.
 *
 * Why the entries say what they say:
 * - x86_64 under TCG: the TSC is not trusted and the clock would tick in
 *   4 ms steps (DESIGN.md section 7); tsc=reliable keeps it fine-grained.
 *   nolapic_timer: the kernel otherwise calibrates the local APIC timer
 *   against the PM timer by busy-waiting 100 ms of guest time on I/O
 *   reads, which instruction time runs at a few tens of millions of
 *   instructions a second: 2.6 s of wall time, half of an x86_64 boot's
 *   own cost (the shipped plan's boots: 10.6 s with it, 7.5 s without).
 *   A one-vCPU guest then ticks from the HPET instead; base and patched
 *   boot alike.  Measured by hand on a timestamped console: "calibrating
 *   APIC timer" to "lapic delta" took 2.60 s of wall time for 0.216 s of
 *   guest time; tests/bench/boot-phases.py prints what a boot costs now.
 * - x86_64 asks for ACPI: without <acpi/> libvirt starts the guest with
 *   ACPI off, and the kernel then finds no HPET or PM timer, cannot
 *   calibrate the TSC under TCG, keeps time in jiffies (every workload
 *   time reads 0) and cannot power off.  arm64 boots from the device tree.
 * - arm64's PL011 driver registers its console only in the initcalls;
 *   earlycon (the device tree's stdout-path) prints what comes before,
 *   such as a panic early in kernel_init.
 * - arm64 boots on QEMU's "virt" machine; under TCG with `-cpu max`
 *   (every feature QEMU emulates), under KVM with the host's CPU.
 */
#include <string.h>

#include "arch.h"
#include "strbuf.h"

const struct arch arch_table[] = {
	{
		.name = "x86_64",
		.alias = "amd64",
		.machine = "x86_64",
		.karch = "x86_64",
		.cross_compile = "",
		.make_target = "bzImage",
		.image = "arch/x86/boot/bzImage",
		.image_name = "bzImage",
		.qemu_machine = "pc",
		.console = "ttyS0",
		.tcg_cmdline = " tsc=reliable nolapic_timer",
		.tcg_cpu = NULL,
		.acpi = 1,
		.no_usb = 1,
	},
	{
		.name = "arm64",
		.alias = NULL,
		.machine = "aarch64",
		.karch = "arm64",
		.cross_compile = "aarch64-linux-gnu-",
		.make_target = "Image",
		.image = "arch/arm64/boot/Image",
		.image_name = "Image",
		.qemu_machine = "virt",
		.console = "ttyAMA0 earlycon",
		.tcg_cmdline = "",
		.tcg_cpu = "max",
		.acpi = 0,
		.no_usb = 0,
	},
	{ .name = NULL },
};

_Static_assert(sizeof(arch_table) / sizeof(arch_table[0]) <= ARCH_MAX + 1,
	       "arch_table has more entries than ARCH_MAX");

const char *const arch_accel_names[ARCH_ACCEL_COUNT] = {
	[ARCH_AUTO] = "auto",
	[ARCH_KVM] = "kvm",
	[ARCH_TCG] = "tcg",
};

size_t arch_index(const struct arch *a)
{
	return (size_t)(a - arch_table);
}

const struct arch *arch_find(const char *name)
{
	const struct arch *a;

	for (a = arch_table; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

const struct arch *arch_parse(const char *s)
{
	const struct arch *a;

	for (a = arch_table; a->name; a++)
		if (!strcmp(a->name, s) || !strcmp(a->machine, s) ||
		    (a->alias && !strcmp(a->alias, s)))
			return a;
	return NULL;
}

void arch_names(struct strbuf *sb, const char *quote)
{
	const struct arch *a;

	for (a = arch_table; a->name; a++)
		strbuf_addf(sb, "%s%s%s%s", a == arch_table ? "" :
			    a[1].name ? ", " : " or ", quote, a->name, quote);
}

const char *arch_accel_str(enum arch_accel accel)
{
	return (unsigned int)accel < ARCH_ACCEL_COUNT ?
	       arch_accel_names[accel] : "unknown";
}

int arch_accel_parse(const char *s, enum arch_accel *out)
{
	if (!strcmp(s, "kvm"))
		*out = ARCH_KVM;
	else if (!strcmp(s, "tcg") || !strcmp(s, "qemu"))
		*out = ARCH_TCG;
	else
		return -1;
	return 0;
}
