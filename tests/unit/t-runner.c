/*
 * t-runner.c - per-boot samples from a console log: grouped by workload,
 * metric and params, reduced to the median; incomplete logs refused.
 */
#include <stdlib.h>

#include "frame.h"
#include "runner.h"
#include "strbuf.h"
#include "tap.h"

static void rec(struct strbuf *sb, const char *nonce, unsigned long seq,
		const char *json)
{
	char line[FRAME_LINE_MAX];

	if (frame_record(line, sizeof(line), nonce, seq, json) < 0)
		abort();
	strbuf_addstr(sb, line);
}

static void end(struct strbuf *sb, const char *nonce, unsigned long count)
{
	char line[FRAME_LINE_MAX];

	if (frame_end(line, sizeof(line), nonce, count) < 0)
		abort();
	strbuf_addstr(sb, line);
}

#define S(w, m, v, p) "{\"type\":\"sample\",\"workload\":\"" w "\"," \
	"\"metric\":\"" m "\",\"value\":" v ",\"unit\":\"ns\"," \
	"\"direction\":\"lower\",\"params\":" p "}"

int main(void)
{
	struct strbuf log = STRBUF_INIT;
	struct analyze_set set;
	struct analyze_metric *m;
	size_t i;
	char reason[256];
	int r;

	analyze_set_init(&set);
	rec(&log, "n1", 0, "{\"type\":\"env\"}");
	strbuf_addstr(&log, "[    1.0] some kernel message\n");
	rec(&log, "n1", 1, S("thp-fault", "pass", "30", "{\"thp\":\"always\"}"));
	rec(&log, "n1", 2, S("thp-fault", "pass", "10", "{\"thp\":\"always\"}"));
	rec(&log, "n1", 3, S("thp-fault", "pass", "20", "{\"thp\":\"always\"}"));
	rec(&log, "n1", 4, S("thp-fault", "pass", "99", "{\"thp\":\"never\"}"));
	end(&log, "n1", 5);
	r = runner_add_samples(&set, ANALYZE_BASE, 0, log.buf, log.len, "n1",
			       reason, sizeof(reason));
	is_int(r, 2, "two per-boot values (thp always, thp never)");
	is_int(set.n, 2, "two metrics");
	m = set.m;
	for (i = 0; i < set.n; i++)
		if (strstr(m[i].params, "always"))
			break;
	ok(i < set.n, "metric keyed by params");
	if (i < set.n) {
		is_int(m[i].n[ANALYZE_BASE], 1, "one value per boot");
		is_double(m[i].v[ANALYZE_BASE][0], 20, 0,
			  "iterations reduced to their median");
		is_str(m[i].unit, "ns", "unit kept");
		is_int(m[i].direction, STATS_LOWER_IS_BETTER, "direction");
	}
	r = runner_add_samples(&set, ANALYZE_PATCHED, 0, log.buf, log.len,
			       "n1", reason, sizeof(reason));
	is_int(r, 2, "the same log on the other side");
	is_int(set.n, 2, "no new metric");
	is_int(set.m[0].n[ANALYZE_PATCHED], 1, "patched side filled");

	/* No END: the boot does not count. */
	strbuf_reset(&log);
	rec(&log, "n2", 0, S("mremap", "ns", "5", "{}"));
	r = runner_add_samples(&set, ANALYZE_BASE, 0, log.buf, log.len, "n2",
			       reason, sizeof(reason));
	is_int(r, -1, "incomplete log refused");
	ok(!strncmp(reason, "incomplete", 10), "reason: %s", reason);
	is_int(set.n, 2, "nothing added");

	/* Another boot's nonce is not ours. */
	strbuf_reset(&log);
	rec(&log, "n3", 0, S("mremap", "ns", "5", "{}"));
	end(&log, "n3", 1);
	r = runner_add_samples(&set, ANALYZE_BASE, 0, log.buf, log.len, "n4",
			       reason, sizeof(reason));
	is_int(r, -1, "a log of another boot is refused");

	/* Complete, but no sample: not a usable boot. */
	strbuf_reset(&log);
	rec(&log, "n5", 0, "{\"type\":\"env\"}");
	end(&log, "n5", 1);
	r = runner_add_samples(&set, ANALYZE_BASE, 0, log.buf, log.len, "n5",
			       reason, sizeof(reason));
	is_int(r, -1, "no samples: refused");

	analyze_set_release(&set);
	strbuf_release(&log);
	is_str(runner_end_str(RUNNER_BUDGET), "budget", "end names");
	return done_testing();
}
