/*
 * fuzz-mbox.c - libFuzzer harness over the intake's untrusted-input path:
 * mbox splitting and GMime parsing (mail.c), then series grouping
 * (series.c) and the commit message the apply stage would build.
 * Built and run for a bounded time by `make check-fuzz`.
 */
#include <stddef.h>
#include <stdint.h>

#include "mail.h"
#include "series.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mail_limits lim = { 0 };
	struct mail_box box;
	struct series *s = NULL, *r;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	lim.max_bytes = 1 << 20;
	lim.max_messages = 1000;
	lim.max_message_bytes = 256 << 10;
	mail_box_init(&box);
	if (mail_box_read_buf(&box, (const char *)data, size, "fuzz", &lim) ==
	    0 && series_build(&box, &s) == 0) {
		for (r = s; r; r = r->older) {
			if (r->cover)
				series_patch_commit_message(r->cover, 1, &sb);
			for (i = 0; i < r->nr_patches; i++)
				series_patch_commit_message(r->patches[i], 1,
							    &sb);
		}
	}
	strbuf_release(&sb);
	series_free(s);
	mail_box_release(&box);
	return 0;
}
