/*
 * sandbox.c - bubblewrap runner with limits and a streaming output reader.
 *
 * The child drops to the build user (if we are root), sets its resource
 * limits and execs bwrap, which builds the namespaces.  Everything that
 * could fail in a forked child of a threaded daemon (user lookup, argv
 * building) happens before fork(); the child only calls async-signal-safe
 * functions.  The parent reads the merged output through a pipe, keeps up
 * to log_bytes of it, and kills the child's process group on a broken
 * limit.  bwrap runs with --die-with-parent, and the command is pid 1's
 * child in its own pid namespace, so killing bwrap kills every process of
 * the build.
 *
 * A stop request is gentler first: SIGKILL leaves half-written objects
 * whose fresh mtime would make the next make skip them, so the command's
 * processes get SIGTERM (make then deletes the targets it was writing and
 * exits), found as bwrap's descendants in /proc since they live in their
 * own session and pid namespace; bwrap itself is spared (killing it would
 * SIGKILL the rest through --die-with-parent).  The sweep repeats until
 * the grace period ends, for processes forked meanwhile; then SIGKILL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "log.h"
#include "now.h"
#include "sandbox.h"
#include "strbuf.h"

#define BWRAP		"/usr/bin/bwrap"
#define DISK_CHECK_S	10
#define STOP_SWEEP_S	0.5

const char *sandbox_end_str(enum sandbox_end end)
{
	switch (end) {
	case SANDBOX_EXITED:	return "exited";
	case SANDBOX_SIGNALED:	return "signaled";
	case SANDBOX_TIMEOUT:	return "timeout";
	case SANDBOX_LOG_LIMIT:	return "log-limit";
	case SANDBOX_DISK_LIMIT: return "disk-limit";
	case SANDBOX_STOPPED:	return "stopped";
	}
	return "?";
}

static unsigned long long du_total;

static int du_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	if (flag == FTW_F)
		du_total += (unsigned long long)st->st_blocks * 512;
	return 0;
}

unsigned long long sandbox_du(const char *path)
{
	/* nftw has no closure argument; callers are not concurrent here */
	static __thread int busy;
	unsigned long long total;

	if (busy)
		return 0;
	busy = 1;
	du_total = 0;
	nftw(path, du_one, 32, FTW_PHYS);
	total = du_total;
	busy = 0;
	return total;
}

static void set_limit(int resource, unsigned long long v)
{
	struct rlimit rl = { v, v };

	if (v)
		setrlimit(resource, &rl);
}

struct proc_entry {
	pid_t pid;
	pid_t ppid;
	int bwrap;		/* comm is "bwrap" */
	int below;		/* a descendant of the root */
};

/* Reads /proc/PID/stat; 0 if it is a process we could read. */
static int proc_read(const char *name, struct proc_entry *e)
{
	char path[300], buf[512];
	const char *open_paren, *close_paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold anything, even ")" */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	e->pid = (pid_t)atoi(buf);
	e->bwrap = close_paren - open_paren - 1 == 5 &&
		   !strncmp(open_paren + 1, "bwrap", 5);
	if (sscanf(close_paren + 1, " %*c %d", &e->ppid) != 1)
		return -1;
	e->below = 0;
	return 0;
}

/*
 * Sends sig to every descendant of root except bwrap's own processes.
 * Returns how many processes it signalled.
 */
static int signal_descendants(pid_t root, int sig)
{
	struct proc_entry *v = NULL, e;
	size_t n = 0, alloc = 0, i;
	struct dirent *de;
	int changed = 1, sent = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    proc_read(de->d_name, &e))
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = e;
	}
	closedir(d);
	/* the tree is shallow (bwrap, sh, make, gcc, cc1): a few passes */
	while (changed) {
		changed = 0;
		for (i = 0; i < n; i++) {
			size_t j;

			if (v[i].below)
				continue;
			if (v[i].ppid == root) {
				v[i].below = changed = 1;
				continue;
			}
			for (j = 0; j < n; j++)
				if (v[j].below && v[j].pid == v[i].ppid) {
					v[i].below = changed = 1;
					break;
				}
		}
	}
	for (i = 0; i < n; i++)
		if (v[i].below && !v[i].bwrap && !kill(v[i].pid, sig))
			sent++;
	free(v);
	return sent;
}

/* Only async-signal-safe calls from here to execve. */
static void child(const struct sandbox *sb, char **args, char **env,
		  int out, uid_t uid, gid_t gid, int drop)
{
	int devnull = open("/dev/null", O_RDONLY);
	struct sigaction dfl;
	sigset_t none;
	int sig;

	/*
	 * The caller's mask and ignored signals would be inherited by make
	 * and the compilers (the daemon blocks SIGTERM for its signalfd):
	 * the build starts with the defaults, so a stop can reach it.
	 */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(out, 2) < 0)
		_exit(126);
	set_limit(RLIMIT_AS, sb->mem_bytes);
	set_limit(RLIMIT_FSIZE, sb->file_bytes);
	set_limit(RLIMIT_CORE, 0);
	/* counted per real uid: only meaningful for the dedicated user */
	if (drop)
		set_limit(RLIMIT_NPROC, sb->nproc);
	if (drop && (setgroups(0, NULL) < 0 || setgid(gid) < 0 ||
		     setuid(uid) < 0)) {
		static const char msg[] = "kregress: sandbox: cannot drop "
					  "privileges\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(126);
		_exit(126);
	}
	execve(BWRAP, args, env);
	_exit(127);
}

static void push(char ***v, size_t *n, size_t *alloc, const char *s)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (char *)s;
}

/* Splits buffered output into lines for on_line; keeps a partial tail. */
static void feed_lines(const struct sandbox *sb, struct strbuf *pending,
		       int flush)
{
	size_t start = 0, i;

	for (i = 0; i < pending->len; i++) {
		if (pending->buf[i] != '\n')
			continue;
		if (sb->on_line)
			sb->on_line(sb->arg, pending->buf + start, i - start);
		start = i + 1;
	}
	/* a line longer than 64 KiB is delivered in pieces */
	if ((flush || pending->len - start > 65536) && start < pending->len) {
		if (sb->on_line)
			sb->on_line(sb->arg, pending->buf + start,
				    pending->len - start);
		start = pending->len;
	}
	if (!start)
		return;
	memmove(pending->buf, pending->buf + start, pending->len - start);
	pending->len -= start;
	pending->buf[pending->len] = '\0';
}

int sandbox_run(const struct sandbox *sb, char *const argv[],
		struct sandbox_result *res)
{
	struct strbuf pending = STRBUF_INIT;
	char **args = NULL;
	size_t n = 0, alloc = 0;
	struct passwd *pw = NULL;
	uid_t uid = 0;
	gid_t gid = 0;
	int drop = 0, pipefd[2] = { -1, -1 }, status, i, killed = 0;
	int hard_killed = 0;
	double start, last_disk, stop_at = 0, last_sweep = 0;
	pid_t pid;
	char buf[16384];
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (sb->stop && *sb->stop) {
		res->end = SANDBOX_STOPPED;
		return 0;
	}
	if (access(BWRAP, X_OK))
		return error("sandbox", BWRAP ": %s (install bubblewrap)",
			     strerror(errno));
	if (sb->user && geteuid() == 0) {
		pw = getpwnam(sb->user);
		if (!pw)
			return error("sandbox", "user %s does not exist "
				     "(create it: make setup-builders)",
				     sb->user);
		uid = pw->pw_uid;
		gid = pw->pw_gid;
		drop = 1;
	}

	push(&args, &n, &alloc, BWRAP);
	push(&args, &n, &alloc, "--unshare-all");
	push(&args, &n, &alloc, "--die-with-parent");
	push(&args, &n, &alloc, "--new-session");
	push(&args, &n, &alloc, "--ro-bind");
	push(&args, &n, &alloc, "/");
	push(&args, &n, &alloc, "/");
	push(&args, &n, &alloc, "--dev");
	push(&args, &n, &alloc, "/dev");
	push(&args, &n, &alloc, "--proc");
	push(&args, &n, &alloc, "/proc");
	push(&args, &n, &alloc, "--tmpfs");
	push(&args, &n, &alloc, "/tmp");
	for (i = 0; i < SANDBOX_MAX_BINDS && sb->ro[i]; i++) {
		push(&args, &n, &alloc, "--ro-bind");
		push(&args, &n, &alloc, sb->ro[i]);
		push(&args, &n, &alloc, sb->ro[i]);
	}
	for (i = 0; i < SANDBOX_MAX_BINDS && sb->rw[i]; i++) {
		push(&args, &n, &alloc, "--bind");
		push(&args, &n, &alloc, sb->rw[i]);
		push(&args, &n, &alloc, sb->rw[i]);
	}
	if (sb->chdir) {
		push(&args, &n, &alloc, "--chdir");
		push(&args, &n, &alloc, sb->chdir);
	}
	push(&args, &n, &alloc, "--");
	for (i = 0; argv[i]; i++)
		push(&args, &n, &alloc, argv[i]);
	push(&args, &n, &alloc, NULL);

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		error("sandbox", "pipe: %s", strerror(errno));
		goto out;
	}
	start = now_s();
	last_disk = start;
	pid = fork();
	if (pid < 0) {
		error("sandbox", "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(sb, args, (char **)sb->env, pipefd[1], uid, gid, drop);
	close(pipefd[1]);
	pipefd[1] = -1;

	res->end = SANDBOX_EXITED;
	for (;;) {
		struct pollfd pfd = { pipefd[0], POLLIN, 0 };
		double t;
		int r = poll(&pfd, 1, res->end == SANDBOX_STOPPED ? 100 : 1000);

		if (r < 0 && errno != EINTR) {
			error("sandbox", "poll: %s", strerror(errno));
			break;
		}
		if (r > 0) {
			ssize_t got = read(pipefd[0], buf, sizeof(buf));

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;	/* every writer is gone */
			if (!sb->log_bytes ||
			    res->log_bytes + (size_t)got <= sb->log_bytes) {
				if (sb->log_fd >= 0 &&
				    write(sb->log_fd, buf, (size_t)got) < 0)
					log_warn("sandbox", "log: %s",
						 strerror(errno));
			} else if (!killed) {
				res->end = SANDBOX_LOG_LIMIT;
				killed = 1;
				kill(-pid, SIGKILL);
			}
			res->log_bytes += (size_t)got;
			if (!killed) {
				strbuf_add(&pending, buf, (size_t)got);
				feed_lines(sb, &pending, 0);
			}
		}
		t = now_s();
		if (!killed && sb->timeout_s && t - start > sb->timeout_s) {
			res->end = SANDBOX_TIMEOUT;
			killed = 1;
			kill(-pid, SIGKILL);
		}
		if (!killed && sb->disk_path && sb->disk_bytes &&
		    t - last_disk >= DISK_CHECK_S) {
			last_disk = t;
			if (sandbox_du(sb->disk_path) > sb->disk_bytes) {
				res->end = SANDBOX_DISK_LIMIT;
				killed = 1;
				kill(-pid, SIGKILL);
			}
		}
		if (!killed && sb->stop && *sb->stop) {
			res->end = SANDBOX_STOPPED;
			killed = 1;
			stop_at = t;
		}
		if (res->end == SANDBOX_STOPPED && !hard_killed) {
			if (t - stop_at >= SANDBOX_STOP_GRACE_S) {
				log_info("sandbox", "stop: the command did "
					 "not end in %d s after SIGTERM; "
					 "killing it", SANDBOX_STOP_GRACE_S);
				kill(-pid, SIGKILL);
				hard_killed = 1;
			} else if (t - last_sweep >= STOP_SWEEP_S) {
				signal_descendants(pid, SIGTERM);
				last_sweep = t;
			}
		}
		if (sb->on_tick)
			sb->on_tick(sb->arg);
	}
	feed_lines(sb, &pending, 1);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error("sandbox", "waitpid: %s", strerror(errno));
			goto out;
		}
	}
	/* a last look: the disk cap also holds for what was written last */
	if (!killed && sb->disk_path && sb->disk_bytes &&
	    sandbox_du(sb->disk_path) > sb->disk_bytes)
		res->end = SANDBOX_DISK_LIMIT;
	res->duration_s = now_s() - start;
	if (res->end == SANDBOX_EXITED) {
		if (WIFEXITED(status)) {
			res->exit_status = WEXITSTATUS(status);
		} else {
			res->end = SANDBOX_SIGNALED;
			res->signal = WTERMSIG(status);
		}
	}
	ret = 0;
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	strbuf_release(&pending);
	free(args);
	return ret;
}
