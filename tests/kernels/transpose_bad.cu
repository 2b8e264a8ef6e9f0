// transpose_bad.cu: a transpose that is wrong on purpose, for the tests of
// the check (tests/gpu_check.sh): BUG=1 puts two elements off (the first at
// out index 5000 * N + 1234 when N > 5000, else 77 * N + 12), BUG=2 writes a
// NaN there instead, BUG=0 is right.
//@ define BUG = 1
//@ param  N = 8192
//@ buffer in  float[N*N] random
//@ buffer out float[N*N] poison output
//@ grid  cdiv(N, 32), cdiv(N, 8)
//@ block 32, 8
//@ check out = transpose(in, N, N)

__global__ void transpose_bad(const float *__restrict__ in, float *__restrict__ out, int N)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= N || y >= N)
		return;
	const int bx = N > 5000 ? 5000 : 77, by = N > 5000 ? 1234 : 12;
	float v = in[(size_t)y * N + x];
	if (BUG == 1 && x == bx && y == by)
		v += 1.0f;
	if (BUG == 1 && x == N - 2 && y == 7)
		v -= 2.0f;
	if (BUG == 2 && x == bx && y == by)
		v = __int_as_float(0x7fc00000);
	out[(size_t)x * N + y] = v;
}
