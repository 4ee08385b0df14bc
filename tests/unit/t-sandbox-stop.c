/*
 * t-sandbox-stop.c - a stop request ends a sandboxed command promptly and
 * leaves no process behind (sandbox.c's stop hook, which the build stage
 * uses when the daemon stops).  The test blocks SIGTERM first, as
 * kregressd does for its signalfd, so it also checks that the sandbox
 * does not pass that mask on: the command must see the SIGTERM (it traps
 * it and leaves a file), not only the SIGKILL after the grace period.
 * Skips when bubblewrap cannot create its namespaces here.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"
#include "tap.h"

#define USER	"kregress-build"

static char dir[] = "/tmp/t-sandbox-stop.XXXXXX";
static volatile sig_atomic_t stop;
static int lines;
static char sig_lines[256];

/* Sets the stop flag once the command said it is ready. */
static void on_line(void *arg, const char *line, size_t len)
{
	lines++;
	if (len > 3 && !memcmp(line, "Sig", 3) &&
	    strlen(sig_lines) + len + 2 < sizeof(sig_lines)) {
		strncat(sig_lines, line, len);
		strcat(sig_lines, "|");
	}
	if (len == 7 && !memcmp(line, "started", 7))
		stop = 1;
}

/* Processes whose command line contains marker (a NUL-separated argv). */
static int count_procs(const char *marker)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300], buf[4096];
		ssize_t got, i;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		got = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (got <= 0)
			continue;
		for (i = 0; i < got; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[got] = '\0';
		if (strstr(buf, marker))
			n++;
	}
	closedir(d);
	return n;
}

/* No process of marker left, after a moment for the kernel to reap. */
static int none_left(const char *marker)
{
	struct timespec t = { 0, 100 * 1000 * 1000 };
	int i, n = -1;

	for (i = 0; i < 20; i++) {
		n = count_procs(marker);
		if (!n)
			break;
		nanosleep(&t, NULL);
	}
	return n;
}

static void setup(struct sandbox *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->user = USER;
	sb->rw[0] = dir;
	sb->env[0] = "PATH=/usr/bin:/bin";
	sb->timeout_s = 60;
	sb->log_fd = -1;
	sb->on_line = on_line;
	sb->stop = &stop;
}

static int exists(const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

int main(void)
{
	struct sandbox sb;
	struct sandbox_result res;
	struct passwd *pw;
	sigset_t term;
	char marker[64], script[512];

	if (!mkdtemp(dir))
		return 1;
	chmod(dir, 0777);
	pw = getpwnam(USER);
	if (geteuid() == 0 && !pw) {
		printf("1..0 # SKIP no %s user\n", USER);
		return 0;
	}
	/* like kregressd: SIGTERM is read from a signalfd, so blocked */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	signal(SIGPIPE, SIG_IGN);

	setup(&sb);
	sb.stop = NULL;
	{
		char *argv[] = { "true", NULL };

		if (sandbox_run(&sb, argv, &res) || res.end != SANDBOX_EXITED ||
		    res.exit_status) {
			printf("1..0 # SKIP no build sandbox here\n");
			rmdir(dir);
			return 0;
		}
	}

	/* 0: what make would inherit (a shell resets its mask, grep not) */
	setup(&sb);
	{
		char *argv[] = { "grep", "-E", "^Sig(Blk|Ign)",
				 "/proc/self/status", NULL };

		sandbox_run(&sb, argv, &res);
	}
	/*
	 * Signals 1-31 only (bit n-1 is signal n): 32 and 33 are glibc's
	 * own, which its sigaction() refuses to reset (make ignores them,
	 * so they arrive ignored under make check).
	 */
	{
		const char *blk = strstr(sig_lines, "SigBlk:\t");
		const char *ign = strstr(sig_lines, "SigIgn:\t");

		ok(blk && ign && !(strtoull(blk + 8, NULL, 16) & 0x7fffffff) &&
		   !(strtoull(ign + 8, NULL, 16) & 0x7fffffff),
		   "the command starts with no blocked or ignored signal "
		   "(%s)", sig_lines);
	}

	/* 1: a command that handles SIGTERM, with a child that sleeps */
	snprintf(marker, sizeof(marker), "kregress-t-sandbox-stop-%d",
		 (int)getpid());
	snprintf(script, sizeof(script),
		 "trap 'echo > %s/termed; exit 143' TERM\n"
		 "sh -c 'sleep 1000; :' %s-child &\n"
		 "echo started\n"
		 "wait\n", dir, marker);
	setup(&sb);
	{
		char *argv[] = { "sh", "-c", script, marker, NULL };

		stop = 0;
		is_int(sandbox_run(&sb, argv, &res), 0, "sandbox_run returns");
	}
	is_str(sandbox_end_str(res.end), "stopped",
	       "stop request: the command ended as stopped");
	ok(res.duration_s < SANDBOX_STOP_GRACE_S,
	   "it ended on SIGTERM, before the grace period (%.2f s)",
	   res.duration_s);
	ok(exists("termed"),
	   "the command saw SIGTERM although the caller blocks it");
	is_int(none_left(marker), 0, "no process of it is left");

	/* 2: a command that ignores SIGTERM: SIGKILL after the grace */
	snprintf(script, sizeof(script),
		 "trap '' TERM\n"
		 "sh -c 'sleep 1000; :' %s-child &\n"
		 "echo started\n"
		 "wait; wait; sleep 1000\n", marker);
	setup(&sb);
	{
		char *argv[] = { "sh", "-c", script, marker, NULL };

		stop = 0;
		is_int(sandbox_run(&sb, argv, &res), 0, "sandbox_run returns");
	}
	is_str(sandbox_end_str(res.end), "stopped",
	       "a command that ignores SIGTERM is stopped too");
	ok(res.duration_s >= SANDBOX_STOP_GRACE_S &&
	   res.duration_s < SANDBOX_STOP_GRACE_S + 3,
	   "by SIGKILL after the grace period (%.2f s)", res.duration_s);
	is_int(none_left(marker), 0, "no process of it is left");

	/* 3: already stopped: nothing runs */
	setup(&sb);
	{
		char *argv[] = { "sh", "-c", "echo > \"$0\"/ran", dir, NULL };

		stop = 1;
		lines = 0;
		is_int(sandbox_run(&sb, argv, &res), 0, "sandbox_run returns");
	}
	ok(res.end == SANDBOX_STOPPED && !exists("ran") && !lines,
	   "a stop set before the call: nothing runs");

	/* 4: a stop flag that stays clear changes nothing */
	setup(&sb);
	{
		char *argv[] = { "sh", "-c", "echo done; exit 3", NULL };

		stop = 0;
		lines = 0;
		is_int(sandbox_run(&sb, argv, &res), 0, "sandbox_run returns");
	}
	ok(res.end == SANDBOX_EXITED && res.exit_status == 3 && lines == 1,
	   "without a stop the command runs to its end (exit %d)",
	   res.exit_status);

	{
		char path[300];

		snprintf(path, sizeof(path), "%s/termed", dir);
		unlink(path);
		rmdir(dir);
	}
	return done_testing();
}
