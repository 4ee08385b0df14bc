/*
 * apply-bench.c - how fast the apply stage is on the real 6.1 tree.
 *
 * 1. Apply time of a 20-patch series (each patch changes one file of mm/)
 *    with apply_series(), in memory, on the 78,000-file tree.
 * 2. Worktree switch base <-> patched when one file differs, with
 *    tree_worktree_switch(), and whether unchanged files kept their mtime.
 *
 * The tree is imported once into $KREGRESS_TREE_CACHE (default
 * /var/cache/kregress/trees) by tests/lib/apply-fixture.sh; the build
 * worktree lives next to it and is kept between runs.  Targets (issue 4):
 * apply <= 1 s, switch <= 1 s.  Prints figures; never fails on time, but
 * exits 1 when a step fails or a switch rewrote more than the file that
 * differs.  KREGRESS_BENCH_SMOKE=1: a 2-patch series, one round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "now.h"
#include "strbuf.h"
#include "tree.h"

#define N_PATCHES	20	/* 2 in smoke mode */
#define ROUNDS		5	/* 1 in smoke mode */

static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT, o = STRBUF_INIT;
	char buf[65536];
	va_list ap;
	size_t n;
	FILE *p;

	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	p = popen(cmd.buf, "r");
	while (p && (n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&o, buf, n);
	if (!p || pclose(p)) {
		fprintf(stderr, "apply-bench: failed: %s\n", cmd.buf);
		exit(1);
	}
	strbuf_release(&cmd);
	return strbuf_detach(&o, NULL);
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static long long mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	return st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");
	char *tree, *tip, *base, *diffs[N_PATCHES], *one;
	struct apply_patch p[N_PATCHES];
	struct apply_result res;
	struct apply_repo *r = NULL;
	struct tree_worktree *wt = NULL;
	double t[ROUNDS], t0, sw[2 * ROUNDS];
	char wtpath[512], unchanged[600], changed[600];
	long long m_unchanged;
	size_t i, n;
	int k, kept = 1;
	int smoke = !!getenv("KREGRESS_BENCH_SMOKE");
	size_t n_patches = smoke ? 2 : N_PATCHES;
	int rounds = smoke ? 1 : ROUNDS;

	if (!src)
		src = ".";
	printf("# apply-bench: 6.1 tree from the cache (imports it once)\n");
	fflush(stdout);
	tree = run("%s/tests/lib/apply-fixture.sh tree", src);
	chomp(tree);
	tip = run("%s/tests/lib/apply-fixture.sh series %s %zu", src, tree,
		  n_patches);
	chomp(tip);
	base = run("git -C %s rev-parse %s~%zu", tree, tip, n_patches);
	chomp(base);
	for (i = 0; i < n_patches; i++) {
		diffs[i] = run("git -C %s diff-tree -p --binary %s~%zu^ "
			       "%s~%zu", tree, tip, n_patches - 1 - i, tip,
			       n_patches - 1 - i);
		memset(&p[i], 0, sizeof(p[i]));
		p[i].author_name = "Bench";
		p[i].author_email = "bench@invalid";
		p[i].time = 1700000000 + i;
		p[i].message = "mm: bench\n";
		p[i].diff = diffs[i];
		p[i].diff_len = strlen(diffs[i]);
	}
	if (apply_repo_open(tree, &r) < 0)
		return 1;
	for (k = 0; k < rounds; k++) {
		t0 = now_s();
		if (apply_series(r, base, p, n_patches, NULL, &res) < 0 ||
		    res.status != APPLY_OK) {
			fprintf(stderr, "apply-bench: series did not apply: "
				"%s\n", res.reason ? res.reason : "error");
			return 1;
		}
		t[k] = now_s() - t0;
		apply_result_release(&res);
	}
	qsort(t, rounds, sizeof(*t), cmp_double);
	printf("apply %zu-patch series (78k-file tree, in memory): "
	       "median %.3f s, min %.3f s, max %.3f s over %d runs "
	       "(target <= 1 s)\n", n_patches, t[rounds / 2], t[0],
	       t[rounds - 1], rounds);
	apply_repo_free(r);

	/* Worktree: base vs base + patch 1 (one file differs). */
	one = run("git -C %s rev-parse %s~%zu", tree, tip, n_patches - 1);
	chomp(one);
	snprintf(wtpath, sizeof(wtpath), "%s-wt-bench", tree);
	t0 = now_s();
	if (tree_worktree_open(tree, wtpath, base, &wt) < 0)
		return 1;
	printf("worktree open (first run: full checkout of 78k files): "
	       "%.1f s\n", now_s() - t0);
	if (tree_worktree_switch(wt, base, NULL) < 0)
		return 1;
	snprintf(unchanged, sizeof(unchanged), "%s/mm/Kconfig", wtpath);
	m_unchanged = mtime_ns(unchanged);
	{
		char *f = run("git -C %s diff --name-only %s %s", tree, base,
			      one);

		chomp(f);
		snprintf(changed, sizeof(changed), "%s/%s", wtpath, f);
		free(f);
	}
	for (k = 0; k < 2 * rounds; k++) {
		long long before = mtime_ns(changed);

		t0 = now_s();
		if (tree_worktree_switch(wt, k % 2 ? base : one, &n) < 0)
			return 1;
		sw[k] = now_s() - t0;
		if (n != 1 || mtime_ns(changed) == before)
			kept = 0;
	}
	if (mtime_ns(unchanged) != m_unchanged)
		kept = 0;
	qsort(sw, 2 * rounds, sizeof(*sw), cmp_double);
	printf("worktree switch base<->patched, 1 file differs: median "
	       "%.4f s, min %.4f s, max %.4f s over %d switches "
	       "(target <= 1 s)\n", sw[rounds], sw[0], sw[2 * rounds - 1],
	       2 * rounds);
	printf("unchanged files kept their mtime, the changed one was "
	       "rewritten: %s\n", kept ? "yes" : "NO");
	tree_worktree_free(wt);
	for (i = 0; i < n_patches; i++)
		free(diffs[i]);
	free(tree);
	free(tip);
	free(base);
	free(one);
	return kept ? 0 : 1;
}
