// err_trap.cu: a kernel that calls __trap()
//@ param  n = 4099
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void trapper(int n, float *y)
{
	if (blockIdx.x == 3 && threadIdx.x == 7)
		__trap();
}
