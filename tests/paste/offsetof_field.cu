// offsetof_field.cu: offsetof of a struct field, as <stddef.h> gives it
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
struct particle { float x, y, z; int id; };
__global__ void field(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] + (float)offsetof(particle, id);
}
