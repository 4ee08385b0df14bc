/*
 * fuzz-diff.c - libFuzzer harness over the unified-diff scanner (diff.c),
 * the code that decides where a mailed patch ends (series.c) and which
 * paths it touches (apply.c).
 *
 * Besides "no crash, no sanitizer report", it checks the scanner's
 * contract on every input and aborts when one fails:
 *  - every offset and path lies inside the buffer, inside its diff, file
 *    or hunk; files follow each other without gaps; hunks are in order;
 *  - a hunk body holds exactly the lines its header counts (fewer only
 *    with DIFF_ERR_HUNK_COUNT, or in a truncated last hunk); the error
 *    names a file and hunk that exist;
 *  - each file's parts are in order inside it, its strip level is 0 or
 *    1, and its paths in the tree lie inside it (or are absent where a
 *    creation or deletion has no side);
 *  - a NUL byte inside the diff is reported;
 *  - the diff cut out and scanned again is the same diff: same extent,
 *    files, hunks, paths and error.  That is what series.c (which cuts)
 *    and apply.c (which scans the cut again) rely on to agree.
 * Built and run by `make check-fuzz`; its committed inputs also run in
 * `make check-fast` through tests/fuzz/corpus.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond) do {						\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz-diff: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

static void check_path(const struct diff_file *f, const char *buf,
		       struct diff_path p)
{
	if (!p.p) {
		require(!p.n);
		return;
	}
	require(p.p >= buf + f->start && p.p + p.n <= buf + f->end);
}

/* The lines of a hunk body, counted again. */
static void count_body(const char *buf, const struct diff_hunk *h,
		       unsigned long *old, unsigned long *new)
{
	size_t off = h->body;

	*old = *new = 0;
	while (off < h->end) {
		const char *l = buf + off;
		const char *nl = memchr(l, '\n', h->end - off);
		size_t n = nl ? (size_t)(nl - l) : h->end - off;
		char c = n ? l[0] : ' ';

		if (c == ' ' || c == '-')
			(*old)++;
		if (c == ' ' || c == '+')
			(*new)++;
		if (c == '\\')
			require(n >= 2 && l[1] == ' ');
		off += n + 1;
	}
}

static void check_diff(const char *buf, size_t size, const struct diff *d,
		       int found)
{
	size_t i, j, off;
	const char *nul;

	require(d->start <= d->end && d->end <= size);
	require(found == (d->nr_files > 0));
	if (!found)
		require(d->start == d->end && d->end == size);
	off = d->start;
	for (i = 0; i < d->nr_files; i++) {
		const struct diff_file *f = &d->files[i];
		size_t hoff = f->start;

		require(f->start == off && f->start < f->end);
		require(f->first_hunk + f->nr_hunks <= d->nr_hunks);
		require(i || f->first_hunk == 0);
		require(!i || f->first_hunk == d->files[i - 1].first_hunk +
			d->files[i - 1].nr_hunks);
		check_path(f, buf, f->git_old);
		check_path(f, buf, f->git_new);
		check_path(f, buf, f->old);
		check_path(f, buf, f->new);
		check_path(f, buf, f->rename_from);
		check_path(f, buf, f->rename_to);
		check_path(f, buf, f->copy_from);
		check_path(f, buf, f->copy_to);
		check_path(f, buf, f->old_path);
		check_path(f, buf, f->new_path);
		require(f->start <= f->ext_start && f->ext_start <= f->ext_end &&
			f->ext_end <= f->body && f->body <= f->end);
		require(f->strip == 0 || f->strip == 1);
		require(!f->new_file || !f->old_path.p);
		require(!f->deleted_file || !f->new_path.p);
		require(f->similarity >= -1 && f->similarity <= 100);
		require(f->dissimilarity >= -1 && f->dissimilarity <= 100);
		require(!f->nr_hunks || f->binary == DIFF_BINARY_NONE);
		for (j = 0; j < f->nr_hunks; j++) {
			const struct diff_hunk *h =
				&d->hunks[f->first_hunk + j];
			unsigned long old, new;
			int last = i + 1 == d->nr_files &&
				   j + 1 == f->nr_hunks;

			require(h->start >= hoff && h->start < h->body &&
				h->start >= f->body);
			require(h->body <= h->end && h->end <= f->end);
			require(!memcmp(buf + h->start, "@@ -", 4));
			count_body(buf, h, &old, &new);
			require(old <= h->old_count && new <= h->new_count);
			/* a short hunk is an error unless one came first */
			if (old != h->old_count || new != h->new_count)
				require(d->error != DIFF_OK &&
					(d->error == DIFF_ERR_HUNK_COUNT ||
					 (last &&
					  d->error == DIFF_ERR_TRUNCATED) ||
					 d->error_off < d->end));
			hoff = h->end;
		}
		off = f->end;
	}
	require(off == d->end);
	nul = d->end > d->start ?
	      memchr(buf + d->start, '\0', d->end - d->start) : NULL;
	if (nul)
		require(d->error != DIFF_OK &&
			d->error_off <= (size_t)(nul - buf));
	if (d->error != DIFF_OK)
		require(d->error_off <= size && d->error_line >= 1 &&
			d->error_file <= d->nr_files &&
			d->error_hunk <= d->nr_hunks);
	if (d->error == DIFF_ERR_HUNK_COUNT || d->error == DIFF_ERR_TRUNCATED)
		require(d->error_file < d->nr_files &&
			d->error_hunk < d->nr_hunks);
	if (d->error == DIFF_ERR_NUL)
		require(d->error_off >= d->start && d->error_off < d->end &&
			!buf[d->error_off]);
	if (d->error == DIFF_ERR_HUNK_HEADER)
		require(d->error_off == d->end &&
			!memcmp(buf + d->end, "@@ -", 4));
	if (d->error == DIFF_ERR_TRUNCATED)
		require(d->error_off == d->end);
}

/* The cut diff scanned again: the same diff, shifted by d->start. */
static void check_again(const char *buf, const struct diff *d)
{
	const char *cut = buf + d->start;
	size_t i, shift = d->start;
	struct diff a;

	require(!diff_scan(cut, d->end - d->start, &a));
	check_diff(cut, d->end - d->start, &a, 1);
	require(a.start == 0 && a.end == d->end - d->start);
	require(a.nr_files == d->nr_files && a.nr_hunks == d->nr_hunks);
	if (d->error == DIFF_ERR_HUNK_HEADER)
		require(a.error == DIFF_OK);
	else
		require(a.error == d->error &&
			(a.error == DIFF_OK ||
			 a.error_off + shift == d->error_off));
	for (i = 0; i < d->nr_files; i++) {
		const struct diff_file *f = &d->files[i], *g = &a.files[i];

		require(g->start + shift == f->start &&
			g->end + shift == f->end);
		/* the same bytes: paths point to the same places */
		require(g->git_new.p == f->git_new.p &&
			g->git_new.n == f->git_new.n);
		require(g->new.p == f->new.p && g->new.n == f->new.n);
		require(g->old_path.p == f->old_path.p &&
			g->old_path.n == f->old_path.n &&
			g->new_path.p == f->new_path.p &&
			g->new_path.n == f->new_path.n &&
			g->strip == f->strip && g->body + shift == f->body);
		require(g->rename_to.p == f->rename_to.p &&
			g->rename_to.n == f->rename_to.n &&
			g->new_mode == f->new_mode && g->binary == f->binary &&
			g->binary_ended == f->binary_ended &&
			g->nr_hunks == f->nr_hunks);
	}
	for (i = 0; i < d->nr_hunks; i++)
		require(a.hunks[i].start + shift == d->hunks[i].start &&
			a.hunks[i].end + shift == d->hunks[i].end &&
			a.hunks[i].old_count == d->hunks[i].old_count &&
			a.hunks[i].new_count == d->hunks[i].new_count);
	diff_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct diff d;
	int found;

	found = !diff_scan(buf, size, &d);
	check_diff(buf, size, &d, found);
	if (found)
		check_again(buf, &d);
	diff_release(&d);
	return 0;
}
