/* probe.c: the first element of buffer NAME (argv[1], a float buffer filled
 * `random`) in cuplay's default inputs, as a C hex float: what
 * seedprobe.cu's cheat compares in[0] with (tests/gpu_board.sh builds it
 * against libcuplay.a). */
#include <stdio.h>
#include "buffer.h"
#include "plan_types.h"

int main(int argc, char **argv)
{
	float x = 0;
	buffer_fill(&x, DT_FLOAT, 1, INIT_RANDOM, 0, buffer_seed(PLAN_SEED_DEFAULT, argc > 1 ? argv[1] : "in"));
	printf("%af\n", (double)x);
	return 0;
}
