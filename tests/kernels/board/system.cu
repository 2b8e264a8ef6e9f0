// system.cu: includes a header that is not the toolkit's: refused.
#include <sys/socket.h>

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	out[0] = in[0];
}
