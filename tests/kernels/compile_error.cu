// compile_error.cu: a valid header over a kernel with a C++ syntax error
//
// Not a lesson: a golden test for compile errors. The header parses; NVRTC
// then rejects line 19 (an operator with no right operand), and cuplay must
// report it as "tests/kernels/compile_error.cu:19: error: expected an
// expression", with no ptxas noise, and go on.
//@ param  N = 1000
//@ buffer in  float[N] random
//@ buffer out float[N] poison output
//@ grid  cdiv(N, 256)
//@ block 256
//@ check out = copy(in)

__global__ void broken(const float *in, float *out, int N)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		const float v = in[i];
		out[i] = v * ;
	}
}
