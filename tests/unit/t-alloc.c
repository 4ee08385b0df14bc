/*
 * t-alloc.c - the allocation policy: ALLOC_GROW keeps what an array
 * holds, xstrdup() copies NULL as "", and a size computation that would
 * wrap around dies instead of allocating too little.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "tap.h"

int main(void)
{
	int *v = NULL, good = 1, st;
	size_t n = 0, alloc = 0, i;
	char *s;
	pid_t pid;

	for (i = 0; i < 1000; i++) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = (int)i;
	}
	for (i = 0; i < n; i++)
		good &= v[i] == (int)i;
	ok(good && alloc >= n, "1000 elements grown one at a time, all kept");
	ALLOC_GROW(v, 5000, alloc);
	ok(alloc >= 5000 && v[999] == 999, "a jump to 5000 at once");
	free(v);

	s = xstrdup(NULL);
	is_str(s, "", "xstrdup(NULL) is \"\"");
	free(s);
	s = xstrndup("kregress", 3);
	is_str(s, "kre", "xstrndup() stops at n");
	free(s);
	is_int((long long)alloc_mul(3, 7), 21, "alloc_mul(3, 7)");

	pid = fork();
	if (!pid) {
		alloc_mul(SIZE_MAX / 2, 3);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ok(!(WIFEXITED(st) && WEXITSTATUS(st) == 0),
	   "a product that would wrap around dies");
	return done_testing();
}
