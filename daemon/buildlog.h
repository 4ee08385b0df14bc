/*
 * buildlog.h - what a kernel build log says, parsed line by line.
 *
 * The builder feeds every line of make's output here as it arrives: "CC"
 * lines count compiled objects (progress for "kregress watch", and the list
 * of rebuilt objects a test can assert on), compiler warnings are kept in a
 * normalised form (no line numbers, no source-tree prefix, so that a patch
 * that shifts lines does not make old warnings look new), the first error
 * lines are kept for the report, and the sandbox's refusals ("Network is
 * unreachable", "Read-only file system") become a reason.  No I/O here.
 */
#ifndef KREGRESS_BUILDLOG_H
#define KREGRESS_BUILDLOG_H

#include "strbuf.h"

#define BUILDLOG_MAX_ERRORS	20	/* error lines kept */
#define BUILDLOG_LINE_MAX	1024	/* longer lines are cut */

struct buildlog {
	const char *srctree;	/* borrowed; stripped from paths, may be NULL */
	/* srctree as seen from the object directory ("../src"), may be NULL */
	const char *srctree_rel;
	int compiled;		/* "CC" lines (C objects compiled) */
	struct strbuf objects;	/* every object built by CC or AS, one a line */
	int warnings;		/* warning lines, duplicates included */
	struct strbuf warning_lines;	/* normalised, one a line, unique */
	int errors;		/* error lines seen */
	struct strbuf error_lines;	/* the first BUILDLOG_MAX_ERRORS */
	int net_blocked;	/* the build tried to reach the network */
	int write_blocked;	/* ... or to write outside its directories */
};

void buildlog_init(struct buildlog *bl, const char *srctree);
void buildlog_release(struct buildlog *bl);

/* Feeds one line (without its newline; len bytes, need not be NUL'd). */
void buildlog_feed(struct buildlog *bl, const char *line, size_t len);

/*
 * Normalises a compiler diagnostic in place: strips srctree (and "../")
 * from the path and the ":line:col" after it.  "mm/memory.c:12:5: warning:
 * x" becomes "mm/memory.c: warning: x".
 */
void buildlog_normalise(char *line, const char *srctree);

/*
 * Warning state across incremental builds.  An incremental build only
 * recompiles some files, so its log only shows their warnings.  The state
 * of an object directory is the set of warnings of a full build: from the
 * previous state, drop the warnings of every source file that was rebuilt
 * (objects, one a line, "mm/memory.o" -> "mm/memory.c" or ".S"), then add
 * the warnings seen now.  Writes the sorted, unique result to out.
 */
void buildlog_merge_warnings(const char *prev_state, const char *objects,
			     const char *now, struct strbuf *out);

/*
 * Lines of cur (one warning a line) that are not in base; appended to out.
 * Returns their number.
 */
int buildlog_new_warnings(const char *base, const char *cur,
			  struct strbuf *out);

/*
 * Parses the output of the shell's "times" builtin ("0m0.01s 0m0.00s" for
 * the shell, then the same for its children) into the children's user +
 * system seconds.  Returns 0, or -1 if text is not in that form.  The
 * build measures CPU time this way because bwrap does not wait for its
 * pid-1 process, so the caller's rusage never sees the compilers.
 */
int buildlog_parse_times(const char *text, double *cpu_s);

/* Number of non-empty lines of a newline-separated list. */
int buildlog_count_lines(const char *text);

#endif
