/* kregressd.c - placeholder until the daemon lands (foundation issue). */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "kregressd: not implemented yet\n");
	return 1;
}
