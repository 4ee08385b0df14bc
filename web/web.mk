# web/web.mk - the dashboard: web/src bundled with its npm packages into
# $(BUILD)/web, the directory kregressd serves (daemon/web.h).
#
#   $(BUILD)/web/index.html
#   $(BUILD)/web/assets/app.js, app.css   and their .gz twins
#
# The packages come from the npm registry by `npm ci` from the committed
# web/package-lock.json, into $(BUILD)/web-npm (each build directory has
# its own, so two builds never share a node_modules): uplot, the charts;
# esbuild, the bundler; playwright-core, which drives Debian's chromium in
# the browser tests.  Nothing is fetched at run time.

WEB_NPM    := $(BUILD)/web-npm
WEB_OUT    := $(BUILD)/web
WEB_SRC    := $(sort $(wildcard web/src/*.js web/src/*.css))
WEB_ASSETS := $(WEB_OUT)/assets/app.js $(WEB_OUT)/assets/app.css
WEB_FILES  := $(WEB_OUT)/index.html $(WEB_ASSETS) \
	      $(WEB_ASSETS:%=%.gz)
ESBUILD    := NODE_PATH=$(abspath $(WEB_NPM))/node_modules \
	      $(WEB_NPM)/node_modules/.bin/esbuild --bundle --minify \
	      --log-level=warning --legal-comments=none

$(WEB_NPM)/.installed: web/package.json web/package-lock.json
	$(quiet) NPM $(WEB_NPM)
	@mkdir -p $(WEB_NPM)
	$(Q)cp web/package.json web/package-lock.json $(WEB_NPM)/
	$(Q)cd $(WEB_NPM) && npm ci --prefer-offline --no-audit --no-fund \
		--loglevel=error
	@touch $@

$(WEB_OUT)/assets/app.js: $(WEB_SRC) $(WEB_NPM)/.installed
	$(quiet) ESBUILD $@
	@mkdir -p $(@D)
	$(Q)$(ESBUILD) --format=iife --target=es2020 --outfile=$@ \
		web/src/main.js

$(WEB_OUT)/assets/app.css: $(WEB_SRC) $(WEB_NPM)/.installed
	$(quiet) ESBUILD $@
	@mkdir -p $(@D)
	$(Q)$(ESBUILD) --outfile=$@ web/src/app.css

$(WEB_OUT)/assets/%.gz: $(WEB_OUT)/assets/%
	$(quiet) GZIP $@
	$(Q)gzip -9 -n -c $< > $@.tmp && mv $@.tmp $@

$(WEB_OUT)/index.html: web/index.html
	$(quiet) CP $@
	@mkdir -p $(@D)
	$(Q)cp $< $@

web: $(WEB_FILES)
.PHONY: web

ALL_EXTRA += $(WEB_FILES)

install: install-web
install-web: $(WEB_FILES)
	install -d $(DESTDIR)$(DATADIR)/web/assets
	install -m 644 $(WEB_OUT)/index.html $(DESTDIR)$(DATADIR)/web/
	install -m 644 $(WEB_ASSETS) $(WEB_ASSETS:%=%.gz) \
		$(DESTDIR)$(DATADIR)/web/assets/
.PHONY: install-web

BENCHMARKS += $(CURDIR)/tests/bench/dashboard-bench.sh
