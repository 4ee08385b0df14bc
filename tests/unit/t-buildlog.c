/* t-buildlog.c - kbuild log parsing and warning bookkeeping. */
#include <string.h>

#include "buildlog.h"
#include "tap.h"

static void feed(struct buildlog *bl, const char *line)
{
	buildlog_feed(bl, line, strlen(line));
}

int main(void)
{
	struct buildlog bl;
	struct strbuf out = STRBUF_INIT;
	char line[256];

	buildlog_init(&bl, "/cache/slots/t/x86_64-k/src");
	feed(&bl, "  SYNC    include/config/auto.conf");
	feed(&bl, "  CC      mm/memory.o");
	feed(&bl, "  CC [M]  fs/x.o");
	feed(&bl, "  AS      arch/x86/entry/entry_64.o");
	feed(&bl, "  LD      vmlinux.o");
	feed(&bl, "  CCx     not/an/object.o");
	feed(&bl, "/cache/slots/t/x86_64-k/src/mm/memory.c:120:7: warning: "
		  "unused variable 'x' [-Wunused-variable]");
	feed(&bl, "/cache/slots/t/x86_64-k/src/mm/memory.c:99:7: warning: "
		  "unused variable 'x' [-Wunused-variable]");
	feed(&bl, "../include/linux/mm.h:5: warning: \"FOO\" redefined");
	bl.srctree_rel = "../src";
	feed(&bl, "../src/mm/memory.c:7:1: warning: "
		  "unused variable 'x' [-Wunused-variable]");
	feed(&bl, "../src/include/linux/mm.h:5: warning: \"FOO\" redefined");
	is_int(bl.compiled, 2, "CC lines counted, [M] included, CCx not");
	is_str(bl.objects.buf, "mm/memory.o\nfs/x.o\narch/x86/entry/"
	       "entry_64.o\n", "objects built by CC and AS");
	is_int(bl.warnings, 5, "warning lines counted");
	is_str(bl.warning_lines.buf,
	       "mm/memory.c: warning: unused variable 'x' [-Wunused-variable]\n"
	       "include/linux/mm.h: warning: \"FOO\" redefined\n",
	       "warnings normalised: no srctree, no line numbers, unique");
	ok(!bl.net_blocked && !bl.write_blocked, "no sandbox refusal yet");

	feed(&bl, "../src/mm/memory.c:3:1: error: "
		  "expected ';' before '}' token");
	feed(&bl, "make[2]: *** [scripts/Makefile.build:250: mm/memory.o] "
		  "Error 1");
	feed(&bl, "make: *** [Makefile:1992: .] Error 2");
	feed(&bl, "bash: connect: Network is unreachable");
	feed(&bl, "sh: 1: cannot create /x: Read-only file system");
	is_int(bl.errors, 3, "error lines counted");
	is_str(bl.error_lines.buf,
	       "mm/memory.c: error: expected ';' before '}' token\n"
	       "make[2]: *** [scripts/Makefile.build:250: mm/memory.o] "
	       "Error 1\n"
	       "make: *** [Makefile:1992: .] Error 2\n",
	       "first error lines kept, compiler one normalised");
	ok(bl.net_blocked, "network refusal seen");
	ok(bl.write_blocked, "read-only file system seen");
	buildlog_release(&bl);

	/* a line longer than the cap is cut, not overflowed */
	buildlog_init(&bl, NULL);
	{
		char big[5000];

		memset(big, 'a', sizeof(big));
		memcpy(big + 4000, ": warning: ", 11);
		buildlog_feed(&bl, big, sizeof(big));
	}
	is_int(bl.warnings, 0, "a warning marker past the cap is not seen");
	buildlog_release(&bl);

	strcpy(line, "../../src/kernel/fork.c:1:2:3: warning: w");
	buildlog_normalise(line, NULL);
	is_str(line, "src/kernel/fork.c: warning: w", "../ stripped");
	strcpy(line, "ld: warning: creating DT_TEXTREL");
	buildlog_normalise(line, NULL);
	is_str(line, "ld: warning: creating DT_TEXTREL", "no position: kept");

	buildlog_merge_warnings("a.c: warning: old\nb.c: warning: b\n"
				"h.h: warning: h\n",
				"a.o\n", "a.c: warning: new\nh.h: warning: h\n",
				&out);
	is_str(out.buf, "a.c: warning: new\nb.c: warning: b\n"
	       "h.h: warning: h\n",
	       "merge: rebuilt a.c's warnings replaced, b.c's kept");
	strbuf_reset(&out);
	buildlog_merge_warnings("", "", "", &out);
	is_str(out.buf, "", "merge of nothing");

	is_int(buildlog_new_warnings("a.c: warning: x\nb.c: warning: y\n",
				     "a.c: warning: x\nb.c: warning: yy\n"
				     "c.c: warning: z\n", &out), 2,
	       "two new warnings");
	is_str(out.buf, "b.c: warning: yy\nc.c: warning: z\n",
	       "a longer line is not mistaken for its prefix");
	is_int(buildlog_count_lines("a\n\nb\nc"), 3, "count lines");
	strbuf_release(&out);
	{
		double cpu = -1;

		is_int(buildlog_parse_times("0m0.01s 0m0.00s\n"
					    "12m3.50s 1m0.25s\n", &cpu), 0,
		       "times output parsed");
		is_double(cpu, 783.75, 1e-9, "children's user + system");
		is_int(buildlog_parse_times("0m0.01s 0m0.00s\n", &cpu), -1,
		       "no children line");
		is_int(buildlog_parse_times("0m0.01s 0m0.00s\nxm1s 0m0s\n",
					    &cpu), -1, "garbage");
	}
	return done_testing();
}
