/*
 * t-checkout.c - the interim git-CLI worktree code: resolve, create, switch
 * commits keeping unchanged files' mtimes, recover a broken worktree.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkout.h"
#include "tap.h"

static char dir[] = "/tmp/t-checkout-XXXXXX";

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

int main(void)
{
	char c1[41], c2[41], repo[64], wt[64], path[96], meta[96], gone[96];
	long long keep, change;

	if (!mkdtemp(dir))
		return 1;
	snprintf(repo, sizeof(repo), "%s/r", dir);
	snprintf(wt, sizeof(wt), "%s/w", dir);
	if (sh("cd %s && git init -q r && cd r && echo a > keep && "
	       "echo 1 > change && git add . && git -c user.name=t "
	       "-c user.email=t@t commit -qm one && echo 2 > change && "
	       "git -c user.name=t -c user.email=t@t commit -qam two", dir))
		return 1;

	is_int(checkout_resolve(repo, "HEAD~1", c1), 0, "resolve HEAD~1");
	is_int(checkout_resolve(repo, "HEAD", c2), 0, "resolve HEAD");
	ok(strlen(c1) == 40 && strcmp(c1, c2), "two full, different ids");
	is_int(checkout_resolve(repo, "no-such-branch", c2), -1,
	       "unknown revision fails");
	is_int(checkout_resolve(repo, "--output=/tmp/x", c2), -1,
	       "an option is not a revision");
	is_int(checkout_resolve(dir, "HEAD", c2), -1, "not a repository");
	checkout_resolve(repo, "HEAD", c2);

	is_int(checkout_worktree(repo, c1, wt), 0, "create the worktree");
	snprintf(path, sizeof(path), "%s/change", wt);
	keep = mtime_ns(path);
	snprintf(path, sizeof(path), "%s/keep", wt);
	keep = mtime_ns(path);
	snprintf(path, sizeof(path), "%s/change", wt);
	change = mtime_ns(path);
	usleep(20000);
	is_int(checkout_worktree(repo, c2, wt), 0, "switch to the next commit");
	snprintf(path, sizeof(path), "%s/keep", wt);
	is_int(mtime_ns(path), keep, "unchanged file keeps its mtime");
	snprintf(path, sizeof(path), "%s/change", wt);
	ok(mtime_ns(path) != change, "changed file rewritten");

	/* interrupted creation: the worktree's metadata is gone */
	snprintf(meta, sizeof(meta), "%s/.git/worktrees/w", repo);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	rename(meta, gone);
	is_int(checkout_worktree(repo, c1, wt), 0,
	       "a broken worktree is created again");
	is_int(sh("grep -qx 1 %s/w/change", dir), 0, "with the right content");

	sh("rm -rf %s", dir);
	return done_testing();
}
