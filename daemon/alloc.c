/*
 * alloc.c - allocations that die rather than fail (see alloc.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "log.h"

static void *checked(void *p, size_t size)
{
	if (!p)
		die("alloc", "out of memory (%zu bytes)", size);
	return p;
}

void *alloc_check(void *p, const char *what)
{
	if (!p)
		die("alloc", "out of memory (%s)", what);
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
	size_t total;

	if (!n || !size)
		n = size = 1;
	total = alloc_mul(n, size);
	return checked(calloc(n, size), total);
}

void *xrealloc(void *p, size_t size)
{
	return checked(realloc(p, size ? size : 1), size);
}

char *xstrdup(const char *s)
{
	if (!s)
		s = "";
	return checked(strdup(s), strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	return checked(strndup(s ? s : "", n), n);
}

size_t alloc_mul(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		die("alloc", "size overflow (%zu * %zu)", a, b);
	return a * b;
}
