/*
 * sandbox.h - run an untrusted command (a patched kernel's make) confined.
 *
 * The command runs under bubblewrap in new user, pid, network, ipc and uts
 * namespaces (so it has no network: only a down loopback), sees the whole
 * file system read-only except the directories it is given, a private /tmp
 * and a minimal /dev, and runs as an unprivileged user (the dedicated
 * build user when the caller is root).  The caller enforces a wall-clock
 * timeout, a cap on output size and on the size of a directory; resource
 * limits cap address space and file size.  Breaking a limit kills the
 * whole sandbox; the caller is never affected.
 *
 * Stopping: when *stop becomes non-zero, every process of the command
 * (the descendants of bwrap, bwrap's own processes excepted) gets SIGTERM
 * so that make can delete the targets it was writing, as on Ctrl-C; what
 * is still alive SANDBOX_STOP_GRACE_S later is killed with SIGKILL, and
 * the pid namespace takes every descendant with it.  The sandbox's
 * processes start with every signal unblocked and at its default
 * disposition, whatever the caller's mask (the daemon blocks SIGTERM).
 */
#ifndef KREGRESS_SANDBOX_H
#define KREGRESS_SANDBOX_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define SANDBOX_MAX_BINDS	8
#define SANDBOX_MAX_ENV		32
#define SANDBOX_STOP_GRACE_S	3	/* SIGTERM, then SIGKILL */

enum sandbox_end {
	SANDBOX_EXITED,		/* exited; see exit_status */
	SANDBOX_SIGNALED,	/* killed by a signal it did not get from us */
	SANDBOX_TIMEOUT,	/* ran longer than timeout_s */
	SANDBOX_LOG_LIMIT,	/* printed more than log_bytes */
	SANDBOX_DISK_LIMIT,	/* disk_path grew beyond disk_bytes */
	SANDBOX_STOPPED,	/* *stop was set: stopped on request */
};

const char *sandbox_end_str(enum sandbox_end end);

struct sandbox {
	const char *user;	/* run as this user if we are root; NULL: no */
	const char *ro[SANDBOX_MAX_BINDS];	/* read-only binds, NULL ends */
	const char *rw[SANDBOX_MAX_BINDS];	/* writable binds, NULL ends */
	const char *chdir;	/* working directory inside */
	/* "K=V", NULL ends; only these */
	const char *env[SANDBOX_MAX_ENV];
	int timeout_s;		/* wall clock; 0 = none */
	unsigned long long mem_bytes;	/* RLIMIT_AS per process; 0 = none */
	unsigned long long file_bytes;	/* RLIMIT_FSIZE; 0 = none */
	unsigned long long nproc;	/* RLIMIT_NPROC, only with user */
	unsigned long long log_bytes;	/* output kept in log_fd; 0 = none */
	const char *disk_path;	/* directory whose size is capped, or NULL */
	unsigned long long disk_bytes;
	int log_fd;		/* output (stdout and stderr) goes here */
	/* called for every output line, without its newline; may be NULL */
	void (*on_line)(void *arg, const char *line, size_t len);
	/* called about once a second while the command runs; may be NULL */
	void (*on_tick)(void *arg);
	void *arg;
	/* non-zero (set by a signal handler): stop; NULL = never */
	const volatile sig_atomic_t *stop;
};

struct sandbox_result {
	enum sandbox_end end;
	int exit_status;	/* if SANDBOX_EXITED */
	int signal;		/* if SANDBOX_SIGNALED */
	double duration_s;
	unsigned long long log_bytes;	/* output seen, kept or not */
};

/*
 * Runs argv (argv[0] searched in the sandbox's PATH) and blocks until it
 * ended, at most about 1 + SANDBOX_STOP_GRACE_S seconds after *stop was
 * set (already set: nothing runs, res->end is SANDBOX_STOPPED).
 * Returns 0 with res filled whatever the command did, or -1 (logged)
 * if the sandbox itself could not be set up (no bwrap, unknown user).
 */
int sandbox_run(const struct sandbox *sb, char *const argv[],
		struct sandbox_result *res);

/* Total size in bytes of the files under path (not following links). */
unsigned long long sandbox_du(const char *path);

#endif
