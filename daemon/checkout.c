/*
 * checkout.c - git worktrees through the git CLI (interim, see checkout.h).
 *
 * git is run directly (no shell), with its output captured; its stderr
 * becomes the error message.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkout.h"
#include "log.h"
#include "strbuf.h"

#define GIT_OUTPUT_MAX	(64 * 1024)

/* Runs git with argv, output (stdout and stderr) into out, capped. */
static int run_git(char *const argv[], struct strbuf *out, int *status)
{
	int fd[2];
	pid_t pid;
	char buf[4096];
	ssize_t n;

	if (pipe(fd) < 0)
		return error("checkout", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return error("checkout", "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp("git", argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (out->len + (size_t)n <= GIT_OUTPUT_MAX)
			strbuf_add(out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return error("checkout", "waitpid: %s",
				     strerror(errno));
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void chomp(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == '\n' ||
			   sb->buf[sb->len - 1] == '\r'))
		sb->buf[--sb->len] = '\0';
}

int checkout_resolve(const char *tree, const char *rev, char commit[41])
{
	struct strbuf out = STRBUF_INIT, spec = STRBUF_INIT;
	int status, ret = -1;
	size_t i;

	if (!*rev || *rev == '-' || strlen(rev) > 256) {
		error("checkout", "%s: not a revision", rev);
		goto out;
	}
	strbuf_addf(&spec, "%s^{commit}", rev);
	{
		char *argv[] = { "git", "-C", (char *)tree, "rev-parse",
				 "--verify", "-q", spec.buf, NULL };

		if (run_git(argv, &out, &status))
			goto out;
	}
	chomp(&out);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || out.len != 40) {
		error("checkout", "%s: %s: no such commit%s%s", tree, rev,
		      out.len ? ": " : "", out.buf);
		goto out;
	}
	for (i = 0; i < 40; i++)
		if (!strchr("0123456789abcdef", out.buf[i]))
			goto out;
	memcpy(commit, out.buf, 41);
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&spec);
	return ret;
}

int checkout_worktree(const char *tree, const char *commit, const char *dir)
{
	struct strbuf out = STRBUF_INIT, gitfile = STRBUF_INIT;
	struct stat st;
	int status, ret = -1;

	strbuf_addf(&gitfile, "%s/.git", dir);
	if (stat(gitfile.buf, &st) == 0) {
		char *argv[] = { "git", "-C", (char *)dir, "checkout", "-q",
				 "--detach", "--force", (char *)commit, NULL };
		char *rm[] = { "git", "-C", (char *)tree, "worktree", "remove",
			       "--force", "--force", (char *)dir, NULL };

		if (run_git(argv, &out, &status))
			goto out;
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			goto done;
		/*
		 * A worktree whose creation was interrupted has no usable
		 * index: start it again rather than fail every build.
		 */
		chomp(&out);
		log_warn("checkout", "%s: %s; creating it again", dir,
			 out.buf);
		strbuf_reset(&out);
		if (run_git(rm, &out, &status))
			goto out;
		/* not even registered any more: remove it by hand */
		if (!access(dir, F_OK) &&
		    nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS)) {
			error("checkout", "removing %s: %s", dir,
			      strerror(errno));
			goto out;
		}
		strbuf_reset(&out);
	}
	{
		char *prune[] = { "git", "-C", (char *)tree, "worktree",
				  "prune", NULL };
		char *argv[] = { "git", "-C", (char *)tree, "worktree", "add",
				 "-q", "--force", "--detach", (char *)dir,
				 (char *)commit, NULL };

		/* a worktree directory removed by hand leaves a stale entry */
		if (run_git(prune, &out, &status))
			goto out;
		strbuf_reset(&out);
		if (run_git(argv, &out, &status))
			goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		chomp(&out);
		error("checkout", "%s: checking out %s: %s", dir, commit,
		      out.buf);
		goto out;
	}
done:
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&gitfile);
	return ret;
}
