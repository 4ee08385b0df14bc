/*
 * guestlog.h - what a guest's console says about the guest's health.
 *
 * Pure logic, no I/O: vm.c feeds the console bytes of one boot as they
 * arrive and asks whether the kernel panicked, oopsed or reported a hang
 * (soft lockup, RCU stall, hung task).  The KREGRESS result lines are not
 * interpreted here; console.c (the result protocol) owns them.  Console
 * text is untrusted guest output: lines are cut at GUESTLOG_LINE_MAX and
 * the reason kept is one line: UTF-8 text stays, control characters and
 * bytes that are not UTF-8 read \xNN (frame_text()).
 */
#ifndef KREGRESS_GUESTLOG_H
#define KREGRESS_GUESTLOG_H

#include <stddef.h>

#define GUESTLOG_LINE_MAX	512
#define GUESTLOG_REASON_MAX	160

enum guestlog_event {
	GUESTLOG_NONE,		/* nothing bad seen */
	GUESTLOG_OOPS,		/* Oops, BUG:, general protection fault */
	GUESTLOG_HANG,		/* soft/hard lockup, RCU stall, hung task */
	GUESTLOG_PANIC,		/* "Kernel panic - not syncing" */
};

struct guestlog {
	enum guestlog_event event;	/* the worst seen so far */
	char reason[GUESTLOG_REASON_MAX];	/* its first line, escaped */
	int reached_init;	/* the kernel ran /init ("Run /init ...") */
	const char *end_prefix;	/* borrowed; a line starting so = done */
	int end_seen;		/* such a line was seen */
	size_t lines;		/* complete lines seen */
	char line[GUESTLOG_LINE_MAX];	/* the line being assembled */
	size_t line_len;
};

void guestlog_init(struct guestlog *gl);

/* Lines starting with prefix (NULL: none) set end_seen: the guest's last
 * word (the result protocol's END line).  prefix must outlive gl. */
void guestlog_set_end(struct guestlog *gl, const char *prefix);

/* Scans len more console bytes; lines may be split between calls. */
void guestlog_feed(struct guestlog *gl, const char *data, size_t len);

/* Scans the last, unterminated line (call once when the console ends). */
void guestlog_finish(struct guestlog *gl);

const char *guestlog_event_str(enum guestlog_event ev);

#endif
