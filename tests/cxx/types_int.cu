// types_int.cu: 8-, 16- and 64-bit integers: sums that wrap as the device's
// arithmetic does, compared exactly
//@ param  n = 1000003
//@ buffer a int8[n] random
//@ buffer b int8[n] random
//@ buffer s8 int8[n] poison output
//@ buffer u uint8[n] random
//@ buffer cu uint8[n] poison output
//@ buffer h int16[n] random
//@ buffer h2 int16[n] poison output
//@ buffer w uint64[n] iota
//@ buffer w2 uint64[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  s8 = add(a, b)
//@ check  cu = copy(u)
//@ check  h2 = add(h, h)
//@ check  w2 = scale(w, 3)
#include <stdint.h>

__global__ void small_ints(int n, const int8_t *a, const int8_t *b, int8_t *s8, const unsigned char *u,
                           unsigned char *cu, const short *h, short *h2, const uint64_t *w, uint64_t *w2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		s8[i] = (int8_t)(a[i] + b[i]);
		cu[i] = u[i];
		h2[i] = (short)(h[i] + h[i]);
		w2[i] = 3 * w[i];
	}
}
