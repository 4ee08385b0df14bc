/*
 * crash.h - what the daemon says when a fatal signal (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT) ends it: one line naming the signal, then the
 * failing thread's stack as backtrace_symbols_fd() writes it (binary,
 * offset, address; `addr2line -f -i -e kregressd OFFSET` names the
 * function and line), on stderr: the journal under systemd, the daemon
 * log in the tests.  The signal's default action (a core dump where
 * enabled) follows.  Not installed under AddressSanitizer, whose own
 * report says more.
 */
#ifndef KREGRESS_CRASH_H
#define KREGRESS_CRASH_H

/* Installs the handlers, for every thread.  Call once, early. */
void crash_trace_install(void);

#endif
