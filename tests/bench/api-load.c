/*
 * api-load.c - GET /api/v1/series/{id} under load from wrk.
 *
 * Builds a database of 100,000 series (each with its finished fetch job)
 * in one bulk transaction under $TMPDIR, starts the real kregressd on it
 * and a free loopback port, and runs "wrk -t2 -c32 -d10s --latency" with
 * a Lua script that asks for random ids.  Prints wrk's throughput and
 * latency percentiles, the daemon's CPU time per request (which does not
 * depend on how much of the machine the run got) and the load average:
 * on a shared machine the wall-clock figures are only as good as the CPU
 * the run got.  It judges nothing, but exits 1 when wrk is missing or
 * fails, no request was answered, or one was answered with an error.
 *
 * Environment: KREGRESS_BUILD (where kregressd is; default: this
 * program's ../), API_LOAD_SERIES (default 100000), API_LOAD_SECONDS
 * (default 10); KREGRESS_BENCH_SMOKE=1: 100 series for 1 s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include "db.h"
#include "log.h"
#include "now.h"
#include "strbuf.h"

/* CPU seconds (user + system) process pid has used, from /proc. */
static double cpu_s(pid_t pid)
{
	unsigned long utime = 0, stime = 0;
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Fields 14 and 15, counted after the ")" that ends the name. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			 "%*u %lu %lu", &utime, &stime) != 2)
		return 0;
	return (double)(utime + stime) / sysconf(_SC_CLK_TCK);
}

static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &len))
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Waits up to 10 s for the daemon to accept connections on port. */
static int wait_listening(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int i, fd, ok;

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < 100; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		ok = fd >= 0 && !connect(fd, (struct sockaddr *)&sa,
					  sizeof(sa));
		if (fd >= 0)
			close(fd);
		if (ok)
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : def;
}

static int populate(struct db *db, long n)
{
	struct strbuf sql = STRBUF_INIT;
	int ret;

	/* One recursive CTE per table: 100k rows in well under a second. */
	strbuf_addf(&sql,
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
		"FROM n WHERE i < %ld) "
		"INSERT INTO series (id, msgid, list, subject, author, version,"
		" total, source_url, status, created_at, updated_at) "
		"SELECT i, printf('<%%d@example.org>', i), 'linux-mm', "
		"printf('[PATCH v2 0/3] mm: change number %%d', i), "
		"'A Developer <dev@example.org>', 2, 3, "
		"printf('https://lore.kernel.org/r/%%d@example.org', i), "
		"'queued', 1700000000 + i, 1700000000 + i FROM n;"
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
		"FROM n WHERE i < %ld) "
		"INSERT INTO job (kind, series_id, state, created_at, "
		"updated_at) SELECT 'fetch', i, 'done', 1700000000 + i, "
		"1700000000 + i FROM n;", n, n);
	ret = db_begin(db) || db_exec(db, sql.buf) || db_commit(db) ? -1 : 0;
	strbuf_release(&sql);
	return ret;
}

int main(int argc, char **argv)
{
	int smoke = !!getenv("KREGRESS_BENCH_SMOKE");
	long n = env_long("API_LOAD_SERIES", smoke ? 100 : 100000);
	long secs = env_long("API_LOAD_SECONDS", smoke ? 1 : 10);
	char dir[] = "/tmp/api-load.XXXXXX", path[256], lua[256];
	char cmd[1024], line[512], cfg[256], kd[512];
	const char *build = getenv("KREGRESS_BUILD");
	struct db *db = NULL;
	double t0, cpu0 = 0, load[3];
	long long requests = 0;
	int errors = 0;
	pid_t pid = -1;
	int port, status, ret = 1;
	FILE *f, *p;

	if (access("/usr/bin/wrk", X_OK)) {
		printf("api-load: /usr/bin/wrk not installed (make deps)\n");
		return 1;
	}
	if (build && *build)
		snprintf(kd, sizeof(kd), "%s/kregressd", build);
	else
		snprintf(kd, sizeof(kd), "%.*s/../kregressd",
			 (int)(strrchr(argv[0], '/') ?
			       strrchr(argv[0], '/') - argv[0] : 1),
			 strrchr(argv[0], '/') ? argv[0] : ".");
	if (!mkdtemp(dir))
		return 1;
	log_set_level(LOG_LEVEL_WARN);
	snprintf(path, sizeof(path), "%s/kregress.db", dir);
	if (db_open(path, &db))
		goto out;
	t0 = now_s();
	if (populate(db, n))
		goto out;
	db_close(db);
	db = NULL;
	printf("api-load: %ld series and their jobs inserted in %.2f s\n", n,
	       now_s() - t0);

	snprintf(lua, sizeof(lua), "%s/random-id.lua", dir);
	f = fopen(lua, "w");
	if (!f)
		goto out;
	/* Each wrk thread has its own Lua state: seed each differently. */
	fprintf(f, "local threads = 0\n"
		"function setup(thread)\n"
		"  threads = threads + 1\n"
		"  thread:set(\"id\", threads)\n"
		"end\n"
		"function init(args)\n"
		"  math.randomseed(os.time() * 100 + id)\n"
		"end\n"
		"request = function()\n"
		"  return wrk.format(\"GET\", \"/api/v1/series/\" .. "
		"math.random(1, %ld))\nend\n", n);
	fclose(f);

	port = free_port();
	snprintf(cfg, sizeof(cfg), "%s/config.json", dir);
	f = fopen(cfg, "w");
	if (!f || !port)
		goto out;
	fprintf(f, "{ \"state_dir\": \"%s\", \"database\": \"%s\",\n"
		"  \"api\": { \"listen\": \"127.0.0.1:%d\" } }\n", dir,
		path, port);
	fclose(f);
	pid = fork();
	if (pid == 0) {
		snprintf(line, sizeof(line), "%s/kregressd.log", dir);
		if (!freopen(line, "w", stderr))
			_exit(127);
		execl(kd, "kregressd", "-c", cfg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait_listening(port)) {
		fprintf(stderr, "api-load: %s did not start listening on "
			"port %d\n", kd, port);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "wrk -t2 -c32 -d%lds --latency -s %s "
		 "http://127.0.0.1:%d/ 2>&1", secs, lua, port);
	printf("api-load: kregressd pid %d; %s\n", (int)pid, cmd);
	fflush(stdout);
	cpu0 = cpu_s(pid);
	p = popen(cmd, "r");
	if (!p)
		goto out;
	/* Keep wrk's own summary lines; they are the measurement. */
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "Requests/sec") || strstr(line, "Latency") ||
		    strstr(line, "%") || strstr(line, "requests in") ||
		    strstr(line, "Non-2xx") || strstr(line, "Socket errors")) {
			printf("api-load: wrk: %s", line);
			if (strstr(line, "requests in"))
				requests = atoll(line);
			if (strstr(line, "Non-2xx") ||
			    strstr(line, "Socket errors"))
				errors = 1;
		}
	ret = pclose(p) || requests <= 0 || errors ? 1 : 0;
	if (requests > 0) {
		double cpu = cpu_s(pid) - cpu0;

		printf("api-load: kregressd CPU %.1f us per request (%.2f "
		       "CPU-s for %lld requests): ~%.0f req/s per fully "
		       "available core\n", cpu * 1e6 / requests, cpu,
		       requests, requests / cpu);
	}
	if (getloadavg(load, 3) == 3)
		printf("api-load: load average %.2f %.2f %.2f on %ld CPUs "
		       "(the machine is shared: figures vary with it)\n",
		       load[0], load[1], load[2],
		       sysconf(_SC_NPROCESSORS_ONLN));
out:
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
	db_close(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "api-load: could not remove %s\n", dir);
	return ret;
}
