/* t-initramfs.c - newc records byte for byte, and bad lists refused. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "initramfs.h"
#include "tap.h"

int main(void)
{
	struct strbuf a = STRBUF_INIT;
	char dir[] = "/tmp/t-initramfs-XXXXXX", path[64];
	struct initramfs_entry e[2];
	FILE *f;

	initramfs_record(&a, 7, "init", S_IFREG | 0755, 0, 0, "abc", 3);
	is_int((long long)a.len, 110 + 5 + 1 + 3 + 1,
	       "header 110, name 5 padded to 6, data 3 padded to 4");
	ok(!memcmp(a.buf, "07070100000007000081ED0000000000000000000000010000"
		   "000000000003000000000000000000000000000000000000000500000"
		   "000", 110), "newc header fields");
	ok(!memcmp(a.buf + 110, "init\0\0abc\0", 10), "name, data, padding");
	strbuf_reset(&a);
	initramfs_trailer(&a, 0);
	is_int((long long)a.len, 124, "trailer padded to a multiple of 4");

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/f", dir);
	f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	e[0].src = path;
	e[0].dst = "/bin/hello";
	e[0].mode = 0755;
	strbuf_reset(&a);
	is_int(initramfs_build(e, 1, &a), 0, "one file builds");
	ok(memmem(a.buf, a.len, "bin\0", 4) != NULL,
	   "parent directory /bin added");
	ok(memmem(a.buf, a.len, "TRAILER!!!", 10) != NULL, "trailer at end");

	e[1] = e[0];
	strbuf_reset(&a);
	is_int(initramfs_build(e, 2, &a), -1, "a path listed twice is refused");
	e[0].dst = "bin/relative";
	is_int(initramfs_build(e, 1, &a), -1, "a relative path is refused");
	e[0].dst = "/bin/../etc/x";
	is_int(initramfs_build(e, 1, &a), -1, "a .. component is refused");
	e[0].dst = "/bin//x";
	is_int(initramfs_build(e, 1, &a), -1, "an empty component is refused");
	e[0].dst = "/x";
	e[0].src = dir;
	is_int(initramfs_build(e, 1, &a), -1, "a directory as source fails");
	e[0].src = "/nonexistent/file";
	is_int(initramfs_build(e, 1, &a), -1, "a missing source fails");

	unlink(path);
	rmdir(dir);
	strbuf_release(&a);
	return done_testing();
}
