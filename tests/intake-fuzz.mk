# intake-fuzz.mk - `make check-fuzz`: libFuzzer over the mbox parser and
# the series grouping (tests/fuzz/fuzz-mbox.c), built with clang
# (-fsanitize=fuzzer,address,undefined), seeded with the mail fixtures,
# run for FUZZ_SECONDS (default 60).  check-fuzz is a double-colon rule so
# that other modules can add their own harnesses to it.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_MBOX_SRC := tests/fuzz/fuzz-mbox.c daemon/mail.c daemon/series.c \
		 daemon/strbuf.c daemon/log.c

$(FUZZ_DIR)/fuzz-mbox: $(FUZZ_MBOX_SRC) daemon/mail.h daemon/series.h
	$(quiet) FUZZCC $@
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Idaemon $(FUZZ_FLAGS) \
		$(shell $(PKG_CONFIG) --cflags gmime-3.0) -o $@ \
		$(FUZZ_MBOX_SRC) $(shell $(PKG_CONFIG) --libs gmime-3.0) \
		-lpthread

check-fuzz:: $(FUZZ_DIR)/fuzz-mbox
	@rm -rf $(FUZZ_DIR)/corpus-mbox && mkdir -p $(FUZZ_DIR)/corpus-mbox
	@cp tests/fixtures/mail/*.mbox tests/fixtures/mail/seeds/*.txt \
		tests/fuzz/regress/* \
		$(FUZZ_DIR)/corpus-mbox/
	$(Q)cd $(FUZZ_DIR) && ASAN_OPTIONS=detect_leaks=1 ./fuzz-mbox \
		-max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 corpus-mbox \
		2>fuzz-mbox.log; status=$$?; \
		grep -E "^(stat::number_of_executed_units|stat::peak_rss)" \
			fuzz-mbox.log; \
		if [ $$status != 0 ]; then tail -60 fuzz-mbox.log; \
			echo "check-fuzz: fuzz-mbox FAILED (see $(FUZZ_DIR))"; \
			exit 1; fi; \
		echo "check-fuzz: fuzz-mbox ran $(FUZZ_SECONDS) s, no crash"
.PHONY: check-fuzz

DEBIAN_PACKAGES += clang
