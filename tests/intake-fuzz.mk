# intake-fuzz.mk - `make check-fuzz`: libFuzzer over the mbox parser and
# the series grouping (tests/fuzz/fuzz-mbox.c), over the unified-diff
# scanner (tests/fuzz/fuzz-diff.c) and over the Atom feed parser
# (tests/fuzz/fuzz-atom.c), built with clang
# (-fsanitize=fuzzer,address,undefined), seeded with the fixtures and the
# committed inputs, each run for FUZZ_SECONDS (default 60).  check-fuzz is
# a double-colon rule so that other modules can add their own harnesses.
#
# The committed inputs (tests/fuzz/regress/, inputs that once failed, and
# the mail and diff fixtures) also go through every harness in check-fast:
# build/tests/t-fuzz-NAME is the harness linked with tests/fuzz/corpus.c
# by the ordinary compiler, one TAP test per file.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_MBOX_SRC := tests/fuzz/fuzz-mbox.c daemon/mail.c daemon/series.c \
		 daemon/alloc.c \
		 daemon/diff.c daemon/strbuf.c daemon/log.c \
		 daemon/escape.c

$(FUZZ_DIR)/fuzz-mbox: $(FUZZ_MBOX_SRC) daemon/mail.h daemon/series.h \
		       daemon/diff.h
	$(quiet) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Idaemon $(FUZZ_FLAGS) \
		$(shell $(PKG_CONFIG) --cflags gmime-3.0) -o $@ \
		$(FUZZ_MBOX_SRC) $(shell $(PKG_CONFIG) --libs gmime-3.0) \
		-lpthread

FUZZ_DIFF_SRC := tests/fuzz/fuzz-diff.c daemon/diff.c daemon/log.c \
		 daemon/alloc.c \
		 daemon/escape.c daemon/strbuf.c

$(FUZZ_DIR)/fuzz-diff: $(FUZZ_DIFF_SRC) daemon/diff.h
	$(quiet) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Idaemon $(FUZZ_FLAGS) -o $@ \
		$(FUZZ_DIFF_SRC) -lpthread

FUZZ_ATOM_SRC := tests/fuzz/fuzz-atom.c daemon/atom.c daemon/strbuf.c \
		 daemon/alloc.c \
		 daemon/log.c daemon/escape.c

$(FUZZ_DIR)/fuzz-atom: $(FUZZ_ATOM_SRC) daemon/atom.h
	$(quiet) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Idaemon $(FUZZ_FLAGS) \
		$(shell $(PKG_CONFIG) --cflags glib-2.0) -o $@ \
		$(FUZZ_ATOM_SRC) $(shell $(PKG_CONFIG) --libs glib-2.0)

# fuzz_run NAME CORPUS-FILES [FLAGS]: runs build/fuzz/NAME for FUZZ_SECONDS
define fuzz_run
	@rm -rf $(FUZZ_DIR)/corpus-$(1) && mkdir -p $(FUZZ_DIR)/corpus-$(1)
	@cp $(2) $(FUZZ_DIR)/corpus-$(1)/
	$(Q)cd $(FUZZ_DIR) && ASAN_OPTIONS=detect_leaks=1 ./$(1) \
		-max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 $(3) corpus-$(1) \
		2>$(1).log; status=$$?; \
		grep -E "^stat::(number_of_executed_units|peak_rss)" $(1).log; \
		if [ $$status != 0 ]; then tail -60 $(1).log; \
			echo "check-fuzz: $(1) FAILED (see $(FUZZ_DIR))"; \
			exit 1; fi; \
		echo "check-fuzz: $(1) ran $(FUZZ_SECONDS) s, no crash"
endef

check-fuzz:: $(FUZZ_DIR)/fuzz-atom
	$(call fuzz_run,fuzz-atom,tests/fixtures/mail/feed.atom)

check-fuzz:: $(FUZZ_DIR)/fuzz-mbox
	$(call fuzz_run,fuzz-mbox,tests/fixtures/mail/*.mbox \
		tests/fixtures/mail/shapes/*.mbox \
		tests/fixtures/mail/seeds/*.txt tests/fuzz/regress/*)

check-fuzz:: $(FUZZ_DIR)/fuzz-diff
	$(call fuzz_run,fuzz-diff,tests/fixtures/mail/*.diff \
		tests/fixtures/mail/*.mbox tests/fixtures/mail/seeds/*.txt \
		tests/fixtures/mail/shapes/*.mbox \
		tests/fixtures/diff/*.diff tests/fixtures/diff/*.mbox \
		tests/fuzz/regress/*, \
		-dict=$(CURDIR)/tests/fuzz/diff.dict)
.PHONY: check-fuzz

FUZZ_CORPUS := tests/fuzz/regress tests/fixtures/mail tests/fixtures/diff
FUZZ_CORPUS_BIN := $(patsubst tests/fuzz/fuzz-%.c,$(BUILD)/tests/t-fuzz-%, \
		   $(wildcard tests/fuzz/fuzz-*.c))

$(FUZZ_CORPUS_BIN): $(BUILD)/tests/t-fuzz-%: tests/fuzz/corpus.c \
		    tests/fuzz/fuzz-%.c tests/tap.h tests/intake-fuzz.mk $(LIB)
	$(quiet) CC $@
	@mkdir -p $(@D)
	$(Q)$(CC) $(KR_CFLAGS) -Itests $(CFLAGS) $(LDFLAGS) \
		-DFUZZ_CORPUS='"$(FUZZ_CORPUS)"' -o $@ tests/fuzz/corpus.c \
		tests/fuzz/fuzz-$*.c $(LIB) $(KR_LIBS)

CHECK_FAST_TESTS += $(FUZZ_CORPUS_BIN)
ALL_EXTRA += $(FUZZ_CORPUS_BIN)

