// local_array.cu: a per-thread array of random numbers (a linear
// congruential sequence from each input) read at an index known only at run
// time, which the compiler must place in local memory: `lines local_copy`
// shows local sectors on the lines that write and read it
// (tests/gpu_lines.sh). The output is not checked: its values are noise.
//@ param  N = 1048576
//@ buffer A float[N] random
//@ buffer B float[N] poison output
//@ grid  cdiv(N, 256)
//@ block 256

__global__ void local_copy(const float *A, float *B, int N)
{
	unsigned buf[256];
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	unsigned x = __float_as_uint(A[i]);
	for (int k = 0; k < 256; k++) {
		buf[k] = x; // [local write]
		x = x * 1664525u + 1013904223u;
	}
	const int j = x >> 24; // known only at run time
	B[i] = __uint_as_float(buf[j] & 0x3fffffffu); // [local read]
}
