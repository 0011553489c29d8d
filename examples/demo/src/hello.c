/* The demo's build step: an ordinary program, compiled in the sandbox. */
#include <stdio.h>

int
main(void)
{
	printf("hello from a sandboxed build\n");
	return 0;
}
