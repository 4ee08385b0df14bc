/*
 * t-tree.c - tree.c's resolve and build worktrees as build.c uses them:
 * resolve, create, switch commits keeping unchanged files' mtimes, and
 * recover a worktree whose creation was interrupted.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "tree.h"

static char dir[] = "/tmp/t-tree-XXXXXX";

static __attribute__((format(printf, 1, 2))) int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static long long mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	return st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* Opens (creating or recreating) wt at rev and switches it to rev. */
static int checkout(const char *repo, const char *rev, const char *wt)
{
	struct tree_worktree *w = NULL;
	int ret;

	ret = tree_worktree_open(repo, wt, rev, &w);
	if (!ret)
		ret = tree_worktree_switch(w, rev, NULL);
	tree_worktree_free(w);
	return ret;
}

/*
 * A thread whose libgit2 call failed (libgit2 keeps an error state per
 * thread) is still running when another thread's call is the last one
 * under way.  When each call initialised and shut down libgit2, that
 * last shutdown dropped the waiting thread's state, which nothing could
 * free any more: LeakSanitizer reported it at exit (kregressd's workers
 * and tree refresher, t-pipeline-e2e.sh on a loaded machine).  Under
 * SANITIZE=address this program then fails at exit.
 */
struct waiter {
	const char *repo;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int failed, go;
};

static void *waiting_thread(void *arg)
{
	struct waiter *w = arg;
	char id[41];
	int r = tree_resolve(w->repo, "no-such-branch", id);

	pthread_mutex_lock(&w->lock);
	w->failed = r == -1;
	pthread_cond_signal(&w->cond);
	while (!w->go)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void test_threads(const char *repo, const char *wt, const char *rev)
{
	struct waiter w = { .repo = repo, .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER };
	struct tree_worktree *held = NULL;
	pthread_t t;

	/* This thread's call is under way while the other one fails. */
	if (!ok(tree_worktree_open(repo, wt, rev, &held) == 0 &&
		!pthread_create(&t, NULL, waiting_thread, &w),
		"a worktree open, a second thread started"))
		return;
	pthread_mutex_lock(&w.lock);
	while (!w.failed)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	tree_worktree_free(held);	/* the last call under way ends */
	pthread_mutex_lock(&w.lock);
	w.go = 1;
	pthread_cond_signal(&w.cond);
	pthread_mutex_unlock(&w.lock);
	pthread_join(t, NULL);
	ok(w.failed, "the other thread's call failed, and it ended after "
	   "this thread's last call (its libgit2 state is freed with it)");
}

int main(void)
{
	char c1[41], c2[41], repo[64], wt[64], wt2[64], path[96], meta[96],
	     gone[96];
	long long keep, change;

	if (!mkdtemp(dir))
		return 1;
	snprintf(repo, sizeof(repo), "%s/r", dir);
	snprintf(wt, sizeof(wt), "%s/w", dir);
	snprintf(wt2, sizeof(wt2), "%s/x/w", dir);
	if (sh("cd %s && git init -q r && cd r && echo a > keep && "
	       "echo 1 > change && git add . && git -c user.name=t "
	       "-c user.email=t@t commit -qm one && echo 2 > change && "
	       "git -c user.name=t -c user.email=t@t commit -qam two", dir))
		return 1;

	is_int(tree_resolve(repo, "HEAD~1", c1), 0, "resolve HEAD~1");
	is_int(tree_resolve(repo, "HEAD", c2), 0, "resolve HEAD");
	ok(strlen(c1) == 40 && strcmp(c1, c2), "two full, different ids");
	is_int(tree_resolve(repo, "no-such-branch", c2), -1,
	       "unknown revision fails");
	is_int(tree_resolve(repo, "--output=/tmp/x", c2), -1,
	       "an option is not a revision");
	is_int(tree_resolve(repo, "", c2), -1, "empty revision fails");
	is_int(tree_resolve(dir, "HEAD", c2), -1, "not a repository");
	tree_resolve(repo, "HEAD", c2);

	is_int(checkout(repo, c1, wt), 0, "create the worktree");
	snprintf(path, sizeof(path), "%s/keep", wt);
	/* Both files dated 2001: a file written again gets a newer time. */
	sh("touch -d @1000000000 %s/w/keep %s/w/change", dir, dir);
	keep = mtime_ns(path);
	snprintf(path, sizeof(path), "%s/change", wt);
	change = mtime_ns(path);
	is_int(checkout(repo, c2, wt), 0, "switch to the next commit");
	snprintf(path, sizeof(path), "%s/keep", wt);
	is_int(mtime_ns(path), keep, "unchanged file keeps its mtime");
	snprintf(path, sizeof(path), "%s/change", wt);
	ok(mtime_ns(path) != change, "changed file rewritten");
	is_int(sh("grep -qx 2 %s/w/change", dir), 0, "with the new content");

	/* two worktrees with the same last component (build slots' src/) */
	sh("mkdir -p %s/x", dir);
	is_int(checkout(repo, c1, wt2), 0,
	       "a second worktree with the same base name");
	is_int(sh("grep -qx 1 %s/x/w/change && grep -qx 2 %s/w/change", dir,
		  dir), 0, "each at its own commit");
	is_int(sh("test -z \"$(git -C %s branch --list 'kregress-*')\"",
		  repo), 0, "no branch is left in the repository (the one "
	       "anchoring a creation is deleted)");

	/* interrupted creation: the worktree's metadata is gone */
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	is_int(sh("mv \"$(sed -n 's/^gitdir: //p' %s/.git)\" %s", wt, gone),
	       0, "set up: metadata moved away");
	is_int(checkout(repo, c1, wt), 0,
	       "a worktree without metadata is created again");
	is_int(sh("grep -qx 1 %s/w/change", dir), 0, "with the right content");

	/* interrupted creation: a .git file, no index */
	is_int(sh("rm -f \"$(sed -n 's/^gitdir: //p' %s/.git)/index\"", wt),
	       0, "set up: index removed");
	is_int(checkout(repo, c2, wt), 0,
	       "a worktree without an index is created again");
	is_int(sh("grep -qx 2 %s/w/change && grep -qx a %s/w/keep", dir, dir),
	       0, "with every file");

	/* removed by hand: a stale entry is left in .git/worktrees */
	sh("rm -rf %s", wt);
	is_int(checkout(repo, c1, wt), 0, "a worktree removed by hand too");
	is_int(sh("grep -qx 1 %s/w/change", dir), 0, "with the right content");

	/* an empty directory (creation stopped after mkdir) */
	sh("rm -rf %s && mkdir %s", wt2, wt2);
	is_int(checkout(repo, c2, wt2), 0, "an empty directory is filled");

	/* never remove what is not a worktree */
	snprintf(meta, sizeof(meta), "%s/mine", dir);
	sh("mkdir %s && echo data > %s/file", meta, meta);
	is_int(checkout(repo, c1, meta), -1,
	       "a user's directory is refused");
	is_int(sh("grep -qx data %s/file", meta), 0, "and left alone");

	snprintf(path, sizeof(path), "%s/threads", dir);
	test_threads(repo, path, c1);

	sh("rm -rf %s", dir);
	return done_testing();
}
