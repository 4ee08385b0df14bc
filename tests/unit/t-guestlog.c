/*
 * t-guestlog.c - panics, oopses and hangs recognised in console text.
 */
#include "guestlog.h"
#include "tap.h"

static void feed(struct guestlog *gl, const char *s)
{
	guestlog_feed(gl, s, strlen(s));
}

int main(void)
{
	struct guestlog gl;
	char big[3000];
	size_t i;

	guestlog_init(&gl);
	feed(&gl, "[    0.500000] Run /init as init process\n"
		  "KREGRESS 1 abc 0 {} 0\n");
	guestlog_finish(&gl);
	is_int(gl.event, GUESTLOG_NONE, "a clean boot has no event");
	ok(gl.reached_init, "the kernel ran /init");
	is_int(gl.lines, 2, "two lines");

	/* A panic split across chunks, with CRLF, after an oops. */
	guestlog_init(&gl);
	feed(&gl, "[    1.0] Oops: 0002 [#1] PREEMPT SMP\r\n[    1.1] Kern");
	is_int(gl.event, GUESTLOG_OOPS, "oops seen");
	feed(&gl, "el panic - not syncing: No working init found.  Try "
		  "passing init= option\r\n");
	is_int(gl.event, GUESTLOG_PANIC, "a panic outranks the oops");
	is_str(gl.reason, "Kernel panic - not syncing: No working init "
	       "found.  Try passing init= option",
	       "reason is the panic line without timestamp or CR");
	feed(&gl, "BUG: soft lockup - CPU#0 stuck for 22s!\n");
	is_int(gl.event, GUESTLOG_PANIC, "a later hang does not demote it");

	guestlog_init(&gl);
	feed(&gl, "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]\n");
	is_int(gl.event, GUESTLOG_HANG, "soft lockup is a hang, not an oops");
	feed(&gl, "INFO: task foo:12 blocked for more than 120 seconds.\n");
	is_int(gl.event, GUESTLOG_HANG, "hung task is a hang");

	/* Hostile console: binary bytes and an over-long line. */
	guestlog_init(&gl);
	for (i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)(i % 251 + 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "Kernel panic - not syncing: \x01\x7f\xff", 31);
	guestlog_feed(&gl, big, sizeof(big) - 1);
	guestlog_finish(&gl);
	is_int(gl.event, GUESTLOG_PANIC, "panic at the start of a long line");
	ok(strlen(gl.reason) < GUESTLOG_REASON_MAX, "reason capped");
	for (i = 0; gl.reason[i]; i++)
		if (gl.reason[i] < 0x20 || gl.reason[i] > 0x7e)
			break;
	is_int(gl.reason[i], 0, "reason is printable ASCII");
	ok(!strncmp(gl.reason, "Kernel panic - not syncing: \\x01\\x7f\\xff",
		    40), "control characters and bytes that are not UTF-8 "
	   "read \\xNN: %.44s", gl.reason);
	guestlog_init(&gl);
	feed(&gl, "[    2.0] Kernel panic - not syncing: caf\xc3\xa9\n");
	is_str(gl.reason, "Kernel panic - not syncing: caf\xc3\xa9",
	       "UTF-8 in a panic line stays that text");
	/* Text after the cut of an over-long line is not scanned. */
	guestlog_init(&gl);
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big + 1000, "Oops:", 5);
	guestlog_feed(&gl, big, sizeof(big) - 1);
	guestlog_finish(&gl);
	is_int(gl.event, GUESTLOG_NONE, "pattern beyond the line cap ignored");
	is_str(guestlog_event_str(GUESTLOG_HANG), "hang", "event names");

	guestlog_init(&gl);
	guestlog_set_end(&gl, "KREGRESS 1 n1 END ");
	feed(&gl, "KREGRESS 1 n2 END 3 00000000\nxKREGRESS 1 n1 END 3 0\n");
	ok(!gl.end_seen, "END of another nonce or mid-line: not the end");
	feed(&gl, "KREGRESS 1 n1 EN");
	ok(!gl.end_seen, "half a line is not the end");
	feed(&gl, "D 3 0badc0de\r\n");
	ok(gl.end_seen, "our END line is");
	return done_testing();
}
