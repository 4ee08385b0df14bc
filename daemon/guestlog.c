/*
 * guestlog.c - recognise kernel panics, oopses and hangs in console text.
 *
 * The patterns are the kernel's own fixed message prefixes (kernel/panic.c,
 * arch/x86/kernel/dumpstack.c, arch/arm64/kernel/traps.c, kernel/watchdog.c,
 * kernel/rcu/tree_stall.h, kernel/hung_task.c).  A panic outranks a hang,
 * which outranks an oops: the reason kept is the first line of the worst
 * event, which is the one a person wants to read first.
 */
#include <string.h>

#include "frame.h"
#include "guestlog.h"

struct pattern {
	const char *text;
	enum guestlog_event event;
};

static const struct pattern patterns[] = {
	{ "Kernel panic - not syncing", GUESTLOG_PANIC },
	{ "BUG: soft lockup", GUESTLOG_HANG },
	{ "watchdog: BUG: soft lockup", GUESTLOG_HANG },
	{ "Watchdog detected hard LOCKUP", GUESTLOG_HANG },
	{ "rcu_sched self-detected stall", GUESTLOG_HANG },
	{ "rcu: INFO: rcu_sched detected stalls", GUESTLOG_HANG },
	{ "rcu: INFO: rcu_preempt detected stalls", GUESTLOG_HANG },
	{ "blocked for more than", GUESTLOG_HANG },
	{ "Oops:", GUESTLOG_OOPS },
	{ "BUG: ", GUESTLOG_OOPS },
	{ "general protection fault", GUESTLOG_OOPS },
	{ "Internal error: Oops", GUESTLOG_OOPS },
	{ "Unable to handle kernel", GUESTLOG_OOPS },
	{ NULL, GUESTLOG_NONE },
};

void guestlog_init(struct guestlog *gl)
{
	memset(gl, 0, sizeof(*gl));
	gl->event = GUESTLOG_NONE;
}

void guestlog_set_end(struct guestlog *gl, const char *prefix)
{
	gl->end_prefix = prefix;
}

const char *guestlog_event_str(enum guestlog_event ev)
{
	switch (ev) {
	case GUESTLOG_NONE:
		return "none";
	case GUESTLOG_OOPS:
		return "oops";
	case GUESTLOG_HANG:
		return "hang";
	case GUESTLOG_PANIC:
		return "panic";
	}
	return "unknown";
}

static void keep_reason(struct guestlog *gl, const char *line)
{
	size_t n;

	/* Drop the "[    1.234567] " timestamp a kernel may prefix. */
	if (line[0] == '[') {
		const char *end = strchr(line, ']');

		if (end) {
			line = end + 1;
			while (*line == ' ')
				line++;
		}
	}
	n = frame_text(gl->reason, sizeof(gl->reason), line, strlen(line));
	while (n && gl->reason[n - 1] == ' ')
		n--;
	gl->reason[n] = '\0';
}

static void scan_line(struct guestlog *gl)
{
	const struct pattern *p;

	gl->line[gl->line_len] = '\0';
	gl->lines++;
	if (strstr(gl->line, "Run /init as init process") ||
	    strstr(gl->line, "Freeing unused kernel"))
		gl->reached_init = 1;
	if (gl->end_prefix &&
	    !strncmp(gl->line, gl->end_prefix, strlen(gl->end_prefix)))
		gl->end_seen = 1;
	for (p = patterns; p->text; p++) {
		if (!strstr(gl->line, p->text))
			continue;
		if (p->event > gl->event) {
			gl->event = p->event;
			keep_reason(gl, gl->line);
		}
		break;
	}
	gl->line_len = 0;
}

void guestlog_feed(struct guestlog *gl, const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = data[i];

		if (c == '\n') {
			scan_line(gl);
			continue;
		}
		if (c == '\r' || c == '\0')
			continue;
		/* Over-long lines are cut; the tail is dropped, not rescanned. */
		if (gl->line_len < sizeof(gl->line) - 1)
			gl->line[gl->line_len++] = c;
	}
}

void guestlog_finish(struct guestlog *gl)
{
	if (gl->line_len)
		scan_line(gl);
}
