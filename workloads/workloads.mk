# workloads/workloads.mk - the static workload programs and the guest /init,
# for x86_64 and aarch64.
#
# Layout (stable; builders/ packs it into the initramfs as /init and
# /bin/<workload>, plus the plan as /plan):
#
#   $(BUILD)/workloads/<arch>/init
#   $(BUILD)/workloads/<arch>/{thp-fault,memset-order,mremap,zero-swap,
#                              page-zero-check}
#
# frame.c, plan.c and interval.c come from proto/, the code shared with
# libkregress (one copy, compiled both ways).
#
# <arch> is x86_64 or aarch64 (the kernel's arm64).  The aarch64 set is
# built only when the cross compiler is installed.  The binaries do not use
# SANITIZE flags: static linking and the sanitizers do not mix.

WL_NAMES   := thp-fault memset-order mremap zero-swap page-zero-check
WL_ARCHES  := x86_64
WL_CC_x86_64  := $(if $(filter x86_64,$(shell uname -m)),$(CC),x86_64-linux-gnu-gcc)
WL_CC_aarch64 := $(if $(filter aarch64,$(shell uname -m)),$(CC),aarch64-linux-gnu-gcc)
ifneq ($(shell command -v $(WL_CC_aarch64) 2>/dev/null),)
WL_ARCHES  += aarch64
endif
WL_CFLAGS  ?= -O2 -g
WL_FLAGS   := -std=gnu11 -D_GNU_SOURCE -Iproto -Iworkloads -static $(WARNINGS)
WL_BINS    := $(foreach a,$(WL_ARCHES),$(addprefix $(BUILD)/workloads/$(a)/,init $(WL_NAMES)))
WL_SHARED  := workloads/common.c workloads/common.h proto/frame.c \
	      proto/frame.h proto/interval.c proto/interval.h

define WL_ARCH_RULES
$(BUILD)/workloads/$(1)/init: workloads/init.c proto/frame.c proto/frame.h \
		proto/plan.c proto/plan.h
	$$(quiet) CC $$@
	@mkdir -p $$(@D)
	$$(Q)$$(WL_CC_$(1)) $$(WL_FLAGS) $$(WL_CFLAGS) -o $$@ \
		workloads/init.c proto/frame.c proto/plan.c

$(BUILD)/workloads/$(1)/%: workloads/%.c $$(WL_SHARED)
	$$(quiet) CC $$@
	@mkdir -p $$(@D)
	$$(Q)$$(WL_CC_$(1)) $$(WL_FLAGS) $$(WL_CFLAGS) -o $$@ \
		$$< workloads/common.c proto/frame.c proto/interval.c
endef
$(foreach a,$(WL_ARCHES),$(eval $(call WL_ARCH_RULES,$(a))))

workloads: $(WL_BINS)
.PHONY: workloads

ALL_EXTRA += $(WL_BINS)

install: install-workloads
install-workloads: $(WL_BINS)
	set -e; for a in $(WL_ARCHES); do \
		install -d $(DESTDIR)$(DATADIR)/workloads/$$a; \
		install -m 755 $(BUILD)/workloads/$$a/* \
			$(DESTDIR)$(DATADIR)/workloads/$$a/; \
	done
	install -d $(DESTDIR)$(DATADIR)/plans
	install -m 644 workloads/plans/*.plan $(DESTDIR)$(DATADIR)/plans/
.PHONY: install-workloads
