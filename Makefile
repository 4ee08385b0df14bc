# kregress - plain GNU make with pkg-config.
#
#   make                 build kregressd, kregress, workloads, tests
#   make check           every test (kernel builds and VM boots included)
#   make check-fast      unit and integration tests without kernels or VMs
#   make SANITIZE=address,undefined check-fast
#   make bench           benchmark programs; they print measured figures
#   make deps            install the Debian packages the project needs
#   make run             install deps, build, start kregressd on defaults
#   make install         PREFIX=/usr/local DESTDIR=
#
# V=1 shows full command lines, DEVELOPER=1 adds -Werror, BUILD=DIR puts
# every generated file under DIR (default build/).

BUILD     ?= build
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
KR_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Idaemon $(WARNINGS) \
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

# Debian packages: build and run dependencies of everything in this tree.
DEBIAN_PACKAGES := build-essential pkg-config git ca-certificates \
	libsqlite3-dev sqlite3 libjansson-dev libmicrohttpd-dev \
	libcurl4-openssl-dev libgsl-dev libgit2-dev libgmime-3.0-dev \
	libglib2.0-dev \
	libvirt-dev zlib1g-dev \
	wrk python3 python3-scipy python3-numpy

LIB_SRC   := $(filter-out daemon/kregressd.c daemon/kregress.c, \
	       $(wildcard daemon/*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libkregress.a
PROGRAMS  := $(BUILD)/kregressd $(BUILD)/kregress

UNIT_SRC  := $(wildcard tests/unit/t-*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)

# Tests prove runs: fast ones need no kernel build and no VM.
CHECK_FAST_TESTS = $(UNIT_BIN) $(sort $(wildcard tests/integration/t-*.sh))
CHECK_SLOW_TESTS = $(sort $(wildcard tests/slow/t-*.sh))
# Programs the benchmarks target runs, in order.
BENCHMARKS = $(BENCH_BIN)
# Extra targets fragments add to "make all".
ALL_EXTRA =

all: programs

# Each directory may contribute a fragment (workloads/workloads.mk, ...).
include $(sort $(wildcard */*.mk))

programs: $(PROGRAMS) $(UNIT_BIN) $(BENCH_BIN) $(ALL_EXTRA)
.PHONY: all programs

$(BUILD)/daemon/%.o: daemon/%.c
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
PROVE    = $(TEST_ENV) prove --exec $(CURDIR)/tests/run-one

check-fast: programs
	$(Q)$(PROVE) $(CHECK_FAST_TESTS)

# The full suite installs what it needs first, then starts the services
# its tests use (tests/services.sh) and stops them again.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-all

check-all: programs
	$(Q)$(TEST_ENV) tests/services.sh $(CURDIR)/tests/run-one \
		$(CHECK_FAST_TESTS) $(CHECK_SLOW_TESTS)

bench: programs
	$(Q)set -e; for b in $(BENCHMARKS); do $(TEST_ENV) $$b; done

.PHONY: check check-all check-fast bench

deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed$$' || echo $$p; done); \
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

# The migrations are compiled into the binaries; the example configuration
# is installed for the administrator to copy to /etc/kregress.
install: programs $(INSTALL_EXTRA)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(DATADIR)
	install -m 755 $(BUILD)/kregress $(DESTDIR)$(BINDIR)/kregress
	install -m 755 $(BUILD)/kregressd $(DESTDIR)$(SBINDIR)/kregressd
	install -m 644 config.example.json $(DESTDIR)$(DATADIR)/
.PHONY: install

clean:
	rm -rf $(BUILD)
.PHONY: clean
