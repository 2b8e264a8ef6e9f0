// arch_old.cu: no target of the list runs on sm_90 (test fixture)
//@ arch sm_80, sm_86
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 128)
//@ block  128
//@ check  y = copy(x)
__global__ void copy(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
