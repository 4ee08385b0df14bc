/*
 * mbox-parse.c - parse rate and peak memory of the intake on a generated
 * 10,000-message mbox (a mix like a busy list: a third patches with real
 * diffs, the rest replies quoting them, a few base64 and quoted-printable).
 *
 * Prints messages/s for reading (mail.c: split + GMime), for grouping
 * (series.c) and the process's peak RSS (getrusage ru_maxrss).  Targets
 * from the issue: >= 5,000 messages/s, peak RSS < 100 MB.  Figures only,
 * no pass/fail.  Usage: mbox-parse [MESSAGES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mail.h"
#include "now.h"
#include "series.h"

static void generate(FILE *f, int n)
{
	int i, k;

	for (i = 1; i <= n; i++) {
		int series = (i - 1) / 30, in = (i - 1) % 30;

		fprintf(f, "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
			"From: Developer %d <dev%d@example.org>\n"
			"Date: Mon, 1 Jan 2024 %02d:%02d:00 +0200\n",
			series, series, i / 60 % 24, i % 60);
		if (in < 10) {
			fprintf(f, "Subject: [PATCH v2 %d/10] mm: change %d of "
				"series %d\nMessage-ID: <p%d-%d@example.org>\n"
				"In-Reply-To: <c%d@example.org>\n"
				"References: <c%d@example.org>\n",
				in + 1, in + 1, series, series, in, series,
				series);
			if (in == 3)
				fprintf(f, "Content-Transfer-Encoding: "
					"quoted-printable\n");
			fprintf(f, "\nThis changes mm/file%d.c so that x =3D y "
				"holds.\n\nSigned-off-by: Developer %d "
				"<dev%d@example.org>\n---\n mm/file%d.c | 4 "
				"++--\n 1 file changed\n\n"
				"diff --git a/mm/file%d.c b/mm/file%d.c\n"
				"index 1234567..89abcde 100644\n"
				"--- a/mm/file%d.c\n+++ b/mm/file%d.c\n"
				"@@ -10,24 +10,24 @@ static int f(void)\n",
				in, series, series, in, in, in, in, in);
			for (k = 0; k < 22; k++)
				fprintf(f, " \tcontext line %d: a = b + c; "
					"/* comment */\n", k);
			fprintf(f, "-\told = 1;\n-\told = 2;\n+\tnew = 1;\n"
				"+\tnew = 2;\n-- \n2.39.5\n\n");
		} else {
			int to = in % 10;

			fprintf(f, "Subject: Re: [PATCH v2 %d/10] mm: change "
				"%d of series %d\n"
				"Message-ID: <r%d-%d@example.org>\n"
				"In-Reply-To: <p%d-%d@example.org>\n"
				"References: <c%d@example.org> "
				"<p%d-%d@example.org>\n\n"
				"On Mon, Developer %d wrote:\n",
				to + 1, to + 1, series, series, in, series, to,
				series, series, to, series);
			for (k = 0; k < 30; k++)
				fprintf(f, "> \tquoted line %d of the patch "
					"under review, a = b + c;\n", k);
			fprintf(f, "\nLooks good to me.\n\nReviewed-by: "
				"Reviewer %d <rev%d@example.org>\n\n", in, in);
		}
	}
}

static int count_cb(struct mail *m, const struct mail_skip *skip,
		    void *data)
{
	(*(size_t *)data)++;
	mail_free(m);
	(void)skip;
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	char path[] = "/tmp/kregress-bench-XXXXXX";
	struct mail_limits lim = { 0 };
	struct mail_box box;
	struct series *s = NULL;
	struct rusage ru;
	size_t streamed = 0;
	double t0, t1, t2, t3, t4, c0, c1, c2, c3, c4;
	long size;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w+"))) {
		perror("mkstemp");
		return 1;
	}
	unlink(path);
	generate(f, n);
	fflush(f);
	size = ftell(f);
	lim.max_bytes = (size_t)size + 1;

	/* streaming: each message freed at once (the watcher's way) */
	rewind(f);
	t0 = now_s();
	c0 = now_cpu_s();
	if (mail_read(f, "bench", &lim, count_cb, &streamed))
		return 1;
	t1 = now_s();
	c1 = now_cpu_s();

	/* collecting everything, then grouping (series parse's way) */
	rewind(f);
	mail_box_init(&box);
	t2 = now_s();
	c2 = now_cpu_s();
	if (mail_box_read(&box, f, "bench", &lim))
		return 1;
	t3 = now_s();
	c3 = now_cpu_s();
	if (series_build(&box, &s))
		return 1;
	t4 = now_s();
	c4 = now_cpu_s();
	getrusage(RUSAGE_SELF, &ru);

	printf("mbox-parse: %d messages, %.1f MB mbox\n", n, size / 1e6);
	printf("mbox-parse: rates in messages/s, by wall clock (by CPU "
	       "time of this process; the machine is shared)\n");
	printf("mbox-parse: streaming read: %.0f (%.0f)\n",
	       streamed / (t1 - t0), streamed / (c1 - c0));
	printf("mbox-parse: read into a box: %.0f (%.0f)\n",
	       box.nr / (t3 - t2), box.nr / (c3 - c2));
	printf("mbox-parse: grouping: %.0f (%.0f)\n", box.nr / (t4 - t3),
	       box.nr / (c4 - c3));
	printf("mbox-parse: read + group: %.0f (%.0f) (target >= 5000)\n",
	       box.nr / (t4 - t2), box.nr / (c4 - c2));
	printf("mbox-parse: series found: v%d, %zu patches, %zu problems\n",
	       s->version, s->nr_patches, s->nr_problems);
	printf("mbox-parse: peak RSS %.1f MB (target < 100 MB)\n",
	       ru.ru_maxrss / 1024.0);
	series_free(s);
	mail_box_release(&box);
	fclose(f);
	return 0;
}
