# builders/builders.mk - kernel builds: the build user, configs.

# Builds of untrusted patches run as this unprivileged user (sandbox.c).
KREGRESS_BUILD_USER ?= kregress-build

setup-builders:
	@if ! getent passwd $(KREGRESS_BUILD_USER) >/dev/null; then \
		echo "setup-builders: creating user $(KREGRESS_BUILD_USER)"; \
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin $(KREGRESS_BUILD_USER); \
	fi
.PHONY: setup-builders

deps: setup-builders

install: install-builders
install-builders:
	install -d $(DESTDIR)$(DATADIR)/configs
	install -m 644 builders/configs/*.config $(DESTDIR)$(DATADIR)/configs/
.PHONY: install-builders

# The build benchmark; its smoke mode compiles nothing (the slow tests'
# base build from the shared cache, the plain side's configure only, the
# two .config files compared).
BENCHMARKS += tests/bench/build-bench.sh
BENCH_SMOKE += $(CURDIR)/tests/bench/build-bench.sh
