// bad_header.cu: a valid kernel under a header with one malformed //@ line
//
// Not a lesson: a golden test for header errors. Line 9 misspells the init
// of buffer `out` ("posion" for "poison", at column 25): `use` must fail with
// one message that starts "tests/kernels/bad_header.cu:9:25: " and names the
// word, and the REPL must go on. Everything else in the file is valid.
//@ param  N = 1000
//@ buffer in  float[N] random
//@ buffer out float[N] posion output
//@ grid  cdiv(N, 256)
//@ block 256
//@ check out = copy(in)

__global__ void copy_kernel(const float *in, float *out, int N)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = in[i];
}
