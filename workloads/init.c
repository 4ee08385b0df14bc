/*
 * init.c - the guest's /init: sets the machine up as the plan says, runs
 * the plan's workloads, frames their output on the console and powers
 * off.  Static C, no library beyond libc; shares frame.c and plan.c with
 * the daemon.  It is the only place where result lines are framed: `kregress
 * bench --native` runs this same program on the host.
 *
 * In both modes the workloads run without address-space randomization
 * (ADDR_NO_RANDOMIZE, as `setarch -R`): where the kernel puts their
 * mappings, stack and heap is the same every boot.  Randomized, it varies
 * what a workload costs from boot to boot: on arm64 the 2 MiB and 1 GiB
 * mremap moves took 3% fewer instructions in about one boot in four,
 * noise that a 3% threshold cannot tell from a change.  The env record
 * says "aslr":"off" (or "on" when the personality could not be set).
 *
 * Two modes, chosen by the process id:
 *
 *   guest  (PID 1): mounts proc, sys and devtmpfs, applies the plan's THP
 *          mode and swap; after the END line it waits for the host to end
 *          the guest, and powers off with reboot(RB_POWER_OFF) only when
 *          its console says no host is there (an init that exits panics
 *          the kernel).  It does not power off at once: a domain that
 *          ends takes down with it what its console still had in flight
 *          (libvirtd drops what the pty holds, the last kilobytes at
 *          times), and instruction time (-icount sleep=off) jumps over
 *          any wait the guest could time, so only the host can tell when
 *          its copy is complete: it ends the domain once it reads END.
 *   hosted (any other PID; tests, kregress bench --native): mounts nothing
 *          unless KREGRESS_INIT_MOUNT=1, never powers off (exits 0 if every
 *          run succeeded, else 1), sets no swap, and writes the THP mode only
 *          below KREGRESS_INIT_SYSFS (a stand-in for /sys, for tests) so the
 *          host's settings are never changed.
 *
 * Inputs: the plan from a file, argv[1] (hosted mode only: as PID 1, argv
 * holds the words of the kernel command line the kernel did not know,
 * such as arm64's nokaslr) or $KREGRESS_PLAN, else kregress.plan="..."
 * on the kernel command line, else the file /plan; the run nonce from
 * $KREGRESS_NONCE, else kregress.nonce= on the command line; workload
 * binaries from $KREGRESS_BIN_DIR, else /bin.
 *
 * Output (stdout, which the kernel connects to /dev/console): record 0 is
 * the environment ("type":"env"); then each line a workload prints, framed
 * as one record; a "type":"failure" record for whatever went wrong around
 * them (plan error, exec failure, crash, timeout, non-JSON output); and
 * the END line.  A workload's stderr is copied to the console unframed,
 * by init, so that init is the console's only writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "plan.h"

#define WL_EXIT_REPORTED 3	/* see workloads/common.h */
#define CMDLINE_MAX 4096

static const char *nonce;
static unsigned long seq;
static int guest, failed;
static char frame_buf[FRAME_LINE_MAX];
static struct plan plan;

static void write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/* Frames one JSON object; it was checked by the caller or built here. */
static int emit(const char *json)
{
	int n = frame_record(frame_buf, sizeof(frame_buf), nonce, seq, json);

	if (n < 0)
		return -1;
	/* One write() per line, so the console keeps lines whole. */
	write_all(1, frame_buf, n);
	seq++;
	return 0;
}

__attribute__((format(printf, 2, 3)))
static void emit_failure(const char *workload, const char *fmt, ...)
{
	char reason[512], json[1024];
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	n = snprintf(json, sizeof(json), "{\"type\":\"failure\",\"workload\":");
	frame_json_str(json, sizeof(json) - 32, &n, workload);
	n += snprintf(json + n, sizeof(json) - n, ",\"reason\":");
	frame_json_str(json, sizeof(json) - 2, &n, reason);
	strcpy(json + n, "}");
	emit(json);
	fprintf(stderr, "init: %s: %s\n", workload, reason);
	failed = 1;
}

/* Reads a small file into buf (NUL-terminated, trailing newline cut). */
static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	buf[0] = 0;
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		r = -1;
	if (close(fd))
		r = -1;
	return r;
}

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, MS_NOSUID | MS_NOEXEC, NULL) &&
	    errno != EBUSY)
		fprintf(stderr, "init: mount %s: %s\n", dir, strerror(errno));
}

static void mount_all(void)
{
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mkdir("/dev", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL) &&
	    errno != EBUSY)
		fprintf(stderr, "init: mount /dev: %s\n", strerror(errno));
}

/* Without /dev/console in the initramfs, the kernel gave us no stdio. */
static void open_console(void)
{
	int fd;

	if (fcntl(1, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static const char *thp_path(void)
{
	static char path[512];
	const char *sysfs = getenv("KREGRESS_INIT_SYSFS");

	if (!guest && !sysfs)
		return NULL;
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled",
		 sysfs ? sysfs : "/sys");
	return path;
}

static int apply_thp(enum plan_thp thp)
{
	char buf[128], want[32];
	const char *path = thp_path();

	if (thp == PLAN_THP_KEEP || !path)
		return 0;
	if (write_str(path, plan_thp_str(thp))) {
		emit_failure("init", "THP %s: write %s: %s%s",
			     plan_thp_str(thp), path, strerror(errno),
			     errno == ENOENT ? " (the kernel lacks "
			     "CONFIG_TRANSPARENT_HUGEPAGE)" : "");
		return -1;
	}
	snprintf(want, sizeof(want), "[%s]", plan_thp_str(thp));
	/* The real file shows "always [madvise] never"; a test stand-in the
	 * bare word. */
	if (read_small(path, buf, sizeof(buf)) ||
	    (!strstr(buf, want) && strcmp(buf, plan_thp_str(thp)))) {
		emit_failure("init", "THP %s did not take: '%s'",
			     plan_thp_str(thp), buf);
		return -1;
	}
	return 0;
}

/* Writes a version-1 swap header (what mkswap does) on the first page. */
static int write_swap_header(const char *dev, unsigned long bytes)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned char *page = calloc(1, ps);
	unsigned int *w;
	int fd, r = -1;

	if (!page)
		return -1;
	w = (unsigned int *)(page + 1024);
	w[0] = 1;			/* version */
	w[1] = bytes / ps - 1;		/* last_page */
	w[2] = 0;			/* nr_badpages */
	memcpy(page + ps - 10, "SWAPSPACE2", 10);
	fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && pwrite(fd, page, ps, 0) == ps && !fsync(fd))
		r = 0;
	if (fd >= 0)
		close(fd);
	free(page);
	return r;
}

static void swap_desc(char *desc, size_t descsz)
{
	if (plan.swap == PLAN_SWAP_NONE)
		snprintf(desc, descsz, "none");
	else
		snprintf(desc, descsz, "%s%s %u MiB",
			 guest ? "" : "skipped (hosted): ",
			 plan_swap_str(plan.swap), plan.swap_mb);
}

static int setup_swap(void)
{
	unsigned long bytes = (unsigned long)plan.swap_mb << 20;
	char size[32];
	const char *dev;

	if (plan.swap == PLAN_SWAP_NONE || !guest)
		return 0;
	snprintf(size, sizeof(size), "%lu", bytes);
	if (plan.swap == PLAN_SWAP_ZRAM) {
		dev = "/dev/zram0";
		if (write_str("/sys/block/zram0/disksize", size))
			return emit_failure("init", "zram: set disksize: %s%s",
					    strerror(errno), errno == ENOENT ?
					    " (the kernel lacks CONFIG_ZRAM)" :
					    ""), -1;
	} else {
		int fd;

		dev = plan.swap_path;
		fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || posix_fallocate(fd, 0, bytes)) {
			if (fd >= 0)
				close(fd);
			return emit_failure("init", "swap file %s: cannot "
					    "allocate", dev), -1;
		}
		close(fd);
	}
	if (write_swap_header(dev, bytes))
		return emit_failure("init", "swap header on %s: %s", dev,
				    strerror(errno)), -1;
	if (swapon(dev, 0))
		return emit_failure("init", "swapon %s: %s%s", dev,
				    strerror(errno), errno == ENOSYS ?
				    " (the kernel lacks CONFIG_SWAP)" : ""),
		       -1;
	return 0;
}

/* The first "key : value" of /proc/cpuinfo among keys, into out. */
static void cpu_model(char *out, size_t size)
{
	static const char *const keys[] = {
		"model name", "CPU part", "cpu model", "Processor",
	};
	char line[256];
	size_t i;
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, size, "unknown");
	if (!f)
		return;
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (strncmp(line, keys[i], strlen(keys[i])) || !colon)
				continue;
			line[strcspn(line, "\n")] = 0;
			snprintf(out, size, "%s", colon + 1 +
				 (colon[1] == ' '));
			fclose(f);
			return;
		}
	}
	fclose(f);
}

static unsigned long mem_total_kb(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void add_field(char *json, size_t size, size_t *n, const char *key,
		      const char *value)
{
	if (*n + strlen(key) + 8 >= size)
		return;
	*n += snprintf(json + *n, size - *n, ",\"%s\":", key);
	frame_json_str(json, size - 2, n, value);
}

static void add_num(char *json, size_t size, size_t *n, const char *key,
		    long value)
{
	if (*n + strlen(key) + 32 < size)
		*n += snprintf(json + *n, size - *n, ",\"%s\":%ld", key,
			       value);
}

/*
 * The workloads' address-space layout, the same every boot (see the top
 * of the file); 0 when set.  Inherited by every process init starts.
 */
static int aslr_off(void)
{
	int persona = personality(0xffffffff);

	if (persona < 0 || personality(persona | ADDR_NO_RANDOMIZE) < 0)
		return -1;
	return 0;
}

static void emit_env(const char *cmdline, const char *swap_desc,
		     int randomized)
{
	char json[FRAME_JSON_MAX], buf[1024];
	struct utsname u;
	size_t n;

	n = snprintf(json, sizeof(json), "{\"type\":\"env\",\"mode\":\"%s\"",
		     guest ? "guest" : "hosted");
	if (!uname(&u)) {
		add_field(json, sizeof(json), &n, "sysname", u.sysname);
		add_field(json, sizeof(json), &n, "release", u.release);
		add_field(json, sizeof(json), &n, "version", u.version);
		add_field(json, sizeof(json), &n, "machine", u.machine);
	}
	snprintf(buf, sizeof(buf), "%.1000s", cmdline);
	add_field(json, sizeof(json), &n, "cmdline", buf);
	read_small("/sys/kernel/mm/transparent_hugepage/enabled", buf,
		   sizeof(buf));
	add_field(json, sizeof(json), &n, "thp_enabled", buf);
	read_small("/sys/kernel/mm/transparent_hugepage/defrag", buf,
		   sizeof(buf));
	add_field(json, sizeof(json), &n, "thp_defrag", buf);
	read_small("/sys/devices/system/clocksource/clocksource0/"
		   "current_clocksource", buf, sizeof(buf));
	add_field(json, sizeof(json), &n, "clocksource", buf);
	cpu_model(buf, sizeof(buf));
	add_field(json, sizeof(json), &n, "cpu", buf);
	add_num(json, sizeof(json), &n, "ncpu", sysconf(_SC_NPROCESSORS_ONLN));
	add_num(json, sizeof(json), &n, "mem_total_kb", mem_total_kb());
	add_num(json, sizeof(json), &n, "page_size", sysconf(_SC_PAGESIZE));
	add_field(json, sizeof(json), &n, "swap", swap_desc);
	add_field(json, sizeof(json), &n, "aslr", randomized ? "on" : "off");
	add_num(json, sizeof(json), &n, "runs", plan.nruns);
	if (n + 2 > sizeof(json))
		n = sizeof(json) - 2;
	strcpy(json + n, "}");
	if (emit(json))
		emit_failure("init", "environment record did not frame");
}

/*
 * Frames one line of a workload's output.  Lines that are not a JSON
 * object on one line become a failure record, never a sample.
 */
static void take_line(const struct plan_run *r, const char *line, int *bad)
{
	if (emit(line) == 0)
		return;
	if (!*bad)
		emit_failure(r->name, "output line is not a framable JSON "
			     "object: '%.60s'", line);
	*bad = 1;
}

/* Seconds of CLOCK_MONOTONIC: immune to the guest's clock being set. */
static long mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/*
 * Runs one workload.  Its stdout is framed line by line; its stderr is
 * copied to our stderr, so that init is the only writer on the console and
 * a workload's diagnostics can never land inside one of our lines.
 */
static void run_one(const struct plan_run *r, const char *bindir)
{
	char path[512], line[FRAME_JSON_MAX + 2], errbuf[1024];
	size_t len = 0;
	int fds[2], efds[2], status, bad = 0, too_long = 0, timed_out = 0;
	unsigned long before = seq;
	struct pollfd pfd[2];
	long deadline;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", bindir, r->name);
	if (access(path, X_OK)) {
		emit_failure(r->name, "no workload binary %s", path);
		return;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		emit_failure(r->name, "pipe: %s", strerror(errno));
		return;
	}
	if (pipe2(efds, O_CLOEXEC)) {
		emit_failure(r->name, "pipe: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	pid = fork();
	if (pid < 0) {
		emit_failure(r->name, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(efds[0]);
		close(efds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(efds[1], 2);
		execv(path, r->argv);
		fprintf(stderr, "init: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	close(efds[1]);
	pfd[0] = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = efds[0], .events = POLLIN };
	deadline = mono_s() + r->timeout_s;
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		long left = deadline - mono_s();
		char c;
		ssize_t n;

		if (left <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		n = poll(pfd, 2, left * 1000);
		if (n <= 0)
			continue;	/* EINTR or the deadline */
		if (pfd[1].revents) {
			n = read(efds[0], errbuf, sizeof(errbuf));
			if (n > 0)
				write_all(2, errbuf, n);
			else if (n == 0 || errno != EINTR)
				pfd[1].fd = -1;
		}
		if (!pfd[0].revents)
			continue;
		/* Byte-wise reads keep this simple; output is small. */
		n = read(fds[0], &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pfd[0].fd = -1;
			continue;
		}
		if (c == '\n') {
			line[len] = 0;
			if (too_long && !bad)
				emit_failure(r->name, "output line longer "
					     "than %d bytes", FRAME_JSON_MAX);
			else if (len)
				take_line(r, line, &bad);
			bad |= too_long;
			len = 0;
			too_long = 0;
		} else if (len < FRAME_JSON_MAX + 1) {
			line[len++] = c;
		} else {
			too_long = 1;
		}
	}
	close(efds[0]);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (len && !timed_out)
		emit_failure(r->name, "output ended without a newline");
	if (timed_out)
		emit_failure(r->name, "timeout after %u s", r->timeout_s);
	else if (WIFSIGNALED(status))
		emit_failure(r->name, "killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) == WL_EXIT_REPORTED)
		failed = 1;	/* the workload printed its failure record */
	else if (WEXITSTATUS(status))
		emit_failure(r->name, "exit status %d", WEXITSTATUS(status));
	else if (seq == before)
		emit_failure(r->name, "no output");
}

static int load_plan(int argc, char **argv, const char *cmdline,
		     char *err, size_t errsz)
{
	static char text[PLAN_TEXT_MAX + 2];
	const char *file = getenv("KREGRESS_PLAN");
	ssize_t n;
	int fd;

	if (!guest && argc > 1)
		file = argv[1];
	if (!file) {
		int r = plan_cmdline_get(cmdline, "kregress.plan", text,
					 sizeof(text));

		if (r < 0) {
			snprintf(err, errsz, "kregress.plan too long");
			return -1;
		}
		if (r > 0)
			return plan_parse_cmdline(&plan, text, err, errsz);
		file = "/plan";
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsz, "cannot open plan %s: %s", file,
			 strerror(errno));
		return -1;
	}
	n = read(fd, text, sizeof(text));
	close(fd);
	if (n < 0 || n > PLAN_TEXT_MAX) {
		snprintf(err, errsz, "plan %s unreadable or larger than %d "
			 "bytes", file, PLAN_TEXT_MAX);
		return -1;
	}
	return plan_parse(&plan, text, n, err, errsz);
}

static void finish(void)
{
	int n = frame_end(frame_buf, sizeof(frame_buf), nonce, seq);

	if (n > 0)
		write_all(1, frame_buf, n);
	sync();
	if (!guest)
		exit(failed);
	/* The host ends the domain once it has read END (see the top of the
	 * file); a console that reads end-of-file has no host behind it. */
	for (;;) {
		ssize_t got = read(0, frame_buf, sizeof(frame_buf));

		if (got == 0 || (got < 0 && errno != EINTR))
			break;
	}
	reboot(RB_POWER_OFF);
	/* Only reached if power-off failed: never exit as PID 1. */
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	static char cmdline[CMDLINE_MAX], nonce_buf[FRAME_NONCE_MAX + 2];
	char err[256], swap[128];
	const char *bindir = getenv("KREGRESS_BIN_DIR");
	const char *mnt = getenv("KREGRESS_INIT_MOUNT");
	int i, plan_ok, randomized, thp_ok = 1;
	enum plan_thp thp = PLAN_THP_KEEP;

	guest = getpid() == 1;
	if (guest || (mnt && !strcmp(mnt, "1")))
		mount_all();
	if (guest) {
		open_console();
		signal(SIGPIPE, SIG_IGN);
	}
	randomized = aslr_off() != 0;
	if (!bindir)
		bindir = "/bin";
	read_small("/proc/cmdline", cmdline, sizeof(cmdline));
	nonce = getenv("KREGRESS_NONCE");
	if (!nonce && plan_cmdline_get(cmdline, "kregress.nonce", nonce_buf,
				       sizeof(nonce_buf)) > 0)
		nonce = nonce_buf;
	if (!nonce || !frame_nonce_valid(nonce)) {
		/* Nothing can be framed: say so plainly and stop. */
		fprintf(stdout, "KREGRESS 1 - init: no valid run nonce "
			"(kregress.nonce= or KREGRESS_NONCE)\n");
		fflush(stdout);
		nonce = "invalid";
		failed = 1;
		finish();
	}
	plan_ok = load_plan(argc, argv, cmdline, err, sizeof(err)) == 0;
	swap_desc(swap, sizeof(swap));
	emit_env(cmdline, plan_ok ? swap : "none", randomized);
	if (!plan_ok) {
		emit_failure("init", "plan: %s", err);
		finish();
	}
	if (setup_swap())
		finish();
	for (i = 0; i < plan.nruns; i++) {
		const struct plan_run *r = &plan.runs[i];

		/* A mode that could not be set is reported once; the runs
		 * meant for it are skipped, not run in the wrong mode. */
		if (r->thp != thp) {
			thp = r->thp;
			thp_ok = apply_thp(thp) == 0;
		}
		if (thp_ok)
			run_one(r, bindir);
	}
	finish();
	return 0;
}
