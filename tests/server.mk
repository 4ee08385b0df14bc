# tests/server.mk - the API server's slow-client benchmark (a script: the
# connections held and the health latency under a slowloris) and its
# libFuzzer harness over request handling (tests/fuzz/fuzz-http.c),
# seeded with tests/fuzz/http/, which also joins the committed inputs
# every harness runs in check-fast.  It uses FUZZ_DIR, fuzz_run and
# FUZZ_CORPUS of intake-fuzz.mk, included before it (the fragments go in
# name order).  The benchmark's smoke mode holds 40 slow clients, not
# 1,100.
BENCHMARKS += $(CURDIR)/tests/bench/slow-clients.py
BENCH_SMOKE += $(CURDIR)/tests/bench/slow-clients.py

FUZZ_HTTP_SRC := tests/fuzz/fuzz-http.c daemon/http.c daemon/http_json.c \
		 daemon/strbuf.c \
		 daemon/alloc.c \
		 daemon/log.c daemon/escape.c daemon/now.c

$(FUZZ_DIR)/fuzz-http: $(FUZZ_HTTP_SRC) daemon/http.h daemon/http_json.h
	$(quiet) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Idaemon $(FUZZ_FLAGS) \
		$(shell $(PKG_CONFIG) --cflags libmicrohttpd jansson) -o $@ \
		$(FUZZ_HTTP_SRC) \
		$(shell $(PKG_CONFIG) --libs libmicrohttpd jansson) -lpthread

check-fuzz:: $(FUZZ_DIR)/fuzz-http
	$(call fuzz_run,fuzz-http,tests/fuzz/http/* tests/fuzz/regress/*)

FUZZ_CORPUS += tests/fuzz/http
