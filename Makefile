# kregress - plain GNU make with pkg-config.
#
#   make                 build kregressd, kregress, workloads, tests
#   make check           every test (kernel builds and VM boots included)
#   make check-fast      unit and integration tests without kernels or VMs
#   make SANITIZE=address,undefined check-fast   (or check: the whole suite)
#   make bench           benchmark programs; they print measured figures
#   make deps            install the Debian packages the project needs
#   make run             install deps, build, start kregressd on defaults
#   make example         submit the bundled example series to it, watch
#   make install         PREFIX=/usr/local DESTDIR=
#
# V=1 shows full command lines, DEVELOPER=1 adds -Werror, BUILD=DIR puts
# every generated file under DIR (default build/, or build-asan/ with
# SANITIZE, so that instrumented and plain objects never mix).

BUILD     ?= $(if $(SANITIZE),build-asan,build)
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
SBINDIR   ?= $(PREFIX)/sbin
DATADIR   ?= $(PREFIX)/share/kregress
UNITDIR   ?= /lib/systemd/system
DESTDIR   ?=

CC        ?= cc
PKG_CONFIG ?= pkg-config
PKGS      := sqlite3 jansson libmicrohttpd libcurl gsl libgit2 gmime-3.0 \
	     glib-2.0 libvirt zlib

CFLAGS    ?= -O2 -g
WARNINGS  := -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter \
	     -Wmissing-prototypes -Wstrict-prototypes
KR_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Idaemon -Iproto $(WARNINGS) \
	     $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
	     -DKREGRESS_DATADIR='"$(DATADIR)"'
KR_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lm -lpthread

ifdef DEVELOPER
KR_CFLAGS += -Werror
endif
ifdef SANITIZE
KR_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
	     -fno-sanitize-recover=all
LDFLAGS   += -fsanitize=$(SANITIZE)
endif

ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @printf '  %-8s %s\n'
endif

# The Debian packages of everything in this tree, in one list: `make deps`
# installs those that are missing.  One a line, with who needs it.
DEBIAN_PACKAGES :=
# building kregress
DEBIAN_PACKAGES += build-essential	# the C compiler, make, libc headers
DEBIAN_PACKAGES += pkg-config		# the libraries' flags (PKGS above)
DEBIAN_PACKAGES += libsqlite3-dev	# the store (db*.c)
DEBIAN_PACKAGES += libjansson-dev	# configuration and API JSON
DEBIAN_PACKAGES += libmicrohttpd-dev	# the API server (http.c)
DEBIAN_PACKAGES += libcurl4-openssl-dev	# every request out (net.c)
DEBIAN_PACKAGES += libgsl-dev		# the statistics (stats.c)
DEBIAN_PACKAGES += libgit2-dev		# apply.c, tree.c
DEBIAN_PACKAGES += libgmime-3.0-dev	# mail.c
DEBIAN_PACKAGES += libglib2.0-dev	# atom.c (GMarkup), sha256.c (GChecksum)
DEBIAN_PACKAGES += libvirt-dev		# vm.c
DEBIAN_PACKAGES += zlib1g-dev		# gzip.c
DEBIAN_PACKAGES += gcc-aarch64-linux-gnu	# arm64 kernels and workloads
DEBIAN_PACKAGES += libc6-dev-arm64-cross	# the static aarch64 workloads
DEBIAN_PACKAGES += nodejs npm		# web/web.mk: npm ci, the bundle
# running it
DEBIAN_PACKAGES += ca-certificates	# https:// to lore and patchwork
DEBIAN_PACKAGES += git			# tree import commits, git apply -3
DEBIAN_PACKAGES += tar			# tree import from a tarball
DEBIAN_PACKAGES += xz-utils		# tar -J of linux-source, kernel builds
DEBIAN_PACKAGES += linux-source-6.1	# the default tree, slow tests
DEBIAN_PACKAGES += bubblewrap		# the build sandbox (sandbox.c)
DEBIAN_PACKAGES += ccache		# kernel builds (build.c)
DEBIAN_PACKAGES += bc bison flex	# the kernel's own build
DEBIAN_PACKAGES += libelf-dev libssl-dev	# the kernel's own build
DEBIAN_PACKAGES += cpio			# kernel builds; initramfs tests
DEBIAN_PACKAGES += libvirt-daemon-system	# libvirtd, virtlogd: the boots
DEBIAN_PACKAGES += libvirt-clients	# virsh: libvirt-start.sh, slow tests
DEBIAN_PACKAGES += qemu-system-x86 qemu-system-arm	# the guests
DEBIAN_PACKAGES += qemu-utils		# qemu-img for libvirt's volume pool
DEBIAN_PACKAGES += tini			# libvirt-start.sh: reaps QEMU
DEBIAN_PACKAGES += procps		# pgrep (libvirt-start.sh, tests)
# testing and measuring it
DEBIAN_PACKAGES += sqlite3		# tests/lib/daemon.sh: sql
DEBIAN_PACKAGES += python3		# fake lore, JSON checks, benchmarks
DEBIAN_PACKAGES += curl			# t-api.sh, t-results.sh call the API
DEBIAN_PACKAGES += file			# t-workloads.sh checks the aarch64 set
DEBIAN_PACKAGES += systemd		# t-systemd.sh: systemd-analyze etc.
DEBIAN_PACKAGES += clang		# make check-fuzz (libFuzzer)
DEBIAN_PACKAGES += wrk			# tests/bench/api-load.c
DEBIAN_PACKAGES += python3-scipy python3-numpy	# stats/make-golden.py
DEBIAN_PACKAGES += python3-aiosmtpd	# t-report.sh: a real SMTP server
DEBIAN_PACKAGES += chromium		# t-dashboard-browser.sh (playwright-core)
DEBIAN_PACKAGES += quilt		# tests/fixtures/diff/make-fixtures.sh

# libkregress: daemon/ but for the two main()s, and proto/, the code that
# is also compiled into the static guest programs (workloads/workloads.mk).
LIB_SRC   := $(filter-out daemon/kregressd.c daemon/kregress.c, \
	       $(wildcard daemon/*.c)) $(wildcard proto/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libkregress.a
PROGRAMS  := $(BUILD)/kregressd $(BUILD)/kregress
SRC_OBJ   := $(LIB_OBJ) $(PROGRAMS:$(BUILD)/%=$(BUILD)/daemon/%.o)

UNIT_SRC  := $(wildcard tests/unit/t-*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

# Tests prove runs: fast ones need no kernel build and no VM.
CHECK_FAST_TESTS = $(UNIT_BIN) $(sort $(wildcard tests/integration/t-*.sh))
CHECK_SLOW_TESTS = $(sort $(wildcard tests/slow/t-*.sh))
# make check runs first, one at a time, the slow tests that import the
# tree and build the base kernels everything else finds in the shared
# cache; then the rest two at a time, longest first.  Most of those boot
# one guest, which keeps one core of two busy (boot_timeout_s and the
# plans' timeouts leave room for a neighbour), and none shares state with
# another but by content (tests/lib/build-lib.sh).
SLOW_SERIAL = $(addprefix tests/slow/,t-apply.sh t-build-resume.sh \
	      t-build.sh)
SLOW_LONGEST = $(addprefix tests/slow/,t-layout-control.sh \
	       t-calibrate.sh t-defaults-e2e.sh)
SLOW_PAIRED = $(SLOW_LONGEST) \
	      $(filter-out $(SLOW_SERIAL) $(SLOW_LONGEST),$(CHECK_SLOW_TESTS))
# Programs the benchmarks target runs, in order.
BENCHMARKS = $(BENCH_BIN)
# What `make bench-smoke` runs: the same (fragments add theirs to both,
# and say what their smoke mode leaves out), the dashboard's (web/ is
# left to its owners), and the benchmarks whose arguments make bench
# leaves to a person.  In smoke mode, of those here:
#   api-load, apply-bench, analyze-series, jobq-rate, mbox-parse,
#     stats-compare: their smallest sizes, one round (apply-bench's
#     first run checks out the 6.1 tree once, about a minute);
#   dashboard-bench.sh: 100 series and one big run, one browser load
#     and one API call of each page;
#   workload-cv.py: one run of the "single" variant, thp-fault only, on
#     this host (no VM);
#   submit-to-verdict.py: the bundled example on the shipped defaults,
#     x86_64 only and no host, so no guest boots: fetch, apply and the
#     builds (the slow tests' kernels, from the shared cache), then the
#     run stage fails; the boots and the verdict are left out;
#   clock-calibration.py: x86_64, one `kregress calibrate` round of the
#     shipped plan in instruction time at calibrate's minimum (2 boots a
#     side: 4 guests, the most any smoke run boots), then the replay;
#     plain TCG and arm64 are left out;
#   boot-phases.py: x86_64 in instruction time, one bare boot and one
#     boot of the shipped plan; the run lines alone, plain TCG and arm64
#     are left out.
BENCH_SMOKE = $(BENCH_BIN) $(addprefix $(CURDIR)/tests/bench/, \
	      dashboard-bench.sh workload-cv.py submit-to-verdict.py \
	      clock-calibration.py boot-phases.py)
# Extra targets fragments add to "make all".
ALL_EXTRA =

all: programs

# Each directory may contribute a fragment (workloads/workloads.mk, ...).
include $(sort $(wildcard */*.mk))

programs: $(PROGRAMS) $(UNIT_BIN) $(BENCH_BIN) $(ALL_EXTRA)
.PHONY: all programs

$(SRC_OBJ): $(BUILD)/%.o: %.c
	$(quiet) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(KR_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%.o: tests/unit/%.c
	$(quiet) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(KR_CFLAGS) -Itests $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/bench/%.o: tests/bench/%.c
	$(quiet) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(KR_CFLAGS) -Itests $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(quiet) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/kregressd $(BUILD)/kregress: $(BUILD)/%: $(BUILD)/daemon/%.o $(LIB)
	$(quiet) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(KR_LIBS)

$(UNIT_BIN): $(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	$(quiet) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(KR_LIBS)

$(BENCH_BIN): $(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	$(quiet) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(KR_LIBS)

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)

# Tests find the binaries through KREGRESS_BUILD and the sources through
# KREGRESS_SRC, so that they run from any directory.  The daemons they
# start name (and reap at start-up) only kregress-check-* domains, never a
# running service's; slow tests choose narrower prefixes of their own.
TEST_ENV = KREGRESS_BUILD=$(abspath $(BUILD)) KREGRESS_SRC=$(CURDIR) \
	   KREGRESS_VM_PREFIX=kregress-check-
# Under the sanitizers a report exits 125, which no test can take for the
# program's own failure (exit 1 of a panicked boot), with its stack.
# Frames live on after their function returns so that a write through a
# stale pointer to one (a library's callback) is caught, not silent.
ifdef SANITIZE
TEST_ENV += ASAN_OPTIONS=exitcode=125:detect_stack_use_after_return=1 \
	    UBSAN_OPTIONS=exitcode=125:print_stacktrace=1
endif
PROVE    = $(TEST_ENV) prove --exec $(CURDIR)/tests/run-one

check-fast: programs
	$(Q)$(PROVE) $(CHECK_FAST_TESTS)

# The full suite installs what it needs first, then starts the services
# its tests use (tests/services.sh) and stops them again.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-all

# After the tests it fuzzes each harness for CHECK_FUZZ_SECONDS and runs
# the benchmarks once in smoke mode, so that neither rots unseen.
CHECK_FUZZ_SECONDS ?= 10

check-all: programs
	$(Q)$(TEST_ENV) tests/services.sh $(CURDIR)/tests/run-one \
		$(CHECK_FAST_TESTS) $(SLOW_SERIAL) --jobs 2 $(SLOW_PAIRED)
	@$(MAKE) --no-print-directory check-fuzz \
		FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS)
	@$(MAKE) --no-print-directory bench-smoke

bench: programs
	$(Q)set -e; for b in $(BENCHMARKS); do $(TEST_ENV) $$b; done

# Smoke mode (KREGRESS_BENCH_SMOKE=1): every benchmark of BENCH_SMOKE
# (above) at its smallest size, one run, its own failures (a tool
# missing, a step that did not work) in its exit status;
# tests/bench/smoke-one makes one TAP check of each, under the services
# the slow tests use.
bench-smoke: programs
	$(Q)$(TEST_ENV) tests/services.sh $(CURDIR)/tests/bench/smoke-one \
		$(BENCH_SMOKE)

.PHONY: check check-all check-fast bench bench-smoke

# A package counts as present when an installed one is or provides it
# (a Node.js build that bundles npm provides npm, and conflicts with it).
deps:
	@have=$$(dpkg-query -W -f='$${db:Status-Abbrev} $${Package},$${Provides}\n' | \
		sed -n 's/^ii *//p' | sed 's/([^)]*)//g' | tr ', ' '\n\n' | \
		sed '/^$$/d; s/:.*//'); \
	missing=$$(for p in $(DEBIAN_PACKAGES); do \
		echo "$$have" | grep -qx -- "$$p" || echo $$p; done); \
	if [ -z "$$missing" ]; then \
		echo "deps: all Debian packages present"; \
	else \
		echo "deps: installing" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $$missing; \
	fi
.PHONY: deps

# make run: the embedded default — SQLite and the API on 127.0.0.1 from
# config.example.json, the local libvirt, and the kernel tree imported from
# Debian's linux-source package into RUN_TREE (trees[0].path of RUN_CONFIG).
RUN_CONFIG    ?= config.example.json
RUN_TREE      ?= /var/lib/kregress/trees/linux
LINUX_TARBALL ?= /usr/src/linux-source-6.1.tar.xz

run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory serve

serve: programs
	$(BUILD)/kregress tree import --tarball $(LINUX_TARBALL) $(RUN_TREE)
	@systemd/libvirt-start.sh >/dev/null
	KREGRESS_CONFIG_DIR=$(CURDIR)/builders/configs \
		$(BUILD)/kregressd -c $(RUN_CONFIG)
.PHONY: run serve

# make example: while `make run` serves, submit the bundled example series
# (tests/fixtures/examples: HAVE_MOVE_PUD dropped on x86 and arm64, seed
# 002's regression undone), follow it to its verdict and print the
# comparisons.  The token comes from RUN_CONFIG.
EXAMPLE ?= tests/fixtures/examples/move-pud-revert.mbox

example: programs
	@out=$$($(BUILD)/kregress submit -c $(RUN_CONFIG) $(EXAMPLE)) || exit 1; \
	echo "$$out"; id=$${out#submitted series }; id=$${id%% *}; \
	$(BUILD)/kregress watch -c $(RUN_CONFIG) $$id; \
	$(BUILD)/kregress results -c $(RUN_CONFIG) $$id
.PHONY: example

# The migrations are compiled into the binaries; the example configuration
# is installed for the administrator to copy to /etc/kregress, naming the
# installed plans (in the source tree it names workloads/plans/, relative
# to itself, for make run).
install: programs $(INSTALL_EXTRA)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(DATADIR)
	install -m 755 $(BUILD)/kregress $(DESTDIR)$(BINDIR)/kregress
	install -m 755 $(BUILD)/kregressd $(DESTDIR)$(SBINDIR)/kregressd
	sed 's|"workloads/plans/|"$(DATADIR)/plans/|' config.example.json \
		>$(DESTDIR)$(DATADIR)/config.example.json
	chmod 644 $(DESTDIR)$(DATADIR)/config.example.json
.PHONY: install

clean:
	rm -rf $(BUILD)
.PHONY: clean
