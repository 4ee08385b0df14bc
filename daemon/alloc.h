/*
 * alloc.h - the allocation policy, git's: running out of memory is not a
 * condition the daemon or the CLI recovers from, so allocations that fail
 * die (logged as "alloc: out of memory (N bytes)") and callers never check.
 * Arrays grow with ALLOC_GROW(), whose size computations cannot overflow.
 */
#ifndef KREGRESS_ALLOC_H
#define KREGRESS_ALLOC_H

#include <stddef.h>

/* malloc, calloc, realloc that never return NULL (a size of 0 is 1). */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);

/*
 * strdup and strndup that never return NULL; a NULL s is copied as ""
 * (the absent fields of a parsed mail or feed read as empty).
 */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/*
 * p, for what a library allocated (json_dumps(), curl_url(), ...) when
 * NULL can only mean it ran out of memory: then it dies as xmalloc()
 * does, naming what (the library call).
 */
void *alloc_check(void *p, const char *what);

/* a * b, dying rather than wrapping around. */
size_t alloc_mul(size_t a, size_t b);

/* x reallocated to hold alloc elements of its type. */
#define REALLOC_ARRAY(x, alloc) \
	((x) = xrealloc((x), alloc_mul(sizeof(*(x)), (alloc))))

/* The next capacity after alloc: half as much again, from 16. */
#define alloc_nr(alloc) (((alloc) + 16) * 3 / 2)

/*
 * Makes x (alloc elements of room) hold at least nr: the usual call is
 * ALLOC_GROW(v, n + 1, alloc) before v[n++] = ...
 */
#define ALLOC_GROW(x, nr, alloc) \
	do { \
		if ((nr) > (alloc)) { \
			if (alloc_nr(alloc) < (nr)) \
				(alloc) = (nr); \
			else \
				(alloc) = alloc_nr(alloc); \
			REALLOC_ARRAY(x, alloc); \
		} \
	} while (0)

#endif
