/*
 * fuzz-atom.c - libFuzzer harness over the list watcher's feed parser
 * (atom.c) and its Message-ID extraction from URLs.  Run by
 * `make check-fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atom.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, url = STRBUF_INIT;
	struct atom_feed feed;
	char *id;

	if (atom_parse((const char *)data, size, &feed, &err) == 0)
		atom_feed_release(&feed);
	strbuf_add(&url, data, size < 4096 ? size : 4096);
	id = atom_msgid_from_url(url.buf);
	free(id);
	strbuf_release(&url);
	strbuf_release(&err);
	return 0;
}
