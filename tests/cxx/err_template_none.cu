// err_template_none.cu: a template kernel that nothing instantiates: there is nothing to run
//@ define BS = 256
//@ param  n = 1000
//@ buffer in  float[n] random
//@ buffer out float[1] zero output
//@ grid   cdiv(n, BS)
//@ block  BS
//@ check  out = sum(in)

template <int BLOCK>
__global__ void reduce_t(const float *in, float *out, int n)
{
	if (threadIdx.x == 0)
		atomicAdd(out, in[blockIdx.x * BLOCK]);
}
