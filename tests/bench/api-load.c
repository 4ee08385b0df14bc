/*
 * api-load.c - GET /api/v1/series/{id} under load from wrk.
 *
 * Builds a database of 100,000 series (each with a fetch job, as a
 * submission leaves it) in one bulk transaction under $TMPDIR, serves it
 * with the API code kregressd runs (http.c + api.c, in this process, no
 * pipeline workers), and runs "wrk -t2 -c32 -d10s --latency" with a Lua
 * script that asks for random ids.  Prints wrk's throughput and latency
 * percentiles and the load average: on a shared machine the figures are
 * only as good as the CPU the run got.  It judges nothing.
 *
 * Environment: API_LOAD_SERIES (default 100000), API_LOAD_SECONDS (10),
 * API_LOAD_THREADS (server worker threads, default 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "db.h"
#include "log.h"
#include "strbuf.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) this process, the server, has used. */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
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

int main(void)
{
	long n = env_long("API_LOAD_SERIES", 100000);
	long secs = env_long("API_LOAD_SECONDS", 10);
	char dir[] = "/tmp/api-load.XXXXXX", path[256], lua[256];
	char cmd[1024], line[512];
	struct api_opts o = { .listen = "127.0.0.1:0" };
	struct api *api = NULL;
	struct db *db = NULL;
	double t0, cpu0, load[3];
	long long requests = 0;
	FILE *f, *p;
	int ret = 1;

	if (access("/usr/bin/wrk", X_OK)) {
		printf("api-load: /usr/bin/wrk not installed; skipped\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	log_set_level(LOG_LEVEL_WARN);
	snprintf(path, sizeof(path), "%s/kregress.db", dir);
	if (db_open(path, &db))
		goto out;
	t0 = now_s();
	if (populate(db, n))
		goto out;
	printf("api-load: %ld series and their jobs inserted in %.2f s\n", n,
	       now_s() - t0);

	snprintf(lua, sizeof(lua), "%s/random-id.lua", dir);
	f = fopen(lua, "w");
	if (!f)
		goto out;
	fprintf(f, "math.randomseed(os.time())\n"
		"request = function()\n"
		"  return wrk.format(\"GET\", \"/api/v1/series/\" .. "
		"math.random(1, %ld))\nend\n", n);
	fclose(f);

	o.db_path = path;
	o.threads = env_long("API_LOAD_THREADS", 4);
	if (api_start_opts(&o, &api))
		goto out;
	snprintf(cmd, sizeof(cmd), "wrk -t2 -c32 -d%lds --latency -s %s "
		 "http://127.0.0.1:%d/ 2>&1", secs, lua, api_port(api));
	printf("api-load: %s (server: %u worker threads)\n", cmd, o.threads);
	fflush(stdout);
	cpu0 = cpu_s();
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
		}
	ret = pclose(p) ? 1 : 0;
	/*
	 * Server CPU per request does not depend on how much of the machine
	 * the run got, so it says what the code costs.
	 */
	if (requests > 0)
		printf("api-load: server CPU %.1f us per request (%.2f CPU-s "
		       "for %lld requests): ~%.0f req/s per fully available "
		       "core\n", (cpu_s() - cpu0) * 1e6 / requests,
		       cpu_s() - cpu0, requests,
		       requests / (cpu_s() - cpu0));
	if (getloadavg(load, 3) == 3)
		printf("api-load: load average %.2f %.2f %.2f on %ld CPUs "
		       "(the machine is shared: figures vary with it)\n",
		       load[0], load[1], load[2], sysconf(_SC_NPROCESSORS_ONLN));
out:
	api_stop(api);
	db_close(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "api-load: could not remove %s\n", dir);
	return ret;
}
