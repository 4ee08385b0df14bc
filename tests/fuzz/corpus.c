/*
 * corpus.c - a libFuzzer harness's committed inputs as a TAP test.
 *
 * Linked with one tests/fuzz/fuzz-*.c and built by the ordinary compiler
 * (no libFuzzer, sanitizers only when the build has them), it feeds
 * LLVMFuzzerTestOneInput() every regular file below the directories of
 * FUZZ_CORPUS (space-separated, relative to $KREGRESS_SRC), each in a
 * child process, one test per file: an input that once crashed a harness
 * or broke one of its checks fails `make check-fast`, not only the
 * bounded `make check-fuzz` run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"
#include "tap.h"

#ifndef FUZZ_CORPUS
#error "FUZZ_CORPUS must name the input directories"
#endif

#define CORPUS_MAX_BYTES	(1u << 20)	/* per input file */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the regular files below dir to *files, recursively. */
static void collect(const char *dir, char ***files, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		ok(0, "%s: cannot open", dir);
		return;
	}
	while ((e = readdir(d))) {
		struct strbuf path = STRBUF_INIT;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (!lstat(path.buf, &st) && S_ISDIR(st.st_mode)) {
			collect(path.buf, files, nr);
		} else if (S_ISREG(st.st_mode)) {
			*files = realloc(*files, (*nr + 1) * sizeof(**files));
			if (!*files)
				abort();
			(*files)[(*nr)++] = strbuf_detach(&path, NULL);
			continue;
		}
		strbuf_release(&path);
	}
	closedir(d);
}

/* Runs the harness on one file in a child; its wait status. */
static int run_one(const char *path)
{
	struct strbuf in = STRBUF_INIT;
	int status = 0;
	pid_t pid;

	if (strbuf_read_file(&in, path, CORPUS_MAX_BYTES) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		LLVMFuzzerTestOneInput((const uint8_t *)in.buf, in.len);
		strbuf_release(&in);
		_exit(0);
	}
	strbuf_release(&in);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return status;
}

int main(void)
{
	const char *src = getenv("KREGRESS_SRC");
	char *dirs = strdup(FUZZ_CORPUS), *dir, *save = NULL;
	char **files = NULL;
	size_t nr = 0, i;

	if (!src)
		src = ".";
	for (dir = strtok_r(dirs, " ", &save); dir;
	     dir = strtok_r(NULL, " ", &save)) {
		struct strbuf path = STRBUF_INIT;

		strbuf_addf(&path, "%s/%s", src, dir);
		collect(path.buf, &files, &nr);
		strbuf_release(&path);
	}
	qsort(files, nr, sizeof(*files), cmp_str);
	ok(nr > 0, "%zu corpus files", nr);
	for (i = 0; i < nr; i++) {
		int st = run_one(files[i]);

		if (!ok(st == 0, "%s", files[i] + strlen(src) + 1))
			diag("%s", st < 0 ? "cannot run it" :
			     WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) :
			     "the harness exited non-zero");
		free(files[i]);
	}
	free(files);
	free(dirs);
	return done_testing();
}
