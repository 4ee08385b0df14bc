/*
 * crash.c - the stack of a fatal signal on stderr (see crash.h).  The
 * handler uses only what is safe in one: write(), backtrace() (loaded
 * before any signal), backtrace_symbols_fd(), raise().
 */
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "crash.h"

#define CRASH_FRAMES 64

static const struct {
	int sig;
	const char *name;
} fatal[] = {
	{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
	{ SIGILL, "SIGILL" }, { SIGABRT, "SIGABRT" },
};

static void say(const char *s)
{
	ssize_t unused = write(STDERR_FILENO, s, strlen(s));

	(void)unused;
}

static void on_fatal(int sig)
{
	void *frames[CRASH_FRAMES];
	const char *name = "a fatal signal";
	size_t i;
	int n;

	for (i = 0; i < sizeof(fatal) / sizeof(*fatal); i++)
		if (fatal[i].sig == sig)
			name = fatal[i].name;
	say("kregressd: killed by ");
	say(name);
	say("; the stack (addr2line -f -i -e kregressd OFFSET):\n");
	n = backtrace(frames, CRASH_FRAMES);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	/* SA_RESETHAND restored the default action: now take it. */
	raise(sig);
}

void crash_trace_install(void)
{
	struct sigaction sa;
	void *first;
	size_t i;

#ifdef __SANITIZE_ADDRESS__
	return;		/* its own report says more */
#endif
	/* The first call loads libgcc: not inside a handler. */
	backtrace(&first, 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal) / sizeof(*fatal); i++)
		sigaction(fatal[i].sig, &sa, NULL);
}
