// template_header.cu: a template kernel, instantiated by the header: //@ kernel reduce_t<BS>
// BS is a define, so `sweep BS=64,128,256,512` compiles one instantiation a value.
//@ define BS = 256
//@ param  n = 1000003
//@ buffer in  float[n] random
//@ buffer out float[1] zero output
//@ grid   cdiv(n, BS)
//@ block  BS
//@ bytes  n * 4
//@ check  out = sum(in)
//@ kernel reduce_t<BS>
//@ kernel reduce_t<128> block 128
//@ kernel reduce_t<128> grid cdiv(n, 128)

template <int BLOCK>
__global__ void reduce_t(const float *in, float *out, int n)
{
	__shared__ float s[BLOCK];
	int t = threadIdx.x;
	int i = blockIdx.x * BLOCK + t;
	s[t] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int k = BLOCK / 2; k > 0; k /= 2) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0)
		atomicAdd(out, s[0]);
}
