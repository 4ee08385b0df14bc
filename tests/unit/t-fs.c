/*
 * t-fs.c - mkdir -p, rm -rf and the atomic write as a user of them sees
 * the tree: parents made, existing directories fine, a tree removed
 * without following a symbolic link out of it, a missing path already
 * gone, a file written whole with no temporary left, and a failure that
 * says what failed where (a file where a directory should be: tests run
 * as root, whom no permission bit stops).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "strbuf.h"
#include "tap.h"

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int main(void)
{
	char top[] = "/tmp/t-fs.XXXXXX";
	char path[256], file[256], outside[256], link[256], want[320];
	struct strbuf why = STRBUF_INIT, sb = STRBUF_INIT;
	int fd;

	if (!mkdtemp(top))
		return 1;
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	is_int(fs_mkdir_p(path, 0755), 0, "mkdir -p a/b/c");
	ok(is_dir(path), "a/b/c is a directory");
	is_int(fs_mkdir_p(path, 0755), 0, "again: it exists, fine");
	snprintf(path, sizeof(path), "%s/a/own", top);
	is_int(fs_mkdir_p_owned(path, 0755, getuid(), getgid()), 0,
	       "mkdir -p owned by ourselves");
	ok(is_dir(path), "a/own is a directory");

	snprintf(outside, sizeof(outside), "%s/keep", top);
	fd = open(outside, O_WRONLY | O_CREAT, 0644);
	close(fd);
	snprintf(file, sizeof(file), "%s/a/b/c/f", top);
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	close(fd);
	snprintf(link, sizeof(link), "%s/a/b/link", top);
	ok(!symlink(top, link), "a symbolic link to the top, inside a/");

	snprintf(path, sizeof(path), "%s/a", top);
	is_int(fs_rm_rf(path), 0, "rm -rf a");
	ok(access(path, F_OK), "a is gone");
	ok(!access(outside, F_OK), "what the link pointed at is still there");
	is_int(fs_rm_rf(path), 0, "rm -rf of a missing path");

	snprintf(path, sizeof(path), "%s/keep/x", top);
	is_int(fs_mkdir_p(path, 0755), -1, "mkdir -p through a file fails");

	snprintf(path, sizeof(path), "%s/out/d/m.eml", top);
	is_int(fs_mkdir_parent(path, 0755, &why), 0,
	       "mkdir of a file's parent");
	is_int(fs_write_atomic(path, "hello\n", 6, 0640, &why), 0,
	       "an atomic write");
	is_int(strbuf_read_file(&sb, path, 64), 0, "the file reads back");
	is_str(sb.buf, "hello\n", "whole");
	snprintf(want, sizeof(want), "%s.tmp", path);
	ok(access(want, F_OK), "no temporary file is left");
	is_str(why.buf, "", "nothing went wrong, nothing said");

	snprintf(path, sizeof(path), "%s/keep/outbox/m.eml", top);
	snprintf(want, sizeof(want), "mkdir %s/keep/outbox: Not a directory",
		 top);
	is_int(fs_mkdir_parent(path, 0755, &why), -1,
	       "mkdir of a parent under a file fails");
	is_str(why.buf, want, "and says which call failed on which path, why");
	strbuf_reset(&why);
	snprintf(want, sizeof(want), "open %s.tmp: Not a directory", path);
	is_int(fs_write_atomic(path, "x", 1, 0640, &why), -1,
	       "an atomic write under a file fails");
	is_str(why.buf, want, "and names its temporary file and the cause");
	strbuf_release(&why);
	strbuf_release(&sb);

	is_int(fs_rm_rf(top), 0, "rm -rf the top");
	ok(access(top, F_OK), "it is gone");
	return done_testing();
}
