/*
 * common.c - option parsing, clock, memory helpers and result records
 * shared by the workload programs (see common.h).  Compiled into each
 * static workload binary; no library beyond libc.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "frame.h"
#include "interval.h"

#define JSON_MAX 2048

static const char *wl_name = "?";
static const char *const *primary_metrics;
static char params[JSON_MAX] = "{";
static size_t params_len = 1;
static char info[JSON_MAX] = "{";
static size_t info_len = 1;

static void add_raw(char *obj, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 2 < JSON_MAX) {
		memcpy(obj + *len, s, n + 1);
		*len += n;
	}
}

/* Appends ,"key": to an object under construction. */
static void add_key(char *obj, size_t *len, const char *key)
{
	if (*len > 1)
		add_raw(obj, len, ",");
	frame_json_str(obj, JSON_MAX, len, key);
	add_raw(obj, len, ":");
}

void wl_param_uint(const char *key, unsigned long value)
{
	char num[32];

	add_key(params, &params_len, key);
	snprintf(num, sizeof(num), "%lu", value);
	add_raw(params, &params_len, num);
}

void wl_param_str(const char *key, const char *value)
{
	add_key(params, &params_len, key);
	frame_json_str(params, JSON_MAX, &params_len, value);
}

void wl_info_uint(const char *key, unsigned long value)
{
	char num[32];

	add_key(info, &info_len, key);
	snprintf(num, sizeof(num), "%lu", value);
	add_raw(info, &info_len, num);
}

/* A reading of clock id in ns; a clock the kernel lacks fails the run. */
static uint64_t read_clock(clockid_t id, const char *what)
{
	struct timespec ts;
	uint64_t ns;
	int rc;

	rc = clock_gettime(id, &ts);
	if (interval_ts_ns(rc, &ts, &ns) < 0)
		wl_fail("%s clock: %s%s", what,
			rc ? strerror(errno) : "invalid reading",
			id == CLOCK_THREAD_CPUTIME_ID && rc ?
			" (a kernel without CONFIG_POSIX_TIMERS has none)" :
			"");
	return ns;
}

uint64_t wl_now_ns(void)
{
	return read_clock(CLOCK_MONOTONIC_RAW, "monotonic");
}

uint64_t wl_cpu_ns(void)
{
	return read_clock(CLOCK_THREAD_CPUTIME_ID, "thread CPU-time");
}

static void emit(const char *body)
{
	char line[JSON_MAX * 4];
	int n;

	n = snprintf(line, sizeof(line), "%s,\"params\":%s}}", body, params);
	if (n < 0 || n > (int)FRAME_JSON_MAX)
		snprintf(line, sizeof(line), "{\"type\":\"failure\","
			 "\"workload\":\"%s\",\"reason\":\"record too "
			 "long\"}", wl_name);
	/* One write per record: the framer reads whole lines. */
	printf("%s\n", line);
	fflush(stdout);
}

void wl_primary(const char *const *metrics)
{
	primary_metrics = metrics;
}

static int is_primary(const char *metric)
{
	const char *const *m;

	for (m = primary_metrics; m && *m; m++)
		if (!strcmp(*m, metric))
			return 1;
	return 0;
}

void wl_sample(const char *metric, const char *unit, const char *direction,
	       unsigned long iteration, double value)
{
	char body[JSON_MAX * 2];
	size_t n;

	n = snprintf(body, sizeof(body),
		     "{\"type\":\"sample\",\"workload\":\"%s\","
		     "\"metric\":\"%s\",\"unit\":\"%s\","
		     "\"direction\":\"%s\",%s\"iteration\":%lu,"
		     "\"value\":%.10g",
		     wl_name, metric, unit, direction,
		     is_primary(metric) ? "\"primary\":true," : "",
		     iteration, value);
	if (info_len > 1 && n < sizeof(body))
		snprintf(body + n, sizeof(body) - n, ",\"info\":%s}", info);
	emit(body);
	strcpy(info, "{");
	info_len = 1;
}

void wl_sample_interval(const char *metric, unsigned long iteration,
			uint64_t start, uint64_t end)
{
	uint64_t ns;

	if (interval_ns(start, end, &ns) < 0)
		wl_fail("%s: the clock went backwards by %llu ns", metric,
			(unsigned long long)(start - end));
	wl_sample(metric, "ns", "lower", iteration, (double)ns);
}

void wl_fail(const char *fmt, ...)
{
	char reason[512], body[JSON_MAX];
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	n = snprintf(body, sizeof(body),
		     "{\"type\":\"failure\",\"workload\":\"%s\",\"reason\":",
		     wl_name);
	frame_json_str(body, sizeof(body), &n, reason);
	emit(body);
	fprintf(stderr, "%s: %s\n", wl_name, reason);
	exit(WL_EXIT_REPORTED);
}

static void usage(const struct wl_opt *opts)
{
	const struct wl_opt *o;

	fprintf(stderr, "usage: %s", wl_name);
	for (o = opts; o->name; o++)
		fprintf(stderr, " [--%s %s]", o->name,
			o->choices ? o->choices :
			o->type == WL_OPT_STR ? "STR" : "N");
	fprintf(stderr, "\n");
	exit(2);
}

static int set_opt(const struct wl_opt *o, const char *v)
{
	char *end;

	switch (o->type) {
	case WL_OPT_UINT:
		if (*v < '0' || *v > '9')
			return -1;
		errno = 0;
		*(unsigned long *)o->ptr = strtoul(v, &end, 10);
		return errno || *end ? -1 : 0;
	case WL_OPT_INT:
		errno = 0;
		*(long *)o->ptr = strtol(v, &end, 10);
		return errno || *end || end == v ? -1 : 0;
	case WL_OPT_STR:
		if (o->choices) {
			const char *c = o->choices;
			size_t n = strlen(v);

			while (c) {
				if (!strncmp(c, v, n) &&
				    (c[n] == '|' || !c[n]))
					break;
				c = strchr(c, '|');
				c = c ? c + 1 : NULL;
			}
			if (!c || !n)
				return -1;
		}
		*(const char **)o->ptr = v;
		return 0;
	}
	return -1;
}

void wl_parse(const char *workload, int argc, char **argv,
	      const struct wl_opt *opts, struct wl_common *common)
{
	struct wl_opt all[64];
	int n = 0, i;

	wl_name = workload;
	for (; opts[n].name && n < 60; n++)
		all[n] = opts[n];
	all[n++] = (struct wl_opt){ "iterations", WL_OPT_UINT,
				    &common->iterations, NULL, 0 };
	all[n++] = (struct wl_opt){ "warmup", WL_OPT_UINT, &common->warmup,
				    NULL, 1 };
	all[n++] = (struct wl_opt){ "cpu", WL_OPT_INT, &common->cpu, NULL,
				    0 };
	all[n] = (struct wl_opt){ NULL, 0, NULL, NULL, 0 };
	for (i = 1; i < argc; i += 2) {
		struct wl_opt *o;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			usage(all);
		for (o = all; o->name; o++)
			if (!strncmp(argv[i], "--", 2) &&
			    !strcmp(argv[i] + 2, o->name))
				break;
		if (!o->name || i + 1 >= argc || set_opt(o, argv[i + 1])) {
			fprintf(stderr, "%s: bad argument '%s'\n", wl_name,
				argv[i]);
			usage(all);
		}
	}
	if (!common->iterations || common->iterations > 100000 ||
	    common->warmup > 100000) {
		fprintf(stderr, "%s: iterations 1..100000\n", wl_name);
		usage(all);
	}
	for (i = 0; i < n; i++) {
		if (!all[i].param)
			continue;
		if (all[i].type == WL_OPT_UINT)
			wl_param_uint(all[i].name,
				      *(unsigned long *)all[i].ptr);
		else if (all[i].type == WL_OPT_STR)
			wl_param_str(all[i].name, *(const char **)all[i].ptr);
	}
	wl_param_str("thp", wl_thp_mode());
	if (common->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(common->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			wl_fail("cannot pin to CPU %ld: %s", common->cpu,
				strerror(errno));
	}
}

void wl_madvise(void *p, size_t len, const char *madv)
{
	int advice;

	if (!strcmp(madv, "none"))
		return;
	advice = !strcmp(madv, "hugepage") ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
	if (madvise(p, len, advice)) {
		int err = errno;

		/* MADV_[NO]HUGEPAGE is EINVAL without THP */
		wl_fail("madvise(%s): %s%s%s", madv, strerror(err),
			wl_lacks(err, ENOSYS, "ADVISE_SYSCALLS"),
			wl_lacks(err, EINVAL, "TRANSPARENT_HUGEPAGE"));
	}
}

const char *wl_lacks(int err, int when, const char *option)
{
	static char text[4][96];
	static int next;
	char *t;

	if (err != when)
		return "";
	/* a few rotating buffers: one failure message may use several */
	t = text[next++ % 4];
	snprintf(t, sizeof(text[0]), " (the kernel lacks CONFIG_%s)", option);
	return t;
}

/* Reservations handed out by wl_map_aligned(), for wl_unmap(). */
static struct {
	void *p, *base;
	size_t total;
} maps[16];

void *wl_map_aligned(size_t len, size_t align, const char *madv)
{
	size_t total = len + 2 * align, i;
	char *base, *p;

	base = mmap(NULL, total, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		wl_fail("mmap reservation of %zu bytes: %s", total,
			strerror(errno));
	p = (char *)(((uintptr_t)base + align - 1) & ~(uintptr_t)(align - 1));
	if (mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		wl_fail("mmap of %zu bytes: %s", len, strerror(errno));
	wl_madvise(p, len, madv);
	for (i = 0; i < sizeof(maps) / sizeof(*maps); i++)
		if (!maps[i].p) {
			maps[i].p = p;
			maps[i].base = base;
			maps[i].total = total;
			return p;
		}
	wl_fail("more than %zu regions mapped", i);
}

void wl_unmap(void *p)
{
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(*maps); i++)
		if (maps[i].p == p) {
			munmap(maps[i].base, maps[i].total);
			maps[i].p = NULL;
			return;
		}
}

const char *wl_thp_mode(void)
{
	static char mode[32];
	char buf[128], *a, *b;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	strcpy(mode, "unknown");
	if (!f)
		return mode;
	if (fgets(buf, sizeof(buf), f) && (a = strchr(buf, '[')) &&
	    (b = strchr(a, ']')) && b - a - 1 < (long)sizeof(mode)) {
		memcpy(mode, a + 1, b - a - 1);
		mode[b - a - 1] = 0;
	}
	fclose(f);
	return mode;
}

unsigned long wl_vmstat(const char *name)
{
	char key[64];
	unsigned long v, found = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fscanf(f, "%63s %lu", key, &v) == 2)
		if (!strcmp(key, name)) {
			found = v;
			break;
		}
	fclose(f);
	return found;
}
